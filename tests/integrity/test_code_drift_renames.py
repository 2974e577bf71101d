"""Where renamed code went, told right in a real git repository built like a small
package with a C extension: a module renamed with its file while its function is renamed
in C and in Python, mentions qualified by the old module name, a signature, an import
statement and a bare module name, and the drifted memories counted where the agent
starts."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from test_code_drift import by_mention, commit, findings, git, memory, repo, write

from serena_memory.core.store import MemoryStore
from serena_memory.integrity.code_drift.mentions import SYMBOL, extract
from serena_memory.integrity.code_drift.read_note import read_note
from serena_memory.integrity.code_drift.statements import statement_names

__all__ = ["repo"]  # the fixture, shared

CORE = (
    "# Core\n"
    "- `src/pkg/_native.py`: pure-Python `_escape_inner(s: str) -> str`.\n"
    "- `src/pkg/_speedups.c`: the C version of `_escape_inner`.\n"
    "- The import `try: from ._speedups import _escape_inner` picks C first.\n"
    "- Tests swap `pkg._escape_inner` for `_native._escape_inner` or `_speedups._escape_inner`.\n"
    "- The fixture sets `pkg._escape_inner = _native._escape_inner` in turn.\n"
)


def _package(repo: Path) -> None:
    """The package before and after one commit renaming `_native.py` to `_pure.py` and
    `_escape_inner` to `_escape_str` everywhere."""
    for step in ("before", "after"):
        name = "_escape_inner" if step == "before" else "_escape_str"
        module = "_native" if step == "before" else "_pure"
        write(repo, f"src/pkg/{module}.py", f"def {name}(s):\n    return s.replace('&', '&amp;')\n")
        write(
            repo,
            "src/pkg/__init__.py",
            f"try:\n    from ._speedups import {name}\nexcept ImportError:\n"
            f"    from .{module} import {name}\n",
        )
        write(repo, "src/pkg/_speedups.pyi", f"def {name}(s: str, /) -> str: ...\n")
        write(
            repo,
            "src/pkg/_speedups.c",
            f'static PyMethodDef methods[] = {{\n\t{{"{name}", escape, METH_O, NULL}},\n}};\n',
        )
        write(repo, "tests/conftest.py", f"from pkg import {module}\n\nIMPLS = [{module}]\n")
        if step == "before":
            memory(repo, "core", CORE)
            memory(repo, "done", "Keep `_native` and the C code in step.\n")
            commit(repo, "start")
            git(repo, "rm", "-q", "src/pkg/_native.py")
    commit(repo, "rename the pure module and the escape function")


def test_a_qualified_name_whose_module_and_symbol_were_both_renamed_is_told_whole(
    repo: Path,
) -> None:
    _package(repo)
    found = {(f["line"], f["mention"]): f for f in findings(repo) if f["kind"] == SYMBOL}
    native = found[(5, "_native._escape_inner")]
    assert (native["new_name"], native["new_path"]) == ("_pure._escape_str", "src/pkg/_pure.py")
    # the C twin is placed in the C file: by the module it is qualified with, or by the
    # file written on the same line
    speedups = found[(5, "_speedups._escape_inner")]
    assert speedups["new_name"] == "_speedups._escape_str"
    assert speedups["new_path"] in ("src/pkg/_speedups.c", "src/pkg/_speedups.pyi")
    assert found[(3, "_escape_inner")]["new_path"] == "src/pkg/_speedups.c"
    qualified = found[(5, "pkg._escape_inner")]  # the package's attribute: its __init__
    assert (qualified["new_name"], qualified["new_path"]) == (
        "pkg._escape_str",
        "src/pkg/__init__.py",
    )
    swapped = {f["mention"]: f["new_name"] for f in found.values() if f["line"] == 6}
    assert swapped == {
        "pkg._escape_inner": "pkg._escape_str",
        "_native._escape_inner": "_pure._escape_str",
    }


def test_a_module_rewritten_under_a_new_name_places_its_function_where_it_is_defined(
    repo: Path,
) -> None:
    write(repo, "src/pkg/_native.py", "def _escape_inner(s):\n    return s\n")
    write(repo, "src/pkg/use.py", "from pkg import _native\n\nX = _native._escape_inner\n")
    memory(repo, "core", "Tests swap in `_native._escape_inner`.\n")
    commit(repo, "start")
    git(repo, "rm", "-q", "src/pkg/_native.py")
    # a new file, too unlike the old one for git to call it a rename
    write(
        repo,
        "src/pkg/_pure.py",
        "import re\n\n\ndef _escape_str(s):\n    return re.sub('&', '', s)\n",
    )
    write(repo, "src/pkg/use.py", "from pkg import _pure\n\nX = _pure._escape_str\n")
    commit(repo, "rewrite the fallback")
    found = by_mention(findings(repo))["_native._escape_inner"]
    assert (found["new_name"], found["new_path"]) == ("_pure._escape_str", "src/pkg/_pure.py")


def test_a_signature_an_import_and_a_bare_module_name_are_mentions_told_on_read(
    repo: Path, store: MemoryStore
) -> None:
    from serena_memory.integrity.code_drift.drifted_memories import drift_summary

    _package(repo)
    found = findings(repo)
    signature = by_mention(found)["_escape_inner(s: str) -> str"]
    assert (signature["new_name"], signature["new_path"]) == ("_escape_str", "src/pkg/_pure.py")
    on_line_4 = {f["mention"]: f.get("new_name") for f in found if f["line"] == 4}
    assert on_line_4 == {"_escape_inner": "_escape_str"}  # `_speedups` is still there
    done = [f for f in found if f["memory"] == "done"]
    assert [(f["mention"], f["new_name"], f["new_path"]) for f in done] == [
        ("_native", "_pure", "src/pkg/_pure.py")  # the module's file, not a file importing it
    ]
    note = read_note(str(repo), "core", CORE)
    # every change told once, as the replacement written where the memory wrote it
    assert note.startswith("\n\n---\nNote: code this memory mentions has changed (lines 2, 3, 4")
    offered = re.findall(r"`[^`]+` -> `[^`]+`", note)
    assert len(offered) == len(set(offered)) and " more." not in note
    assert "`_native._escape_inner` -> `_pure._escape_str`" in offered  # placed apart
    assert "`_speedups._escape_inner` -> `_speedups._escape_str`" in offered  # line 4's news
    assert "`pkg._escape_inner` -> `pkg._escape_str`" in offered
    assert "Don't rely" not in note  # nothing is left without its replacement
    assert "'core' (6 mentions), 'done' (1)" in drift_summary(store)


def test_check_code_says_renamed_with_the_new_name_as_a_person_reads_it(repo: Path) -> None:
    from conftest import run_cli_process

    _package(repo)
    done = run_cli_process("memories", "check", str(repo), "--code")
    assert (
        "done:1: renamed: `_native` is now `_pure` in `src/pkg/_pure.py` (in commit "
    ) in done.stdout
    assert "no such symbol now (now" not in done.stdout
    # the command that fixes renames is named after them too, not after moves only
    assert "Fix moved paths and renamed symbols with `serena memories fix-code-references`." in (
        done.stdout
    )


def test_lines_of_code_in_spans_name_their_code_and_sentences_name_nothing() -> None:
    assert statement_names("_escape(s: str) -> str") == [("_escape(s: str) -> str", "_escape")]
    assert statement_names("def load(path, *, strict=False):") == [
        ("def load(path, *, strict=False):", "load")
    ]
    assert statement_names("except ImportError: from ._native import _escape as esc") == [
        ("._native", "_native"),  # as written: the module's own mention writes it so
        ("_escape", "_escape"),
    ]
    assert statement_names("import os.path, json as j") == [
        ("os.path", "os.path"),
        ("json", "json"),
    ]
    assert statement_names("from x import (a, b,)") == [("x", "x"), ("a", "a"), ("b", "b")]
    assert statement_names("pkg._e = mod._e") == [("pkg._e", "pkg._e"), ("mod._e", "mod._e")]
    assert statement_names("x = 1") == []
    for sentence in (
        "run it (twice) please",
        "git log -S (x)",
        "import the data first",
        "from here import nothing useful",
        "if (x) then",
        "print(a, b)",
        "foo(a) and bar(b)",
    ):
        assert statement_names(sentence) == [], sentence
    found = [(m.kind, m.target) for m in extract("`__init__` and `_native`, not `native`.\n")]
    assert found == [(SYMBOL, "__init__"), (SYMBOL, "_native")]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "from ",
                "import ",
                "try: ",
                "except E: ",
                "def ",
                "a",
                "_b",
                ".",
                ",",
                " as ",
                "(",
                ")",
            ]
            + ["-> ", ": ", "; ", " ", "x.y", "str", "`"]
        ),
        max_size=20,
    )
)
def test_a_line_of_code_only_ever_names_what_it_holds(parts: list[str]) -> None:
    content = "".join(parts)
    for text, name in statement_names(content):
        assert text in content and name.split(".")[-1] in content


def _shop(repo: Path) -> None:
    """One commit renames `pricing.py` to `billing.py` with `compute_total` to
    `calculate_total` (the import line changes in both), and deletes `apply_discount`."""
    body = "def {total}(items, *, tax=0.2):\n    return sum(items) * (1 + tax)\n\n\n" + "".join(
        f"def rounding_rule_{i}(value):\n    return round(value, {i})\n\n\n" for i in range(8)
    )  # enough in common for git to see the file renamed
    write(
        repo,
        "src/shop/pricing.py",
        body.format(total="compute_total")
        + "def apply_discount(total, rate):\n    return total * (1 - rate)\n\n\n"
        + "def format_price(value):\n    return f'{value:.2f}'\n",
    )
    write(repo, "src/shop/cart.py", "from shop.pricing import compute_total\n")
    memory(
        repo,
        "core",
        "Totals: `src/shop/pricing.py` has `compute_total(items, *, tax=0.2)` and "
        "`apply_discount()`.\n",
    )
    memory(repo, "conventions", "Import as `from shop.pricing import compute_total`.\n")
    commit(repo, "start")
    git(repo, "mv", "src/shop/pricing.py", "src/shop/billing.py")
    write(
        repo,
        "src/shop/billing.py",
        body.format(total="calculate_total")
        + "def format_price(value):\n    return f'{value:.2f}'\n",
    )
    write(repo, "src/shop/cart.py", "from shop.billing import calculate_total\n")
    commit(repo, "pricing is billing; no discounts")


def test_a_deleted_function_is_removed_not_renamed_to_what_another_rename_made(
    repo: Path,
) -> None:
    _shop(repo)
    found = by_mention(findings(repo))
    assert "new_name" not in found["apply_discount()"]
    assert found["apply_discount()"]["note"].startswith("removed in commit ")
    assert found["compute_total(items, *, tax=0.2)"]["new_name"] == "calculate_total"
    # the module's import line changed in two ways at once: its file's rename tells
    assert (found["shop.pricing"]["new_name"], found["shop.pricing"]["new_path"]) == (
        "shop.billing",
        "src/shop/billing.py",
    )


def test_a_memory_edited_after_the_rename_is_still_told_where_its_names_went(
    repo: Path,
) -> None:
    from conftest import run_cli_process

    _shop(repo)
    fixed = run_cli_process("memories", "fix-code-references", str(repo))
    assert "Brought 4 mentions of code up to date:" in fixed.stdout, fixed.stderr
    # the module in the import is pointed at its new file in the form it was written in
    assert "conventions:1: `shop.pricing` -> `shop.billing`" in fixed.stdout
    # and the renamed function at its new name, its signature as written
    core_fix = "core:1: `compute_total(items, *, tax=0.2)` -> `calculate_total(items, *, tax=0.2)`"
    assert core_fix in fixed.stdout
    conventions = (repo / ".serena/memories/conventions.md").read_text(encoding="utf-8")
    assert conventions == "Import as `from shop.billing import calculate_total`.\n"
    # a person edits the memory after the rename, keeping the old name
    memory(repo, "core", "Totals: `src/shop/billing.py` has `compute_total(items, *, tax=0.2)`.\n")
    commit(repo, "the memories' paths fixed")
    told = by_mention(findings(repo))["compute_total(items, *, tax=0.2)"]
    assert told["new_name"] == "calculate_total"  # not "gone before the memory last changed"
    read = run_cli_process("memories", "read", "core", str(repo))
    renamed = "`compute_total(items, *, tax=0.2)` -> `calculate_total(items, *, tax=0.2)`"
    assert renamed in read.stderr


def test_a_span_of_many_spaces_is_read_in_time_and_a_line_written_out_is_still_cut() -> None:
    import time

    started = time.monotonic()
    assert [m.target for m in extract("`f(x) -> " + " " * 50_000 + "x`\n")] == ["f"]
    assert time.monotonic() - started < 5  # was quadratic: about 40 s
    found = [(m.kind, m.target) for m in extract("`src/a.py" + " " * 300 + "(line 3)`\n")]
    assert found == [("path", "src/a.py")]


def test_a_name_dropped_while_several_of_its_shape_came_is_missing_not_renamed(
    repo: Path,
) -> None:
    """A table dropped in the commit that created ten of its shape (hluisi/pause-monitor:
    `spindump_processes` and the new `tailspin_*` tables) was told "is now
    `tailspin_header`", the first of them, and the one-call fix would have written it."""
    write(repo, "src/tables.py", "def spindump_processes(db):\n    return db.table('p')\n")
    memory(repo, "schema", "Parsed process data: `spindump_processes`.\n")
    commit(repo, "start")
    write(
        repo,
        "src/tables.py",
        "".join(
            f"def tailspin_{part}(db):\n    return db.table('p')\n"
            for part in ("header", "process", "thread")
        ),
    )
    commit(repo, "tailspin tables")
    found = by_mention(findings(repo))["spindump_processes"]
    assert found["status"] == "missing" and not found.get("new_name"), found
