"""The note told at write time, as the command line and the MCP server ask for it: the
duplicate check's comparison (:mod:`serena_memory.integrity.duplicates.write_comparison`) is loaded
only when there is something to compare the text written with
(:func:`~serena_memory.integrity.duplicates.write_precheck.anything_to_compare`), so a write in a
large folder no check ran on starts as quickly as one with no note at all."""

from __future__ import annotations

from serena_memory.core.store import MemoryStore
from serena_memory.integrity.duplicates.write_precheck import anything_to_compare


def write_note(store: MemoryStore, name: str, text: str) -> str:
    """:func:`serena_memory.integrity.duplicates.write_comparison.write_note`: one
    sentence naming the memory the text written nearly duplicates or contradicts, or '';
    '' at once when there is nothing to compare it with, as the comparison would say."""
    try:
        comparable = anything_to_compare(store)
    except Exception:  # noqa: BLE001 - the note is advice; the write itself succeeded
        return ""
    if comparable is None:
        return ""
    from serena_memory.integrity.duplicates.write_comparison import write_note as compared

    return compared(store, name, text, comparable)
