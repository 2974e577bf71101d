"""Two refactors an agent met on real repositories (ky, humanize), in small copies: a
file renamed, a function renamed, the memories written before. Reading a memory tells
only what is true, the start of a conversation counts what the read notes list, and
`edit_memory` in drift mode applies exactly what the note offered: each memory's drift
fixed in two calls. Real git repositories, real files and history."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_code_drift import commit, git, memory, write

from serena_memory.integrity.code_drift import read_note
from serena_memory.integrity.code_drift.drifted_memories import drift_summary
from serena_memory.integrity.code_drift.git import GitUnavailable, run_git
from serena_memory.mcp.state import ServerState, create_state
from serena_memory.mcp.tools_memories import edit_memory, read_memory
from serena_memory.wiring import build_store

KY_CORE = """# ky
- `utils/merge.ts`: option merging for `ky.extend`: `deepMerge`, `mergeHeaders`.
- The constructor then merges the input's headers with `mergeHeaders`.
"""
KY_CONVENTIONS = """# Conventions
- Style is whatever `xo` enforces: tabs, `camelCase`; `for...of` over `forEach`.
"""
KY_MERGING = """# ky: option merging (`source/utils/merge.ts`)
- `headers`: `mergeHeaders(a, b)` sets each entry of `b` on `new Headers(a)`.
- The constructor does `headers: mergeHeaders(inputRequest.headers, options.headers)`.
"""
KY_PAST = """# History
- Options merge in `source/utils/merging.ts` (was `merge.ts`).
- `combineHeaders` was renamed from `mergeHeaders`; its file used to be `utils/merge.ts`.
"""


def _ky(project: Path) -> None:
    """ky's shape: memories committed, then `utils/merge.ts` renamed `merging.ts` and
    `mergeHeaders` renamed `combineHeaders`."""
    git(project, "init", "-q", "-b", "main")
    for step in ("before", "after"):
        name = "mergeHeaders" if step == "before" else "combineHeaders"
        file = "merge" if step == "before" else "merging"
        write(
            project,
            f"source/utils/{file}.ts",
            f"export const {name} = (source1, source2) => {{\n"
            "\tconst result = new globalThis.Headers(source1);\n"
            "\tfor (const [key, value] of new globalThis.Headers(source2)) {\n"
            "\t\tresult.set(key, value);\n\t}\n\treturn result;\n};\n\n"
            "export const deepMerge = (...sources) => Object.assign({}, ...sources);\n",
        )
        write(
            project,
            "source/core/Ky.ts",
            f"import {{{name}}} from '../utils/{file}.js';\n\n"
            f"export const headers = (a, b) => {name}(a, b);\n",
        )
        if step == "before":
            commit(project, "start")
            for name_, text in (
                ("core", KY_CORE),
                ("conventions", KY_CONVENTIONS),
                ("option_merging", KY_MERGING),
            ):
                memory(project, name_, text)
            commit(project, "Memories from onboarding")
            git(project, "rm", "-q", "source/utils/merge.ts")
    memory(project, "history", KY_PAST)
    commit(project, "Rename utils/merge to utils/merging, mergeHeaders to combineHeaders")


@pytest.fixture
def ky(project: Path, serena_home: Path) -> ServerState:
    _ky(project)
    return create_state(project, [], home=serena_home)


def _note(answer: str) -> str:
    return answer.partition("\n---\nNote: ")[2]


def _offered(answer: str) -> list[str]:
    """The replacements a read note offers, as told."""
    found = re.search(
        r"(?:exact replacements|has changed) \([^)]*\): (.*?)\. edit_memory", _note(answer)
    )
    return re.findall(r"`[^`]+` -> `[^`]+`", found.group(1)) if found else []


def _applied(answer: str) -> list[str]:
    """The replacements an edit made, each told once (as a note offers them)."""
    found = re.search(r"edited: \d+ replacements? \((.*)\)\.$", answer)
    made = re.findall(r"`[^`]+` -> `[^`]+`", found.group(1)) if found else []
    return list(dict.fromkeys(made))


def test_drift_mode_applies_what_the_note_offered_after_a_short_git_budget_ran_out(
    ky: ServerState, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A time-limited question to git that ran out (a symbol's trail on a busy machine)
    must not leave git unasked afterwards: the edit applies what the note just offered."""
    offered = _offered(read_memory(ky, "core"))
    assert offered == [
        "`utils/merge.ts` -> `utils/merging.ts`",  # written without its `source/`: kept so
        "`mergeHeaders` -> `combineHeaders`",  # on two lines, told once
    ]
    with pytest.raises(GitUnavailable):  # a read's short budget for git, run out
        run_git(str(project), "log", "-p", timeout=0.000001)
    monkeypatch.setattr(read_note, "CACHE_SECONDS", 0.0)  # the project's files listed again
    assert _applied(edit_memory(ky, "core", needle="", repl="", mode="drift")) == offered
    assert "mergeHeaders" not in build_store(project).read("core")


