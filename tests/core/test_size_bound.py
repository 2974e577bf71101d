"""One size bound for every way a memory's text is made: what a write may make, an edit,
a rename's reference rewrite, a reference fix, a proposal, an import, a restore and a
rename journal never make more, and the read reads all of it. Real files and stores."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_support import run_cli
from proposing import propose_edit, propose_write

from serena_memory.core import proposals
from serena_memory.core.errors import MemoryTooLargeError, RenameJournalError
from serena_memory.core.paths import MAX_MEMORY_BYTES
from serena_memory.core.store import MemoryStore
from serena_memory.integrity.references.links import fix_reference

LIMIT = f"more than the limit of {MAX_MEMORY_BYTES:,} bytes a memory may have"


def _file(store: MemoryStore, name: str) -> Path:
    return store.layout.memories_dir / f"{name}.md"


def _one_sentence(exc: pytest.ExceptionInfo[MemoryTooLargeError]) -> str:
    text = str(exc.value)
    assert LIMIT in text and "\n" not in text
    return text


@pytest.mark.slow  # writes a memory of 16 MiB
def test_a_write_may_make_exactly_the_bound_and_not_a_byte_more(store: MemoryStore) -> None:
    store.write("full", "x" * MAX_MEMORY_BYTES)
    assert len(store.read("full")) == MAX_MEMORY_BYTES
    with pytest.raises(MemoryTooLargeError) as refused:
        store.write("over", "x" * (MAX_MEMORY_BYTES + 1))
    assert "memory 'over' would have 16,777,217 bytes" in _one_sentence(refused)
    assert not _file(store, "over").exists()
    # counted in bytes, as the read counts them: 2 bytes a character
    with pytest.raises(MemoryTooLargeError):
        store.write("accents", "\u00e9" * (MAX_MEMORY_BYTES // 2 + 1))


def test_an_edit_that_would_grow_past_the_bound_is_refused_before_it_is_built(
    store: MemoryStore,
) -> None:
    """Two edits of about 1 KB each made a 1,000-character memory a file of 1,000,000,000
    bytes that nothing could read again; the second is refused from its count alone."""
    store.write("m", "x" * 1000)
    store.edit("m", "x", "y" * 1000, allow_multiple_occurrences=True)
    before = _file(store, "m").read_bytes()
    with pytest.raises(MemoryTooLargeError) as refused:
        store.edit("m", "y", "z" * 1000, allow_multiple_occurrences=True)
    assert "1,000,000 replacements" in _one_sentence(refused)
    assert "1,000,000,000 bytes" in str(refused.value)
    assert _file(store, "m").read_bytes() == before
    with pytest.raises(MemoryTooLargeError) as by_regex:
        store.edit("m", "y", "z" * 1000, mode="regex", allow_multiple_occurrences=True)
    _one_sentence(by_regex)
    with pytest.raises(MemoryTooLargeError):  # a group inserted many times grows it too
        store.edit("m", "(y+)", "$!1" * 17, mode="regex")
    assert _file(store, "m").read_bytes() == before
    assert len(store.read("m")) == 1_000_000


@pytest.mark.slow  # writes a memory of 16 MiB
def test_an_edit_up_to_the_bound_is_made(store: MemoryStore) -> None:
    store.write("m", "ab" * 8)
    store.edit("m", "a", "a" * (MAX_MEMORY_BYTES // 8 - 1), allow_multiple_occurrences=True)
    assert len(_file(store, "m").read_bytes()) == MAX_MEMORY_BYTES
    with pytest.raises(MemoryTooLargeError):
        store.edit("m", "b", "bb", allow_multiple_occurrences=True)


def test_the_command_line_says_one_sentence(store: MemoryStore, project: Path) -> None:
    store.write("m", "x" * 20_000)
    cut = run_cli(
        "memories", "edit", "m", "-n", "x", "-r", "y" * 1000, "--allow-multiple-occurrences",
        cwd=project,
    )  # fmt: skip
    assert cut.returncode == 1
    said = [line for line in cut.stderr.splitlines() if not line.startswith("Project:")]
    assert len(said) == 1 and LIMIT in said[0]
    assert len(store.read("m")) == 20_000


def test_a_rename_whose_references_would_outgrow_a_memory_renames_nothing(
    store: MemoryStore,
) -> None:
    """A rename that rewrote 100,000 references to a long name wrote an 81 MB memory."""
    store.write("a", "target")
    store.write("refs", "mem:a\n" * 100_000)
    long = "/".join(["t" * 200] * 4)
    with pytest.raises(MemoryTooLargeError) as refused:
        store.rename("a", long)
    text = _one_sentence(refused)
    assert "100,000 reference(s)" in text and "memory 'refs'" in text
    assert store.list().all == ["a", "refs"]
    assert _file(store, "refs").stat().st_size == 600_000
    assert not (store.layout.memories_dir / ".rename-journal.json").exists()
    store.rename("a", "t/" + "u" * 100)  # a name that fits: 100,000 rewrites of 102 bytes
    assert store.read("refs").count("mem:t/" + "u" * 100) == 100_000


def test_a_reference_fix_and_a_proposal_keep_the_bound(store: MemoryStore) -> None:
    store.write("b", "b")
    long = "/".join(["b" * 200] * 4)
    store.write(long, "x")
    store.write("refs", "mem:a\n" * 100_000)
    with pytest.raises(MemoryTooLargeError) as fixing:
        fix_reference(store, "refs", "a", long)
    _one_sentence(fixing)
    assert _file(store, "refs").stat().st_size == 600_000
    store.write("m", "x" * 1000)
    with pytest.raises(MemoryTooLargeError) as proposing:
        propose_edit(store, "m", "x", "y" * 20_000, "literal", True)
    _one_sentence(proposing)
    with pytest.raises(MemoryTooLargeError):
        propose_write(store, "n", "x" * (MAX_MEMORY_BYTES + 1))
    assert proposals.pending(store) == ([], [])


@pytest.mark.slow  # writes a memory of 16 MiB
def test_an_import_and_a_restore_keep_the_bound(store: MemoryStore) -> None:
    with pytest.raises(MemoryTooLargeError):
        store.create_many({"small": "x", "big": "x" * (MAX_MEMORY_BYTES + 1)}, "Import")
    assert store.list().all == []  # nothing of it
    store.write("a", "a")
    with pytest.raises(MemoryTooLargeError):
        store.apply_versions({"a": b"b", "big": b"x" * (MAX_MEMORY_BYTES + 1)}, "Restore")
    assert store.read("a") == "a" and store.list().all == ["a"]


def test_a_journal_that_would_make_a_memory_too_large_is_never_replayed(
    store: MemoryStore,
) -> None:
    """A journal that came with a repository may create a memory of up to 256 MB (its
    own bound); a text larger than a memory may be is refused, nothing replayed."""
    store.write("old", "x")
    data = _file(store, "old").read_bytes()
    import hashlib

    journal = {
        "version": 2,
        "old": "old",
        "new": "new",
        "changes": [
            {"memory": "new", "expect": None, "content": "x" * (MAX_MEMORY_BYTES + 1)},
            {"memory": "old", "expect": hashlib.sha256(data).hexdigest(), "content": None},
        ],
    }
    (store.layout.memories_dir / ".rename-journal.json").write_text(json.dumps(journal))
    assert store.list().all == ["old"]  # reading goes on
    with pytest.raises(RenameJournalError, match="more than a memory may have"):
        store.write("c", "x")
    assert not os.path.exists(_file(store, "new"))
