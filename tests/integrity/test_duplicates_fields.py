"""A record's fields (:mod:`serena_memory.integrity.duplicates.fields`): a label that
many memories begin a line with is filled in by each for itself, so two of its values are
no conflict; a label that one memory or two give is a setting, and two values of it still
are. Written as real memory folders through a real store, as `check --duplicates` reads
them."""

from __future__ import annotations

from pathlib import Path

from duplicates_support import checked, memory
from hypothesis import given
from hypothesis import strategies as st

from serena_memory.integrity.duplicates.fields import FIELD_MEMORIES, label_of

# what each memory of an observations folder says it was validated by (the largest real
# folder writes hundreds of such records): two of them share words, and give two counts
VALIDATED_BY = {
    "lint": "(Phase 3 P2-6 pattern, template sync)",
    "docs": "(P2-6 pattern)",
    "deploy": "(ADR-015 acceptance, governance policy)",
    "cache": "(ADR-015 posture)",
    "bench": "(session 12 retrospective)",
    "audit": "(two audits in March)",
}


def _observation(topic: str, validated: int) -> str:
    return memory(
        f"Observation {topic}",
        f"**Statement**: Run the {topic} check before every push.",
        f"**Validated**: {validated} {VALIDATED_BY[topic]}",
        f"**Evidence**: the {topic} job failed twice without it.",
    )


def test_a_field_many_memories_fill_in_is_no_conflict(tmp_path: Path) -> None:
    assert len(VALIDATED_BY) > FIELD_MEMORIES
    folder = {t: _observation(t, 1 + i % 2) for i, t in enumerate(VALIDATED_BY)}
    assert checked(tmp_path, folder).conflicts == []


def test_a_label_two_memories_give_two_values_is_still_a_conflict(tmp_path: Path) -> None:
    folder = {
        "stack": memory("Stack", "- **Language**: Go 1.21+"),
        "setup": memory("Setup", "- **Language**: Go 1.22+"),
    }
    report = checked(tmp_path, folder)
    assert {(c.first, c.second) for c in report.conflicts} == {("setup", "stack")}


def test_a_label_is_read_from_a_list_item_a_bold_key_or_a_table_row() -> None:
    assert label_of("- **Validated**: 2 (Phase 3)") == "validated"
    assert label_of("**Sessions Analyzed:** 2") == "sessions analyzed"
    assert label_of("| Confidence | 70% |") == "confidence"
    assert label_of("See https://example.com: it explains") is None
    assert label_of("Run `make test`: it builds first") is None
    assert label_of("Step 3: deploy") is None


@given(st.text(max_size=80))
def test_any_line_has_at_most_one_short_label(line: str) -> None:
    label = label_of(line)
    assert label is None or (0 < len(label.split()) <= 4 and label == label.casefold())
