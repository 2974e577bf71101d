"""Near-duplicate memories and sections, and statements that contradict each other.

One entry point, :func:`find_duplicates` (``{name: text} -> DuplicateReport``), pure;
:mod:`.cached` runs it on a store with what earlier runs learned, :mod:`.told` says at
write time which memory a new text repeats or contradicts.
"""

from serena_memory.integrity.duplicates.detect import find_duplicates
from serena_memory.integrity.duplicates.findings import DuplicateReport

__all__ = ["DuplicateReport", "find_duplicates"]