def test_every_note_offers_what_drift_mode_then_applies(ky: ServerState) -> None:
    for name in ("core", "conventions", "option_merging", "history"):
        offered = _offered(read_memory(ky, name))
        answer = edit_memory(ky, name, needle="", repl="", mode="drift")
        assert _applied(answer) == offered, name
        assert "Note:" not in read_memory(ky, name) or name == "core", name  # fixed in 2 calls


def test_the_start_counts_what_the_notes_list_and_no_language_construct(
    ky: ServerState, project: Path
) -> None:
    start = drift_summary(build_store(project))
    counted = dict(re.findall(r"'(\w+)' \((\d+)", start))
    noted = {
        name: _offered(answer)
        for name in ("core", "conventions", "option_merging", "history")
        for answer in [read_memory(ky, name)]
        if "Note:" in answer
    }
    assert counted == {"core": "2", "option_merging": "3"}
    # the memories the start counts are the ones whose reads offer replacements, each
    # told once, at most one per drifted mention
    assert set(noted) == set(counted)
    assert all(len(set(noted[n])) == len(noted[n]) for n in noted)
    assert all(1 <= len({r.split(" -> ")[0] for r in noted[n]}) <= int(counted[n]) for n in noted)
    assert "Note:" not in read_memory(ky, "conventions")  # `forEach`: the language's


def test_a_call_given_to_a_key_is_fixed_with_the_rest_in_one_call(
    ky: ServerState, project: Path
) -> None:
    edit_memory(ky, "option_merging", needle="", repl="", mode="drift")
    fixed = build_store(project).read("option_merging")
    assert "`headers: combineHeaders(inputRequest.headers, options.headers)`" in fixed
    assert "mergeHeaders" not in fixed and "`source/utils/merging.ts`" in fixed


def test_a_name_the_memory_marks_as_past_is_no_drift(ky: ServerState) -> None:
    assert "Note:" not in read_memory(ky, "history")


HZ_CORE = """# humanize
- `__init__.py`: imports `naturalsize` from `humanize.filesize`; `__version__` from `_version.py` (generated at build, git-ignored).
- `number.py`: `_format_not_finite(float)` -> "NaN" for non-finite input.
- `filesize.py`: `naturalsize` and its `suffixes` table.
- Tests: `test_filesize.py`, `test_number.py`.
- API docs: mkdocstrings renders `::: humanize.filesize`.
"""  # noqa: E501
HZ_CONVENTIONS = """# Conventions
- Tables: `@pytest.mark.parametrize("test_args, expected", [...])` with `humanize.fn(*test_args)`.
- Non-finite numbers go through `number._format_not_finite`.
"""
SIZES = (
    'suffixes = {"decimal": " kB"}\n\n\ndef naturalsize(value):\n    return f"{value}{suffixes}"\n'
)
NUMBER = (
    "import math\n\n\ndef {f}(value):\n    return 'NaN' if math.isnan(value) else 'Inf'\n\n\n"
    "def intcomma(value):\n    if not math.isfinite(value):\n        return {f}(value)\n"
    "    return f'{{value:,}}'\n"
)


