"""Which references a rename rewrites: only those naming the renamed memory whole, and
never a global memory's reference to a project memory."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from conftest import run_cli
from mcp_support import call, in_memory

from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.store import MemoryStore
from serena_memory.wiring import build_store


def _stamp(s: MemoryStore, name: str) -> tuple[int, int, bytes]:
    path = s.layout.path_of(name)
    st = path.stat()
    return st.st_ino, st.st_mtime_ns, path.read_bytes()


# -- a reference names a memory whole --------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "line"),
    [
        ("auth notes", "read mem:auth notes first\n"),
        ("v1.2", "see mem:v1.2 for the old API\n"),
        ("we:ird", "odd: mem:we:ird\n"),
        ("café", "menu in mem:café\n"),
        ("c++", "style of mem:c++ code\n"),
    ],
)
def test_a_rename_never_rewrites_a_reference_to_a_shorter_name(
    store: MemoryStore, name: str, line: str
) -> None:
    """`mem:auth notes` is a reference to `auth`, followed by a word: renaming the memory
    `auth notes` must leave it alone."""
    store.write("core", line)
    (store.layout.memories_dir / f"{name}.md").write_text("saved by hand\n", encoding="utf-8")
    before = _stamp(store, "core")
    result = store.rename(name, "scratch/auth")
    assert store.read("core") == line
    assert _stamp(store, "core") == before
    assert result.references_rewritten == 0 and result.memories_rewritten == []
    assert store.read("scratch/auth") == "saved by hand\n"


def test_references_to_a_name_with_a_space_are_rewritten_when_they_name_it_whole(
    store: MemoryStore,
) -> None:
    """The reverse still works: `mem:auth` followed by ` notes` names `auth`."""
    store.write("auth", "auth\n")
    store.write("auth notes", "notes\n")
    store.write("core", "read mem:auth notes, then `mem:auth`\n")
    result = store.rename("auth", "security")
    assert store.read("core") == "read mem:security notes, then `mem:security`\n"
    assert result.references_rewritten == 2
    assert store.read("auth notes") == "notes\n"


def test_renaming_to_a_name_no_reference_can_spell_is_refused_while_references_exist(
    store: MemoryStore,
) -> None:
    """`mem:auth notes` would read as a reference to `auth`: rather than break every
    reference, the rename is refused with the reason and what to do."""
    store.write("auth", "auth\n")
    store.write("core", "see `mem:auth`\n")
    with pytest.raises(MemoryStoreError, match="can't be written as a mem: reference"):
        store.rename("auth", "auth notes")
    assert store.read("auth") == "auth\n" and store.read("core") == "see `mem:auth`\n"
    store.write("core", "no references\n")
    store.rename("auth", "auth notes")  # nothing refers to it: allowed
    assert store.read("auth notes") == "auth\n"


# -- scopes: a project rename never rewrites global memories ---------------------------------


def _scoped_corpus(store: MemoryStore) -> None:
    store.write("core", "project core\n")
    store.write("notes", "start at `mem:core`\n")
    store.write("global/team", "every project starts at `mem:core`\n")
    store.write("global/style", "tabs\n")
    store.write("global/guide", "style: `mem:global/style`\n")
    store.write("readme", "style: `mem:global/style`\n")


def test_a_project_rename_leaves_global_memories_and_reports_them(store: MemoryStore) -> None:
    _scoped_corpus(store)
    before = _stamp(store, "global/team")
    result = store.rename("core", "core2")
    assert _stamp(store, "global/team") == before
    assert store.read("notes") == "start at `mem:core2`\n"
    assert result.memories_rewritten == ["notes"]
    assert result.global_not_rewritten == ["global/team"]
    summary = result.summary()
    assert "global/team" in summary and "every project" in summary


def test_moving_a_project_memory_to_global_scope_leaves_global_memories_too(
    store: MemoryStore,
) -> None:
    _scoped_corpus(store)
    before = _stamp(store, "global/team")
    result = store.rename("core", "global/core")
    assert _stamp(store, "global/team") == before
    assert store.read("notes") == "start at `mem:global/core`\n"
    assert result.global_not_rewritten == ["global/team"]


def test_a_global_rename_rewrites_global_memories_and_the_projects(
    store: MemoryStore, tmp_path: Path, serena_home: Path
) -> None:
    _scoped_corpus(store)
    other = build_store(tmp_path / "other", home=serena_home)
    other.write("readme", "style: `mem:global/style`\n")
    result = store.rename("global/style", "global/conventions")
    assert store.read("global/guide") == "style: `mem:global/conventions`\n"
    assert store.read("readme") == "style: `mem:global/conventions`\n"
    assert result.memories_rewritten == ["global/guide", "readme"]
    assert result.global_not_rewritten == []
    # another project's memories are not this rename's to change
    assert other.read("readme") == "style: `mem:global/style`\n"


def test_the_command_line_shows_the_global_memories_left_alone(project: Path) -> None:
    store = build_store(project)
    _scoped_corpus(store)
    done = run_cli("memories", "rename", "core", "core2", str(project))
    assert done.returncode == 0, done.stderr
    assert "global/team" in done.stdout
    assert store.read("global/team") == "every project starts at `mem:core`\n"


def test_the_mcp_answer_shows_the_global_memories_left_alone(project: Path) -> None:
    store = build_store(project)
    _scoped_corpus(store)

    async def go() -> str:
        async with in_memory(project) as client:
            answer = await call(client, "rename_memory", old_name="core", new_name="core2")
            assert not answer.error, answer.text
            return answer.text

    text = anyio.run(go)
    assert "global/team" in text
    assert store.read("global/team") == "every project starts at `mem:core`\n"
