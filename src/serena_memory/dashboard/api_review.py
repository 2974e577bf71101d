"""The dashboard's Review page: the agent's proposals (core/proposals.py), each with its
diff, accepted or rejected by the person."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

from serena_memory.dashboard.api_base import ApiBase


class ReviewApi(ApiBase):
    """Listing, accepting and rejecting the agent's proposals."""

    def proposals(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        """The agent's pending proposals, each with its diff against the memory now and
        whether that memory changed since (a conflict: it can't be accepted)."""
        from serena_memory.agent.proposal_views import proposal_diff
        from serena_memory.core import proposals as P

        store = self.store()
        found, skipped = P.pending(store)
        rows = []
        for proposal in found:
            _, conflict = P.state_of(store, proposal)
            rows.append(
                {
                    "id": proposal.id,
                    "memory": proposal.memory,
                    "action": proposal.action,
                    "new_name": proposal.new_name,
                    "describe": proposal.describe(),
                    "agent": proposal.agent,
                    "created": proposal.created,
                    "conflict": conflict,
                    "diff": proposal_diff(store, proposal),
                }
            )
        return {"proposals": rows, "skipped": [s.to_dict() for s in skipped]}

    def accept_proposal(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        """Make a proposal's change: one history entry naming the agent and the person."""
        from serena_memory.core import proposals as P

        done = P.accept(self.store(), self.text_field(data, "id"))
        return {"id": done.id, "summary": f"Accepted: {done.describe()}."}

    def reject_proposal(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        from serena_memory.core import proposals as P

        done = P.reject(self.store(), self.text_field(data, "id"))
        return {"id": done.id, "summary": f"Rejected: {done.describe()}."}
