"""Search and the code that moved on under the memories, in real git repositories built
here: a shown line holding a renamed or moved mention is marked with what it is now, and a
query for the new name leads to the memories that still hold the old one. Through the
library, `serena memories search` as a process of its own, and search_memories over a real
MCP client."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import anyio
import pytest
from conftest import run_cli_process
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_support import in_memory, ok, write_global
from test_code_drift import commit, git, memory, write

from serena_memory.core.advice import Advisors
from serena_memory.core.store import MemoryStore
from serena_memory.integrity.code_drift.mentions import extract
from serena_memory.integrity.code_drift.read_note import memory_findings
from serena_memory.search.hits import format_hits
from serena_memory.search.index import search_memories
from serena_memory.wiring import build_store

_FALLBACK = (
    '"""The escaping written in Python, for when the C module is not built."""\n\n'
    "import re\n\n"
    "_SPECIAL = re.compile(r'[&<>]')\n\n\n"
    "def _replace(match):\n"
    "    return {'&': '&amp;', '<': '&lt;', '>': '&gt;'}[match.group(0)]\n\n\n"
    "def {name}(s):\n"
    "    return _SPECIAL.sub(_replace, s)\n"
)
RENAMED = "`_escape_inner` is now `_escape_str` in `src/pkg/_pure.py`"
MOVED = "`src/pkg/_native.py` is now `src/pkg/_pure.py`"


def _renamed_project(root: Path) -> Path:
    """A project whose fallback module was renamed and its function with it, in one
    commit, under memories that mention the old names."""
    root.mkdir(exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    write(root, "src/pkg/_native.py", _FALLBACK.replace("{name}", "_escape_inner"))
    write(root, "src/pkg/__init__.py", "from ._native import _escape_inner\n")
    memory(
        root,
        "core",
        "# Core\nThe pure-Python fallback is `src/pkg/_native.py`.\n"
        "Escaping is done by `_escape_inner` in the fallback.\n",
    )
    memory(root, "conventions", "# Conventions\nTests compare `_escape_inner` with the C one.\n")
    memory(root, "style", "# Style\nKeep lines short; see `src/pkg/__init__.py`.\n")
    commit(root, "start")
    git(root, "mv", "src/pkg/_native.py", "src/pkg/_pure.py")
    write(root, "src/pkg/_pure.py", _FALLBACK.replace("{name}", "_escape_str"))
    write(root, "src/pkg/__init__.py", "from ._pure import _escape_str\n")
    commit(root, "the fallback is _pure, its function _escape_str")
    return root


@pytest.fixture
def renamed(project: Path) -> Path:
    return _renamed_project(project)


def _lines(hit) -> dict[int, str]:
    return {number: text for number, text in hit.lines}


def test_a_hit_on_an_old_name_is_marked_with_what_it_is_now(
    renamed: Path, serena_home: Path
) -> None:
    store = build_store(renamed, home=serena_home)
    hits = search_memories(store, "_escape_inner")
    assert sorted(hit.name for hit in hits) == ["conventions", "core"]
    core = next(hit for hit in hits if hit.name == "core")
    (mark,) = core.drift
    assert (mark.line, mark.mention, mark.new_name, mark.new_path) == (
        3,
        "_escape_inner",
        "_escape_str",
        "src/pkg/_pure.py",
    )
    text = format_hits(hits, "_escape_inner")
    assert (
        f"   3: Escaping is done by `_escape_inner` in the fallback.  (drifted: {RENAMED})" in text
    )
    assert text.count("(drifted: ") == 2  # one mark per shown line
    path = search_memories(store, "src/pkg/_native.py")
    assert [hit.name for hit in path] == ["core"]
    assert f"(drifted: {MOVED})" in format_hits(path, "src/pkg/_native.py")
    # the JSON carries the mark beside the line it is about
    (line,) = [entry for entry in path.to_dict()["hits"][0]["lines"] if entry["line"] == 2]
    assert line["drift"] == {
        "mention": "src/pkg/_native.py",
        "kind": "path",
        "status": "moved",
        "new_path": "src/pkg/_pure.py",
        "told": MOVED,
    }
    # a memory whose mentions are all current has no mark
    style = search_memories(store, "src/pkg/__init__.py")
    assert [hit.name for hit in style] == ["style"] and style[0].drift == ()


def test_a_query_for_the_new_name_leads_to_the_memories_holding_the_old_one(
    renamed: Path, serena_home: Path
) -> None:
    store = build_store(renamed, home=serena_home)
    hits = search_memories(store, "_escape_str")
    assert [hit.name for hit in hits][:2] == ["core", "conventions"]
    assert hits[0].why == "old name of _escape_str"
    assert 3 in _lines(hits[0]) and 2 in _lines(hits[1])
    text = format_hits(hits, "_escape_str")
    assert text.startswith(
        "No memory holds '_escape_str' as written; `core` (line 3) and `conventions` "
        "(line 2) name its old name `_escape_inner`.\n1. core  (old name of _escape_str)\n"
    )
    assert "the closest:" not in text
    assert hits.to_dict()["renamed"] == [
        {
            "term": "_escape_str",
            "kind": "symbol",
            "held": [
                {"memory": "core", "line": 3, "mention": "_escape_inner"},
                {"memory": "conventions", "line": 2, "mention": "_escape_inner"},
            ],
        }
    ]
    # a new path, and a part of it that is a whole path, name the old path
    for query in ("src/pkg/_pure.py", "_pure.py"):
        found = search_memories(store, query)
        assert found[0].name == "core" and found[0].why == f"old path of {query}"
        assert format_hits(found, query).startswith(
            f"No memory holds '{query}' as written; `core` (line 2) names its old path "
            "`src/pkg/_native.py`.\n"
        )
    # a call's parentheses are no part of the name; a word inside a name is no name
    assert search_memories(store, "_escape_str()").renamed[0].held[0][0] == "core"
    assert search_memories(store, "escape_str").renamed == ()


def test_a_new_name_the_words_rank_low_still_leads_to_its_old_name(
    renamed: Path, serena_home: Path
) -> None:
    # the old name's memory shares none of the query's other words: not a hit by them
    memory(renamed, "billing", "# Billing\nInvoices are sent monthly; the ledger keeps them.\n")
    memory(renamed, "ledger", "# Ledger\nThe ledger records invoices and refunds.\n")
    store = build_store(renamed, home=serena_home)
    hits = search_memories(store, "ledger invoices `_pure.py`", max_results=2)
    assert [hit.name for hit in hits] == ["core", "ledger"]
    assert hits[0].drift[0].new_path == "src/pkg/_pure.py"


def test_a_global_memory_has_no_marks_and_a_failing_check_none_either(
    renamed: Path, serena_home: Path
) -> None:
    write_global(serena_home, "escaping", "# Escaping\nWe call `_escape_inner` everywhere.\n")
    store = build_store(renamed, home=serena_home)
    hits = search_memories(store, "_escape_inner")
    glob = next(hit for hit in hits if hit.name == "global/escaping")
    assert glob.drift == () and all(hit.drift for hit in hits if hit is not glob)

    # a code check that fails: the same hits, no marks, no sentence about old names
    def broken_source(*_: object) -> dict[str, list[tuple[int, str, str, str, str, str, str]]]:
        raise OSError("no disk")

    store.advisors = Advisors(drift=broken_source)
    failed = search_memories(store, "_escape_inner")
    assert [hit.name for hit in failed] == [hit.name for hit in hits]
    assert all(hit.drift == () for hit in failed)
    unheld = search_memories(store, "_escape_str")
    assert unheld.renamed == () and unheld.not_held == ("_escape_str",)


def test_the_time_budget_leaves_the_history_of_symbols_unasked(renamed: Path) -> None:
    text = (renamed / ".serena/memories/core.md").read_text()
    whole = memory_findings(str(renamed), "core", text, symbols=True)
    assert {f.mention for f in whole} == {"src/pkg/_native.py", "_escape_inner"}
    spent = memory_findings(str(renamed), "core", text, symbols=True, seconds=0)
    assert [f.mention for f in spent] == ["src/pkg/_native.py"]


def _git_logger(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """An environment whose `git` is the real one, each call written to a log first."""
    real = shutil.which("git")
    assert real is not None
    folder, log = tmp_path / "bin", tmp_path / "git-calls.log"
    folder.mkdir()
    script = folder / "git"
    script.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\nexec "{real}" "$@"\n')
    script.chmod(0o755)
    return {"PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}, log


def _asked(log: Path) -> str:
    return log.read_text() if log.exists() else ""


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script stands for git")
def test_the_cli_marks_and_leads_and_asks_git_nothing_without_code_or_a_repository(
    project: Path, tmp_path: Path
) -> None:
    env, log = _git_logger(tmp_path)
    # no git repository: the memories mention code, git is never asked
    memory(
        project, "core", "# Core\nEscaping is done by `_escape_inner` in `src/pkg/_native.py`.\n"
    )
    done = run_cli_process("memories", "search", "-p", str(project), "_escape_inner", env=env)
    assert done.returncode == 0, done.stderr
    assert (
        done.stdout.startswith("1. core  (exact: _escape_inner)") and "drifted" not in done.stdout
    )
    assert _asked(log) == ""
    # a git repository whose memories mention no code: git is not asked either
    plain = tmp_path / "plain"
    plain.mkdir()
    git(plain, "init", "-q", "-b", "main")
    memory(plain, "notes", "# Notes\nEscaping is done by hand; see `mem:core/escaping`.\n")
    commit(plain, "start")
    done = run_cli_process("memories", "search", "-p", str(plain), "escaping", env=env)
    assert done.returncode == 0 and done.stdout.startswith("1. notes"), done.stderr
    assert _asked(log) == ""
    # the renamed project: the new name leads to the old one, the JSON carries both
    repo = _renamed_project(tmp_path / "renamed")
    # git's answers are kept for the next search, so on a loaded machine, where the first
    # search's time for git may run out before the second memory is checked, a repeated
    # search says all of it
    for _ in range(6):
        done = run_cli_process("memories", "search", "-p", str(repo), "_escape_str", env=env)
        assert done.returncode == 0, done.stderr
        if "`conventions` (line 2)" in done.stdout:
            break
    assert done.stdout.startswith(
        "No memory holds '_escape_str' as written; `core` (line 3) and `conventions` (line 2) "
        "name its old name `_escape_inner`.\n"
    )
    assert f"(drifted: {RENAMED})" in done.stdout
    assert _asked(log) != ""  # the logger sees git when it is asked
    for _ in range(6):  # as above: a loaded machine may leave a line unmarked at first
        done = run_cli_process("memories", "search", "-p", str(repo), "--json", "_escape_inner")
        answer = json.loads(done.stdout)
        lines = [line for hit in answer["hits"] for line in hit["lines"]]
        if all("drift" in line for line in lines):
            break
    marks = [line["drift"]["told"] for line in lines]
    assert marks == [RENAMED, RENAMED] and answer["renamed"] == []


def test_the_search_tool_marks_old_names_and_leads_from_the_new_one(renamed: Path) -> None:
    async def go() -> tuple[str, str]:
        async with in_memory(renamed) as client:
            old = await ok(client, "search_memories", query="_escape_inner")
            new = await ok(client, "search_memories", query="_escape_str")
            return old, new

    old, new = anyio.run(go)
    assert f"Escaping is done by `_escape_inner` in the fallback.  (drifted: {RENAMED})" in old
    assert new.startswith(
        "No memory holds '_escape_str' as written; `core` (line 3) and `conventions` (line 2) "
        "name its old name `_escape_inner`.\n1. core  (old name of _escape_str)\n"
    )


_PIECES = st.sampled_from(
    [
        "`",
        "``",
        "/",
        "./",
        "mem:",
        "core",
        "src",
        ".py",
        ".md",
        "e.g.",
        "_x",
        "a-",
        " ",
        "\n",
        "::",
        "(",
        ")",
        "Makefile",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=14).map("".join))
def test_a_text_the_search_asks_nothing_about_mentions_no_code(text: str) -> None:
    from serena_memory.search.drift import may_mention_code

    # the cheap test before any import or git: it may say yes too often, never too rarely
    assert may_mention_code(text) or extract(text) == []


def test_a_line_with_two_drifted_mentions_is_marked_with_the_one_asked_for(
    renamed: Path, serena_home: Path
) -> None:
    memory(renamed, "both", "# Both\n`src/pkg/_native.py` holds `_escape_inner(s) -> str`.\n")
    store = build_store(renamed, home=serena_home)
    for query, told in (("_escape_inner", "`_escape_inner(s) -> str` is now"), ("_native", MOVED)):
        hit = next(hit for hit in search_memories(store, query) if hit.name == "both")
        assert [d.told() for d in hit.drift if d.line == 2][0].startswith(told), query
    # the sentence for the new name says the old name, not the signature it was written in
    answer = format_hits(search_memories(store, "_escape_str"), "_escape_str")
    assert "`_escape_inner`" in answer.split("\n", 1)[0]
    assert "`_escape_inner(s) -> str`" not in answer.split("\n", 1)[0]


def test_the_sentence_for_a_new_name_counts_every_line_and_says_name_or_path(
    renamed: Path, serena_home: Path
) -> None:
    memory(
        renamed,
        "both",
        "# Both\nUse `_escape_inner`.\nIt is in `src/pkg/_native.py`.\nCall `_escape_inner(s)`.\n",
    )
    store = build_store(renamed, home=serena_home)
    answer = format_hits(search_memories(store, "_escape_str"), "_escape_str")
    assert "`both` (lines 2, 4)" in answer.split("\n", 1)[0]
    # `_pure` is the new name of nothing here but a part of a new path
    first = format_hits(search_memories(store, "_pure.py"), "_pure.py").split("\n", 1)[0]
    assert "`both` (line 3)" in first and "its old path" in first


def test_a_store_built_without_a_drift_source_marks_nothing(
    renamed: Path, serena_home: Path
) -> None:
    plain = MemoryStore(renamed, home=serena_home)
    hits = search_memories(plain, "_escape_inner")
    assert hits and all(hit.drift == () for hit in hits)
    assert any(
        hit.drift
        for hit in search_memories(build_store(renamed, home=serena_home), "_escape_inner")
    )
