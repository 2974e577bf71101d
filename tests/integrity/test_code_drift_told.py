"""What a code check tells, in real git repositories built here: the forms of mentions
agents and people write (pytest node ids, lines and anchors), mentions the memory itself
says are gone or planned (no drift), symbols told on read with where git saw them go, the
drifted memories named where the agent starts and in `list_memories`, and the person's
`serena memories read`."""

from __future__ import annotations

from pathlib import Path

from test_code_drift import by_mention, commit, findings, git, memory, repo, write

from serena_memory.integrity.code_mentions import PATH, SYMBOL, extract

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
        "`src/auth/vanished.py` handles the login.\n",
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
    }


def test_a_file_name_in_prose_is_a_mention_and_product_names_are_not() -> None:
    text = "- PageLayout.tsx - the layout; 'pokeapi.ts' shim; Node.js, Vue.js, math.h, e.g.\n"
    assert [m.target for m in extract(text)] == ["PageLayout.tsx", "pokeapi.ts"]
