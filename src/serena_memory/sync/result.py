"""What one sync did, and how it reads for a person."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from serena_memory.core.display import escape_line


@dataclass
class SyncResult:
    """What one sync did."""

    scope: str
    remote: str
    changed: dict[str, str] = field(default_factory=dict)  # name -> created|changed|deleted
    pushed: bool = False
    conflicts: list[str] = field(default_factory=list)
    kept_edits: list[str] = field(default_factory=list)  # deleted on one side, edited on the other
    skipped: list[str] = field(default_factory=list)  # not usable as memories here
    seconds: float = 0.0
    pull_only: bool = False  # the team's memories: pulled, never pushed
    remembered: str = ""  # the configuration file the remote was written into, if it was
    conflicts_elsewhere: list[str] = field(default_factory=list)  # found by another machine
    resolved_elsewhere: list[str] = field(default_factory=list)
    # memories the other side changed to hold a secret (core/secrets.py): not written here
    secrets_kept_out: list[str] = field(default_factory=list)
    # the remote's entries hold a secret (history/secret_scan.py): none of them merged here
    secrets_held_back: list[str] = field(default_factory=list)
    # why the remote's new entries could not all be checked for secrets in this sync (its
    # bound): none of them merged here either
    secrets_unchecked: str = ""
    # conflicts whose texts hold a secret (sync/conflicts.py): not kept here
    secrets_withheld: list[str] = field(default_factory=list)
    # memories the remote changed that could not be written here: "name (why)"; the next
    # sync brings them again, and nothing is pushed until then
    unwritten: list[str] = field(default_factory=list)

    @property
    def held_back(self) -> bool:
        """Nothing of the remote's entries was merged, nor anything pushed to it."""
        return bool(self.secrets_held_back or self.secrets_unchecked)

    @property
    def refused(self) -> bool:
        """Not a sync a script may take for done (the command exits with 1): nothing was
        merged, or a memory was kept out for a secret (a team pull: the team's fix of it is
        still to come; a sync: the remote's change to it is not merged yet)."""
        return self.held_back or bool(self.secrets_kept_out)

    @property
    def unpushed(self) -> bool:
        """Nothing was pushed because the branch does not follow the remote yet."""
        return self.held_back or bool(self.unwritten) or bool(self.secrets_kept_out)

    def summary(self) -> str:
        text = self._headline()
        if self.secrets_unchecked:
            text += (
                f" Nothing was merged from {self.remote} and nothing pushed to it yet: "
                f"{self.secrets_unchecked}."
            )
        if self.secrets_held_back:
            text += (
                f" Nothing was merged from {self.remote} and nothing pushed to it, because its "
                "history holds what looks like a secret in "
                + _names(self.secrets_held_back)
                + "; purge it from that remote's history (every branch) and from the history "
                "of the machine that wrote it, whose next sync would push it again (see "
                "docs/secrets.md), then sync again."
            )
        if self.unwritten:
            pushed = "" if self.pull_only else "; nothing is pushed until then"
            text += (
                " Not written here, so the next sync brings them again (fix the cause first"
                + pushed
                + "): "
                + "; ".join(escape_line(u) for u in self.unwritten)
                + "."
            )
        if self.remembered:
            text += f" The remote is remembered for the next syncs (in {self.remembered})."
        for names, said in self._notes():
            if names:
                text += said.format(names=_names(names))
        if self.secrets_withheld:
            text += (
                " The texts of a sync conflict were not kept here because they hold what looks "
                "like a secret, so the memory stays as it is: "
                + _names(self.secrets_withheld)
                + "; remove the secret and resolve the conflict on the machine whose sync found "
                "it (`serena memories resolve`), then sync again."
            )
        if self.secrets_kept_out and self.pull_only:
            # a team pull may keep out a memory not here yet: no local text stays then
            text += (
                " Kept out because the incoming text holds what looks like a secret (not "
                "written here, a memory already here keeps its text; remove the secret on the "
                "other side, then sync again): " + "; ".join(self.secrets_kept_out) + "."
            )
        elif self.secrets_kept_out:
            # the merged text, which may hold this machine's own secret: the remote's entry
            # is not recorded as merged, so its change comes in once the secret is gone
            text += (
                " Kept out because the merged text holds what looks like a secret, so the "
                "remote's changes to it are not merged here yet and nothing is pushed until "
                "then (the local text stays; remove the secret on whichever side holds it, "
                "then sync again): " + "; ".join(self.secrets_kept_out) + "."
            )
        if self.skipped:
            shown = _names(self.skipped)
            text += f" Not usable as memories here (name, kind of file or size), left out: {shown}."
        return text.lstrip()

    def _headline(self) -> str:
        """What changed here and whether anything was pushed."""
        where = f"the {self.scope} memories with {self.remote}"
        if self.pull_only:
            return self._pulled()
        if self.held_back and not self.changed:
            return ""  # nothing synced: the sentence saying why leads
        if not self.changed and not self.pushed and not self.unpushed:
            return f"Synced {where}: already up to date."
        parts = []
        if self.changed:
            counts: dict[str, int] = {}
            for what in self.changed.values():
                counts[what] = counts.get(what, 0) + 1
            parts.append("here " + ", ".join(f"{n} {what}" for what, n in sorted(counts.items())))
        if not self.unpushed:  # else nothing was pushed
            parts.append("local changes pushed" if self.pushed else "nothing to push")
        if not parts:
            return ""  # nothing synced: the sentence saying why leads
        return f"Synced {where}: " + "; ".join(parts) + "."

    def _pulled(self) -> str:
        """The team's memories: what the pull changed here (nothing is pushed)."""
        pulled = ", ".join(
            f"{sum(1 for w in self.changed.values() if w == what)} {what}"
            for what in ("created", "changed", "deleted")
            if what in self.changed.values()
        )
        if not pulled and self.unwritten:
            return f"Pulled the {self.scope} memories from {self.remote}: nothing written."
        return f"Pulled the {self.scope} memories from {self.remote}: " + (
            f"{pulled}." if pulled else "already up to date."
        )

    def _notes(self) -> list[tuple[list[str], str]]:
        """The lists of names the summary reports, each with its sentence."""
        kept = (
            " Changed here since the last pull, so kept: {names}."
            if self.pull_only
            else " Deleted on one side but edited on the other, so kept: {names}."
        )
        return [
            (self.kept_edits, kept),
            (
                self.conflicts,
                " Both sides changed the same lines of {names}: the local text stays, the "
                "other is kept for you; see `serena memories conflicts`.",
            ),
            (
                self.conflicts_elsewhere,
                " Another machine's sync found that both sides changed the same lines of "
                "{names}: the memory holds the text kept there, the other text is kept for "
                "you; see `serena memories conflicts`.",
            ),
            (self.resolved_elsewhere, " Resolved on another machine: {names}."),
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "remote": self.remote,
            "changed": self.changed,
            "pushed": self.pushed,
            "conflicts": self.conflicts,
            "remembered": self.remembered,
            "conflicts_elsewhere": self.conflicts_elsewhere,
            "resolved_elsewhere": self.resolved_elsewhere,
            "kept_edits": self.kept_edits,
            "skipped": self.skipped,
            "secrets_kept_out": self.secrets_kept_out,
            "secrets_held_back": self.secrets_held_back,
            "secrets_unchecked": self.secrets_unchecked,
            "secrets_withheld": self.secrets_withheld,
            "unwritten": self.unwritten,
            "seconds": round(self.seconds, 3),
        }


def _names(names: list[str]) -> str:
    """Names (or paths) from a remote as a message shows them: what could steer a terminal
    or pass for another name escaped (core/display.py)."""
    return ", ".join(escape_line(name) for name in names)
