"""Near-duplicate memories and sections, and statements that contradict each other.

One entry point, :func:`find_duplicates` (``{name: text} -> DuplicateReport``), pure:
:mod:`.text` reads a memory, :mod:`.features` keeps what comparing needs, :mod:`.detect`
pairs and compares, :mod:`.findings` holds what it found. Loaded on first use, so the
check report, which names the findings' type, costs a plain check nothing.
:mod:`.features_cache` runs it on a store with what earlier runs learned (the keys a write
looks itself up in: :mod:`.index`), and :mod:`.findings_text` words its findings for the
check report. A write is told which memory it repeats or contradicts by :mod:`.write_note`:
:mod:`.write_precheck` first says whether there is anything to compare, then
:mod:`.write_comparison` compares (a small folder as :mod:`.feature_arrays`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from serena_memory.integrity.duplicates.detect import find_duplicates
    from serena_memory.integrity.duplicates.findings import DuplicateReport

__all__ = ["DuplicateReport", "find_duplicates"]


def __getattr__(name: str) -> Any:
    if name == "find_duplicates":
        from serena_memory.integrity.duplicates.detect import find_duplicates

        return find_duplicates
    if name == "DuplicateReport":
        from serena_memory.integrity.duplicates.findings import DuplicateReport

        return DuplicateReport
    raise AttributeError(name)
