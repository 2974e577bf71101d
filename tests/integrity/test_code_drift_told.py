"""What a code check tells, in real git repositories built here: the forms of mentions
agents and people write (pytest node ids, lines and anchors), mentions the memory itself
says are gone or planned (no drift), symbols told on read with where git saw them go, the
drifted memories named where the agent starts and in `list_memories`, and the person's
`serena memories read`."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_support import text_read
from test_code_drift import by_mention, commit, findings, git, memory, repo, write

from serena_memory.integrity.code_drift.mentions import PATH, SYMBOL, extract

__all__ = ["repo"]  # the fixture, shared


def test_a_node_id_whose_file_moved_is_told_with_its_new_path_and_its_test_checked(
    repo: Path,
) -> None:
    write(repo, "tests/test_docs.py", "def test_commands_are_documented():\n    pass\n")
    memory(
        repo,
        "core",
        "Docs: `tests/test_docs.py::test_commands_are_documented` guards the commands.\n"
        "Also tests/test_docs.py::test_tools_are_listed[mcp] in prose.\n"
        "Lines: `src/auth/login.py:L2`, `src/auth/tokens.py (line 1)`, src/auth/gone.py#L3,\n"
        "`src/auth/old.py, lines 3-5` and `scripts/deploy.sh:1:2`.\n",
    )
    commit(repo)
    git(repo, "mv", "tests/test_docs.py", "tests/test_documentation.py")
    commit(repo, "rename the docs test")
    found = findings(repo)
    paths = {(f["mention"], f["status"]): f for f in found if f["kind"] == PATH}
    node = paths[("tests/test_docs.py::test_commands_are_documented", "moved")]
    assert node["new_path"] == "tests/test_documentation.py"
    assert ("tests/test_docs.py::test_tools_are_listed[mcp]", "moved") in paths
    # the test named after `::` is a claim too: one that never existed is missing
    symbols = {f["mention"] for f in found if f["kind"] == SYMBOL}
    assert symbols == {"tests/test_docs.py::test_tools_are_listed[mcp]"}
    missing = {m for (m, status) in paths if status == "missing"}
    assert missing == {"src/auth/gone.py#L3", "src/auth/old.py"}


def test_forms_of_lines_and_anchors_name_the_file() -> None:
    text = (
        "`a/b.py:L10` `a/b.py#L10-L20` `a/b.py (line 3)` `a/b.py, line 3` `a/b.py:10:5`\n"
        "prose a/b.py:L10 and a/b.py (lines 3-4) and `a/b.py::Klass::method`\n"
    )
    found = [(m.kind, m.target) for m in extract(text)]
    assert found.count((PATH, "a/b.py")) == 8
    assert (SYMBOL, "Klass.method") in found


def test_what_the_memory_says_is_gone_or_planned_is_no_drift(repo: Path) -> None:
    memory(
        repo,
        "core",
        "No `setup.py`.\n"
        "There is no `setup.cfg` here.\n"
        "Use `pyproject.toml` instead of `requirements.txt`.\n"
        "`src/legacy.py` and `src/legacy2.py` were removed.\n"
        "- **Cleanup**: Removed `src/old_ui.tsx` and the calls to it in `src/app_gone.tsx`.\n"
        "`src/cache.py` (to be created) will hold the cache.\n"
        "TODO: create `src/plugins/`.\n"
        "We will add a route to `src/routes_gone.ts`.\n"
        "~~`docs/old.md`~~\n"
        "`OldHelper` was replaced by `NewHelper`.\n"
        "`src/auth/vanished.py` handles the login.\n"
        "There is no cache; `src/auth/other_clause.py` holds the rest.\n",
    )
    commit(repo)
    found = by_mention(findings(repo))
    # kept: claims that something is there; the rest the memory itself says is not
    assert set(found) == {
        "pyproject.toml",
        "src/app_gone.tsx",
        "src/routes_gone.ts",
        "NewHelper",
        "src/auth/vanished.py",
        "src/auth/other_clause.py",  # a cue in another clause says nothing of it
    }


def test_a_file_name_in_prose_is_a_mention_and_product_names_are_not() -> None:
    text = "- PageLayout.tsx - the layout; 'pokeapi.ts' shim; Node.js, Vue.js, math.h, e.g.\n"
    assert [m.target for m in extract(text)] == ["PageLayout.tsx", "pokeapi.ts"]


def _renames(repo: Path) -> None:
    """A project whose code moved on under its memories: a function renamed in place, a
    helper moved to another file under a new name, a test file renamed."""
    write(repo, "src/index.py", "def build_index(paths):\n    return sorted(paths)\n")
    write(
        repo,
        "tests/conftest.py",
        "import os\n\ndef _register_db_for_cleanup(db):\n    os.remove(db)\n",
    )
    write(repo, "tests/test_docs.py", "def test_commands_are_documented():\n    pass\n")
    memory(
        repo,
        "core",
        "Index: `build_index(paths)` in `src/index.py`. Cleanup: `_register_db_for_cleanup(db)`.\n"
        "Docs: `tests/test_docs.py::test_commands_are_documented`.\n",
    )
    memory(repo, "clean", "Tokens: `src/auth/tokens.py`.\n")
    for i in range(10):
        memory(repo, f"notes/n{i}", f"Details: `src/auth/x{i}.py`.\n")
    commit(repo, "start")
    write(repo, "src/index.py", "def build_search_index(paths):\n    return sorted(paths)\n")
    commit(repo, "rename build_index")
    write(repo, "tests/conftest.py", "import os\n")
    write(
        repo,
        "tests/helpers/db.py",
        "import os\n\ndef register_db_for_cleanup(db):\n    os.remove(db)\n",
    )
    commit(repo, "move the cleanup helper")
    git(repo, "mv", "tests/test_docs.py", "tests/test_documentation.py")
    commit(repo, "rename the docs test")


@pytest.mark.slow  # a real server process
def test_the_agent_is_told_of_drifted_memories_at_the_start_in_the_listing_and_on_read(
    repo: Path,
) -> None:
    import json

    import anyio
    from mcp_support import ok, over_stdio

    _renames(repo)

    async def go() -> tuple[str, str, str, str]:
        async with over_stdio(["--project", str(repo)]) as client:
            start = await ok(client, "initial_instructions")
            listing = await ok(client, "list_memories")
            core = await ok(client, "read_memory", memory_name="core")
            clean = await ok(client, "read_memory", memory_name="clean")
            return start, listing, core, clean

    start, listing, core, clean = anyio.run(go)
    # the start names the drifted memories, a bounded few, and counts the rest
    assert "Code changed under 11 memories: " in start
    assert "'core' (3 mentions), 'notes/n0' (1), 'notes/n1' (1)" in start
    assert "and 3 more" in start
    assert "'clean'" not in start
    drifted = json.loads(listing)["code_drift"]
    assert drifted == ["core", *(f"notes/n{i}" for i in range(10))]
    # reading tells the symbols too, with their new names, once, as exact replacements
    assert core.startswith("Index: `build_index(paths)` in `src/index.py`.")
    note = core.partition("\n---\nNote: ")[2]
    assert note.startswith("code this memory mentions has changed (lines 1, 2): ")
    assert "`build_index(paths)` -> `build_search_index(paths)`" in note
    assert "`_register_db_for_cleanup(db)` -> `register_db_for_cleanup(db)`" in note
    assert (
        "`tests/test_docs.py::test_commands_are_documented` -> "
        "`tests/test_documentation.py::test_commands_are_documented`"
    ) in note
    assert "Don't rely" not in note  # every change has its replacement: nothing else to say
    assert text_read(clean) == "Tokens: `src/auth/tokens.py`.\n"
    assert clean.endswith("Its 1 mention of files and symbols still holds.")


def test_check_code_tells_where_symbols_went_and_a_test_moved_to_another_file(
    repo: Path,
) -> None:
    _renames(repo)
    write(repo, "tests/test_documentation.py", "def test_other():\n    pass\n")
    write(repo, "tests/test_commands.py", "def test_commands_are_documented():\n    pass\n")
    memory(
        repo, "later", "The test: `tests/test_documentation.py::test_commands_are_documented`.\n"
    )
    commit(repo, "split the docs tests")
    found = {(f["memory"], f["mention"]): f for f in findings(repo) if f["kind"] == SYMBOL}
    renamed = found[("core", "build_index(paths)")]
    assert (renamed["new_name"], renamed["new_path"]) == ("build_search_index", "src/index.py")
    assert renamed["note"].startswith("now `build_search_index` in `src/index.py`, commit ")
    moved = found[("later", "tests/test_documentation.py::test_commands_are_documented")]
    assert moved["new_path"] == "tests/test_commands.py"
    assert moved["note"] == "not in `tests/test_documentation.py` now"


def test_a_person_reading_a_drifted_memory_gets_the_text_on_stdout_and_the_note_on_stderr(
    repo: Path,
) -> None:
    # a process per command: the listing of the project's files is kept a few seconds per process
    from conftest import run_cli_process

    _renames(repo)
    done = run_cli_process("memories", "read", "core", str(repo))
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "Index: `build_index(paths)` in `src/index.py`. Cleanup: `_register_db_for_cleanup(db)`.\n"
        "Docs: `tests/test_docs.py::test_commands_are_documented`.\n"
    )
    assert done.stderr.startswith("Note: code this memory mentions has changed (lines 1, 2): ")
    assert "`build_index(paths)` -> `build_search_index(paths)`" in done.stderr
    clean = run_cli_process("memories", "read", "clean", str(repo))
    assert (clean.stdout, clean.stderr) == ("Tokens: `src/auth/tokens.py`.\n", "")


def test_a_symbol_renamed_twice_or_with_a_new_signature_or_removed_is_told_so(
    repo: Path,
) -> None:
    write(repo, "src/a.py", "def first_name(x):\n    return x\n")
    write(repo, "src/b.py", "def build(paths):\n    return paths\n")
    write(repo, "src/c.py", "def dropped_helper():\n    return 1\n")
    memory(repo, "core", "`first_name()`, `build(paths)` and `dropped_helper()`.\n")
    commit(repo, "start")
    write(repo, "src/a.py", "def second_name(x):\n    return x\n")
    write(repo, "src/b.py", "def compile_all(paths, fast=False):\n    return paths\n")
    write(repo, "src/c.py", "VALUE = 1\n")
    commit(repo, "renames, a new signature, a removal")
    write(repo, "src/a.py", "def third_name(x):\n    return x\n")
    removal = commit(repo, "rename again")
    found = by_mention(findings(repo))
    assert (found["first_name()"]["new_name"], found["first_name()"]["new_path"]) == (
        "third_name",
        "src/a.py",
    )
    assert found["build(paths)"]["new_name"] == "compile_all"
    assert found["dropped_helper()"]["note"].startswith("removed in commit ")
    assert removal[:10] not in found["dropped_helper()"]["note"]  # the commit before


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "No ",
                "`a/b.py`",
                " was removed",
                "TODO: create ",
                "~~",
                " and ",
                ", ",
                "; ",
                "Removed ",
                " to ",
                "instead of ",
                "x.py",
                " (planned)",
                ": ",
                "\n",
                " ",
            ]
        ),
        max_size=40,
    )
)
def test_what_is_said_absent_is_only_ever_left_out(parts: list[str]) -> None:
    """The cues only take mentions away: every mention found is one the line holds."""
    text = "".join(parts)
    for m in extract(text):
        assert m.text in text.splitlines()[m.line - 1]