def _humanize(project: Path) -> None:
    """humanize's shape: an old `humanize/filesize.py` and `tests/filesize.py` moved to a
    src layout years ago, the memories written, then `filesize.py` renamed `sizes.py`,
    `test_filesize.py` `test_sizes.py`, `_format_not_finite` `_format_non_finite`."""
    git(project, "init", "-q", "-b", "main")
    write(project, ".gitignore", "__pycache__/\nsrc/*/_version.py\n")
    write(
        project,
        "humanize/__init__.py",
        "from humanize.filesize import naturalsize\nfrom humanize._version import __version__\n",
    )
    write(project, "humanize/filesize.py", SIZES)
    write(
        project, "tests/filesize.py", "from humanize import naturalsize\n\n\ndef test_kb(): ...\n"
    )
    commit(project, "start")
    (project / "src").mkdir()
    git(project, "mv", "humanize", "src/humanize")
    git(project, "mv", "tests/filesize.py", "tests/test_filesize.py")
    write(project, "src/humanize/number.py", NUMBER.format(f="_format_not_finite"))
    write(project, "tests/test_number.py", "from humanize import number\n\n\ndef test_nan(): ...\n")
    write(project, "src/humanize/_version.py", "__version__ = '4.0'\n")  # ignored, never committed
    commit(project, "src layout")
    memory(project, "core", HZ_CORE)
    memory(project, "conventions", HZ_CONVENTIONS)
    commit(project, "Memories from onboarding")
    git(project, "mv", "src/humanize/filesize.py", "src/humanize/sizes.py")
    git(project, "mv", "tests/test_filesize.py", "tests/test_sizes.py")
    write(
        project,
        "src/humanize/__init__.py",
        "from humanize.sizes import naturalsize\nfrom humanize._version import __version__\n",
    )
    write(project, "src/humanize/number.py", NUMBER.format(f="_format_non_finite"))
    commit(project, "Rename filesize to sizes, _format_not_finite to _format_non_finite")


@pytest.fixture
def humanize(project: Path, serena_home: Path) -> ServerState:
    _humanize(project)
    return create_state(project, [], home=serena_home)


def test_a_src_layout_rename_is_fixed_in_two_calls_in_the_form_written(
    humanize: ServerState, project: Path
) -> None:
    read = read_memory(humanize, "core")
    assert _offered(read) == [
        "`humanize.filesize` -> `humanize.sizes`",  # the import root, src/, is not written
        "`_format_not_finite(float)` -> `_format_non_finite(float)`",
        "`filesize.py` -> `sizes.py`",  # a bare name stays bare; not the tests' old file
        "`test_filesize.py` -> `test_sizes.py`",  # the docs directive, line 6, told once
    ]
    answer = edit_memory(humanize, "core", needle="", repl="", mode="drift")
    assert _applied(answer) == _offered(read)
    assert "Note:" not in read_memory(humanize, "core")
    fixed = build_store(project).read("core")
    assert "from `humanize.sizes`" in fixed
    assert "`::: humanize.sizes`" in fixed and "filesize`" not in fixed  # a docs directive too


def test_ignored_files_and_written_patterns_are_no_drift(humanize: ServerState) -> None:
    note = _note(read_memory(humanize, "core"))
    assert "_version.py" not in note  # git-ignored as src/*/_version.py
    note = _note(read_memory(humanize, "conventions"))
    assert "humanize.fn" not in note  # a pattern, not a function of the project
    assert _offered(read_memory(humanize, "conventions")) == [
        "`number._format_not_finite` -> `number._format_non_finite`"
    ]
