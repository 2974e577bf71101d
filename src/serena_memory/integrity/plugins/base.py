"""What a check is: what it reads, when it is asked for, what it finds (JSON and text),
what fails ``--strict`` and the advice the strict check then gives.

A check runs in two steps so that slow work overlaps: :meth:`Check.begin` starts what
runs beside the memories' pass (git for the code check) and :meth:`Check.finish` gives
the findings once the pass over the memories (the references check, which every run
has) is done. How each check caches is its own (its module says)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore
    from serena_memory.integrity.listing import ReadAlong
    from serena_memory.integrity.references.check_report import CheckReport

# what a check reads
MEMORIES = "the memories' texts"
CODE = "the project's code (git)"
USAGE = "the reads counted on this machine"


class Findings(Protocol):
    """What one check found, as `check --json` and `check` print it."""

    def to_dict(self) -> dict[str, Any]:
        """The keys this check adds to the JSON report."""
        ...

    def to_text(self) -> str:
        """This check's part of the text report (lines ending in a newline, or '')."""
        ...


@dataclass(frozen=True)
class CheckOptions:
    """What was asked for (the `check` command's options)."""

    include_unmarked: bool = False
    fuzzy: bool = False
    reachability: bool = False
    code: bool = False
    since: str | None = None
    changed_commits: int | None = None
    duplicates: bool = False
    unused_days: int | None = None
    stale: bool = False  # deprecated and stale memories, and unknown successors
    jobs: int = 0  # 0: one per CPU (single-threaded callers only)
    progress: Callable[[int], None] | None = None


@dataclass
class CheckRun:
    """One run of the checks asked for: the store, the options, and what the pass over
    the memories found and collected for the checks that finish after it."""

    store: MemoryStore
    options: CheckOptions
    # what a later check finds as the memories are read (None: nobody asked)
    read_along: ReadAlong | None = None
    report: CheckReport | None = None
    begun: dict[str, Any] = field(default_factory=dict)  # what each check's begin started


@dataclass(frozen=True)
class Joined:
    """A later check that joins the all-clear: its words, and whether it found something."""

    words: str
    found: bool


@dataclass(frozen=True)
class DashboardSection:
    """A check's section of the dashboard's Check page: its items, and what the page says
    about them beside their count (keys the section's answer adds)."""

    items: list[dict[str, Any]]
    about: dict[str, Any] = field(default_factory=dict)


class Check:
    """One check. Subclasses set the class attributes and override what they need."""

    name: str = ""  # its key in the registry and on the dashboard's Check page
    flag: str = ""  # the `check` option that asks for it ('' for the check always run)
    reads: tuple[str, ...] = (MEMORIES,)
    # said after "The strict check failed: " when its findings fail --strict
    advice: str = ""
    # its findings printed below a clean references report shorten that report's all-clear
    quiets_all_clear: bool = False
    # what this check adds to the references' all-clear line when it finds nothing
    # ('' for none); its findings then take that line's place, and its clean state is
    # part of the JSON report's "clean"
    joins_all_clear: str = ""

    def asked(self, options: CheckOptions) -> bool:
        """Whether this run asked for the check."""
        return False

    def begin(self, run: CheckRun) -> None:
        """Start what runs beside the pass over the memories (nothing by default)."""

    def finish(self, run: CheckRun) -> Findings:
        """The findings, after the pass over the memories."""
        raise NotImplementedError

    def failing(self, findings: Findings) -> bool:
        """Whether these findings fail `check --strict`."""
        return False

    def text(self, findings: Findings, quiet: bool, joined: tuple[Joined, ...] = ()) -> str:
        """Its part of the text report; ``quiet``: a later check's findings follow it;
        ``joined``: the later checks that join its all-clear."""
        return findings.to_text()

    def shown(self, findings: Findings) -> bool:
        """Whether the text report lists findings of this check."""
        return False

    def dashboard_items(self, store: MemoryStore) -> list[dict[str, Any]] | None:
        """The check's findings as the dashboard's Check page lists them (None: not on it)."""
        return None

    def dashboard_section(
        self, store: MemoryStore, options: CheckOptions
    ) -> DashboardSection | None:
        """The check's section of the Check page for what the page asked for; by default its
        :meth:`dashboard_items`, with nothing said about them."""
        items = self.dashboard_items(store)
        return None if items is None else DashboardSection(items)

    def dashboard_failing(self, items: list[dict[str, Any]]) -> int | None:
        """How many of the page's items fail a strict check, when the page says so."""
        return None

    def dashboard_unclean(self, items: list[dict[str, Any]]) -> bool:
        """Whether the page's items make the Check page's report not clean."""
        return False
