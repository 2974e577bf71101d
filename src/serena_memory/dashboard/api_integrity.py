"""The dashboard's integrity handlers: the graphs, the check, its fixes."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

from serena_memory.core import names as N
from serena_memory.core.store import MemoryStore
from serena_memory.dashboard.api_base import (
    CHECK_PAGE,
    FULL_GRAPH_CAP,
    LOCAL_GRAPH_CAP,
    MAX_UNUSED_DAYS,
    UNUSED_DAYS,
    ApiBase,
    ApiError,
)
from serena_memory.integrity.code_drift.fixing import fix_code_replacements
from serena_memory.integrity.plugins.base import Check, CheckOptions, DashboardSection
from serena_memory.integrity.plugins.registry import CHECKS, registered
from serena_memory.integrity.references import prefixing
from serena_memory.integrity.references.check import with_sync_conflicts
from serena_memory.integrity.references.check_report import ENTRY_POINT
from serena_memory.integrity.references.check_report_text import checked_count
from serena_memory.integrity.references.links import fix_reference


class IntegrityApi(ApiBase):
    """The memory graph, the integrity check and the fixes it offers."""

    def graph(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        """The whole graph, filtered (topic, reachability, broken only) and capped."""
        q = request.query_params
        reach = q.get("reach", "all")
        if reach not in ("all", "reachable", "unreachable"):
            raise ApiError(400, "'reach' must be all, reachable or unreachable")
        graph = self.snapshots.get(self.store()).graph
        return graph.filtered(
            topic=N.normalize_topic(q.get("topic", "")),
            reach=reach,
            broken_only=q.get("broken") == "1",
            cap=self.int_param(request, "cap", FULL_GRAPH_CAP, 1, FULL_GRAPH_CAP),
        )

    def local_graph(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        """A memory with what it references and what references it, 1 or 2 steps out."""
        name = N.normalize_name(request.query_params.get("name", ""))
        depth = self.int_param(request, "depth", 1, 1, 2)
        graph = self.snapshots.get(self.store()).graph
        try:
            return graph.neighbourhood(name, depth, cap=LOCAL_GRAPH_CAP)
        except KeyError:
            raise ApiError(404, f"memory '{name}' not found") from None

    def topic_map(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        """Topics (and the memories directly in the topic asked for) with their counts."""
        topic = N.normalize_topic(request.query_params.get("topic", ""))
        return self.snapshots.get(self.store()).graph.topic_map(topic)

    def check(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        """The check report. With ``limit`` (the page), its lists are paged: each
        section's first ``limit`` items and its total; ``section`` and ``offset`` ask for
        another page of one section. Without, the whole report (for scripts)."""
        flags = request.query_params
        store = self.store()
        options = CheckOptions(unused_days=self._unused_days(flags))
        report = self.snapshots.get(store).check(
            include_unmarked=flags.get("include_unmarked") == "1",
            fuzzy=flags.get("fuzzy") == "1",
            reachability=flags.get("reachability") == "1",
        )
        report = with_sync_conflicts(store, report)
        wanted = flags.get("section")
        extra = self._extra_sections(store, flags, options, wanted)
        unclean = any(registered(k).dashboard_unclean(s.items) for k, s in extra.items())
        if "limit" not in flags and wanted is None:
            whole = report.to_dict()
            for key, section in extra.items():
                whole.update({key: section.items, **section.about})
            whole["clean"] = whole["clean"] and not unclean
            return whole
        sections = {**self.report_sections(report), **{k: s.items for k, s in extra.items()}}
        limit = self.int_param(request, "limit", CHECK_PAGE, 1, 1000)
        offset = self.int_param(request, "offset", 0, 0, 10**9)
        if wanted is not None:
            if wanted not in sections:
                raise ApiError(400, f"no section '{wanted}' in this report")
            items = sections[wanted]
            page = {
                "section": wanted,
                "offset": offset,
                "total": len(items),
                "items": items[offset : offset + limit],
            }
            if wanted in extra:  # what the summary above it says once the check ran
                page.update(extra[wanted].about)
                failing = registered(wanted).dashboard_failing(items)
                if failing is not None:
                    page["failing"] = failing
            return page
        return self._summary(report, sections, extra, unclean, limit)

    def _summary(
        self,
        report: Any,
        sections: dict[str, list[Any]],
        extra: dict[str, DashboardSection],
        unclean: bool,
        limit: int,
    ) -> dict[str, Any]:
        """What the Check page shows first: the counts, and each section's first page (a
        registered check's with what it says about its items)."""
        summary: dict[str, Any] = {
            "clean": report.is_clean() and not unclean,
            "scanned": report.scanned,
            "checked": checked_count(report),  # "3 of 5 memories checked; left out: ..."
            "include_unmarked": report.include_unmarked,
            "fuzzy": report.fuzzy,
            "bare_high_count": len(report.bare_high),
        }
        for key, section in extra.items():
            failing = registered(key).dashboard_failing(section.items)
            if failing is not None:
                summary[f"{key}_failing"] = failing
        if report.unreachable is not None:
            summary["entry_point"] = ENTRY_POINT if report.entry_point_exists else None
        summary["sections"] = {
            key: {
                "total": len(items),
                "items": items[:limit],
                **(extra[key].about if key in extra else {}),
            }
            for key, items in sections.items()
        }
        return summary

    @staticmethod
    def _unused_days(flags: Any) -> int | None:
        """The days a memory went unread to be listed as unused (``unused_days``, 30 when
        not given), when the unused memories are asked for (``unused=1``)."""
        raw = flags.get("unused_days")
        days = UNUSED_DAYS
        if raw is not None:
            try:
                days = int(raw)
            except ValueError:
                days = 0
            if not 1 <= days <= MAX_UNUSED_DAYS:
                raise ApiError(
                    400,
                    f"'unused_days' must be a whole number of days from 1 to {MAX_UNUSED_DAYS}: "
                    "how long nobody read a memory before it is listed as unused",
                )
        return days if flags.get("unused") == "1" else None

    def _extra_sections(
        self, store: MemoryStore, flags: Any, options: CheckOptions, wanted: str | None
    ) -> dict[str, DashboardSection]:
        """The sections of the registered checks asked for beside the memories' report
        (``code=1``, ``duplicates=1``, ``unused=1``: a check's name), each only for its own
        page or the whole. A check runs once per page load; turning a page of its section
        shows the list that load found (a page at offset 0 checks afresh), another
        section's page needs none."""
        extra: dict[str, DashboardSection] = {}
        for check in CHECKS:
            if flags.get(check.name) != "1" or wanted not in (None, check.name):
                continue
            turning = wanted is not None and flags.get("offset", "0") not in ("", "0")
            section = self.check_items(store, check, options, page_turn=turning)
            if section is not None:
                extra[check.name] = section
        return extra

    def report_sections(self, report: Any) -> dict[str, list[Any]]:
        """The report's lists as JSON-ready items, kept for the report last paged."""
        if self._sections is not None and self._sections[0] is report:
            return self._sections[1]
        sections: dict[str, list[Any]] = {"stale": [s.to_dict() for s in report.stale]}
        if report.include_unmarked:
            sections["bare"] = [b.to_dict() for b in report.bare_high + report.bare_low]
            if report.fuzzy:
                sections["near_misses"] = [b.to_dict() for b in report.near_misses]
        if report.unreachable is not None:
            sections["unreachable"] = list(report.unreachable)
            sections["ignored_references"] = [r.to_dict() for r in report.ignored_references or ()]
        sections["unreadable"] = list(report.unreadable)
        sections["skipped"] = [f.to_dict() for f in report.skipped]
        sections["sync_conflicts"] = list(report.sync_conflicts)
        self._sections = (report, sections)
        return sections

    def check_items(
        self, store: MemoryStore, check: Check, options: CheckOptions, page_turn: bool = False
    ) -> DashboardSection | None:
        """A registered check's section as the Check page lists it. A page turn gets the
        list of the load it pages through while the memories and the options are the same
        (a whole check per turn would be slow and could shift the pages)."""
        snapshot = self.snapshots.get(store)
        held = self._held.get(check.name)
        if page_turn and held is not None and held[0] is snapshot and held[1] == options:
            return held[2]
        section = check.dashboard_section(store, options)
        if section is not None:
            self._held[check.name] = (snapshot, options, section)
        return section

    def fix_code_reference(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        """Point one moved path of one memory at its new place (one history entry)."""
        memory = N.normalize_name(self.text_field(data, "memory"))
        mention = self.text_field(data, "mention")
        line = data.get("line")
        if not isinstance(line, int) or isinstance(line, bool) or line < 1:
            raise ApiError(400, "'line' must be a line number (1 or more)")
        store = self.store()
        if store.access().is_read_only(N.normalize_name(memory)):
            raise ApiError(
                403,
                f"memory '{memory}' is read-only (it matches read_only_memory_patterns): "
                "change it in an editor or lift the pattern",
            )
        only = [(memory, line, mention)]
        fixed = [f for r in fix_code_replacements(store, only=only).made for f in r.findings]
        if not fixed:
            raise ApiError(
                409,
                f"`{mention}` on line {line} of '{memory}' is no longer a moved path; "
                "check again to see what is left",
            )
        return {"memory": memory, "fixed": [f.to_dict() for f in fixed]}

    def fix_reference(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        source = self.text_field(data, "source")
        old = self.text_field(data, "old")
        new = self.text_field(data, "new")
        count = fix_reference(self.store(), source, old, new)
        return {"source": source, "old": old, "new": new, "count": count}

    def auto_prefix(self, request: Request, data: dict[str, Any]) -> dict[str, Any]:
        dry_run = data.get("dry_run", False)
        if not isinstance(dry_run, bool):
            raise ApiError(400, "'dry_run' must be true or false")
        report = prefixing.auto_prefix(self.store(), dry_run=dry_run)
        return {**report.to_dict(), "text": report.to_text()}
