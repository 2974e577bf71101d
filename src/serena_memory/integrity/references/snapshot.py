"""Every memory of a store read once with its graph, backlinks and check reports, for a
long-running reader (the dashboard): :meth:`Snapshot.refresh`, which reads again only the
files that changed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from serena_memory.core.store import MemoryStore
from serena_memory.integrity.listing import MemoryListingReader
from serena_memory.integrity.references.analysis import IntegrityAnalyzer
from serena_memory.integrity.references.check_report import Backlink, CheckReport

if TYPE_CHECKING:
    from serena_memory.integrity.references.graph import MemoryGraph


class Snapshot:
    """Every memory of a store read once, with its graph, for a long-running reader (the
    dashboard) that asks many questions and wants the answers to follow the files.

    :meth:`refresh` gives a snapshot of the store as it is now: the same object when no
    file, name or pattern changed, else a new one that reads again only the files whose
    time or size changed and reuses the references already found in the others.
    """

    def __init__(
        self,
        listing: MemoryListingReader,
        previous: Snapshot | None = None,
        stamps: dict[str, tuple[int, int, int]] | None = None,
    ) -> None:
        self.stamps = listing.stamps() if stamps is None else stamps
        self.key = self._key(listing, self.stamps)
        self.analyzer: IntegrityAnalyzer
        same = set()
        texts: dict[str, str] = {}
        if previous is not None:
            same = {n for n, st in self.stamps.items() if previous.stamps.get(n) == st}
            texts = {
                n: previous.analyzer.memories[n] for n in same if n in previous.analyzer.memories
            }
            same -= set(previous.analyzer.unreadable) - set(texts)
        fresh, unreadable, refused = listing.read(n for n in listing.names if n not in texts)
        if previous is not None:
            unreadable += [n for n in previous.analyzer.unreadable if n in same]
        texts.update(fresh)
        self.analyzer = IntegrityAnalyzer(
            texts, listing.read_only, listing.ignored, unreadable, listing.names
        )
        self.analyzer.skipped = sorted(listing.skipped + refused, key=lambda f: f.path)
        if previous is not None:
            self.analyzer.reuse_references(previous.analyzer, same)
        self._graph: MemoryGraph | None = None
        self._reports: dict[tuple[bool, bool, bool], CheckReport] = {}

    @classmethod
    def refresh(cls, store: MemoryStore, previous: Snapshot | None = None) -> Snapshot:
        listing = MemoryListingReader(store)
        stamps = listing.stamps()
        if previous is not None and cls._key(listing, stamps) == previous.key:
            return previous
        return cls(listing, previous, stamps)

    @staticmethod
    def _key(listing: MemoryListingReader, stamps: dict[str, tuple[int, int, int]]) -> tuple:
        return (
            tuple(sorted(stamps.items())),
            frozenset(listing.read_only),
            frozenset(listing.ignored),
        )

    @property
    def graph(self) -> MemoryGraph:
        from serena_memory.integrity.references.graph import MemoryGraph

        if self._graph is None:
            self._graph = MemoryGraph.from_analyzer(self.analyzer)
        return self._graph

    def backlinks(self, name: str) -> list[Backlink]:
        """Like :func:`backlinks`, looking only at the sources the graph names."""
        return self.analyzer.backlinks(name, among=self.graph.sources_of(name))

    def check(
        self, include_unmarked: bool = False, fuzzy: bool = False, reachability: bool = False
    ) -> CheckReport:
        """The check report, computed once per snapshot and set of options."""
        options = (include_unmarked, fuzzy, reachability)
        if options not in self._reports:
            self._reports[options] = self.analyzer.check(*options)
        return self._reports[options]
