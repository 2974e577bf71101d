"""What is never drift, and the forms a module is written in, in real git repositories
built here from the facts of two real projects: Starlette (its `.gitignore` lists
`venv*/`, its `scripts/install` makes `venv`; `tests/types.py` imported as
`tests.types`) and Commander.js (its package is `commander`; its tests import
`./testHelpers.js`). Each case is checked where the agent and the person meet it: the
start line, the note on read, `check --code --strict` and `fix-code-references`."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli_process
from test_code_drift import by_mention, commit, findings, git, memory, repo, write

from serena_memory.core.store import MemoryStore
from serena_memory.integrity.code_drift.drifted_memories import drifted_memories
from serena_memory.integrity.code_drift.read_note import read_note

__all__ = ["repo"]  # the fixture, shared


def told(store: MemoryStore, repo: Path, name: str) -> tuple[list[str], str, int]:
    """The drifted memories the start names, the note on reading ``name``, and the exit
    code of `check --code --strict`."""
    text = (repo / f".serena/memories/{name}.md").read_text(encoding="utf-8")
    note = read_note(str(repo), name, text)
    strict = run_cli_process("memories", "check", str(repo), "--code", "--strict")
    return drifted_memories(store)[0], note, strict.returncode


def _starlette(repo: Path) -> None:
    """The parts of Starlette that matter here: folders it ignores, the script that makes
    its virtualenv, a test module other tests import."""
    write(repo, ".gitignore", "*.pyc\n__pycache__/\n.pytest_cache/\nvenv*/\nbuild/\ndist/\n")
    write(
        repo,
        "scripts/install",
        '#!/bin/sh -e\nPYTHON="python3"\nVENV="venv"\n"$PYTHON" -m venv "$VENV"\n'
        'PIP="$VENV/bin/pip"\n"$PIP" install -r requirements.txt\n',
    )
    write(repo, "requirements.txt", "pytest\n")
    write(repo, "starlette/__init__.py", "")
    write(repo, "starlette/types.py", "Scope = dict\n")
    write(repo, "tests/__init__.py", "")
    write(repo, "tests/types.py", "class TestClientFactory:\n    pass\n")
    write(repo, "tests/test_app.py", "from tests.types import TestClientFactory\n")


def test_a_folder_git_ignores_or_a_script_makes_is_never_drift(
    repo: Path, store: MemoryStore
) -> None:
    _starlette(repo)
    memory(
        repo,
        "setup",
        "# Starlette — setup\n\nRun `scripts/install`: it makes `venv/`, and the tests run\n"
        "with `venv/bin/pytest` (or venv/bin/python -m pytest).\n",
    )
    memory(repo, "layout", "Types: `starlette/types.py`; test helpers in `tests/types.py`.\n")
    commit(repo, "start")
    started, note, strict = told(store, repo, "setup")
    assert started == [] and note == "" and strict == 0
    assert findings(repo) == []


def test_a_folder_only_the_projects_script_makes_is_never_drift(
    repo: Path, store: MemoryStore
) -> None:
    # not ignored: the script alone says the folder is made on the developer's machine
    write(repo, "scripts/bootstrap.sh", 'OUT=".cache/reports"\nmkdir -p "$OUT"\n')
    write(repo, "Makefile", "env:\n\tvirtualenv -p python3 .env-dev\n")
    memory(
        repo,
        "setup",
        "Reports land in `.cache/reports/summary.html`; the env is `.env-dev/`.\n"
        "Gone for good: `docs/old.md`.\n",
    )
    commit(repo, "start")
    found = by_mention(findings(repo))
    assert set(found) == {"docs/old.md"}  # a real claim is still told


def test_the_projects_name_in_a_title_is_not_a_path(repo: Path, store: MemoryStore) -> None:
    write(repo, "package.json", json.dumps({"name": "commander", "version": "15.0.0"}))
    write(repo, "index.js", "exports.program = {};\n")
    write(repo, "lib/command.js", "class Command {}\n")
    memory(
        repo,
        "core",
        "# Commander.js — core\n\nCommander.js keeps `Command` in `lib/command.js`;\n"
        "the parser is in `lib/commander.js`.\n",
    )
    commit(repo, "start")
    found = by_mention(findings(repo))
    assert set(found) == {"lib/commander.js"}  # the path is still told
    started, note, _strict = told(store, repo, "core")
    assert started == ["core"]
    assert "Commander.js`" not in note and "`lib/commander.js` (line 4)" in note


def test_a_module_in_dotted_import_or_relative_form_is_told_and_fixed_in_its_form(
    repo: Path, store: MemoryStore
) -> None:
    _starlette(repo)
    write(repo, "starlette/middleware/__init__.py", "")
    write(repo, "starlette/datastructures.py", "class URL:\n    pass\n")
    write(repo, "starlette/middleware/errors.py", "from ..datastructures import URL\n")
    memory(
        repo,
        "testing",
        "# Tests\n\nThe client factory is imported from tests.types in every test,\n"
        "as `from tests.types import TestClientFactory`; see `tests.types.TestClientFactory`.\n",
    )
    memory(
        repo,
        "middleware",
        "Middleware takes `URL` from `..datastructures` (`from ..datastructures import URL`).\n",
    )
    memory(
        repo, "libraries", "Paths go through `os.path`; settings in `tool.ruff`; import os.path.\n"
    )
    commit(repo, "start")
    git(repo, "mv", "tests/types.py", "tests/typing_helpers.py")
    git(repo, "mv", "starlette/datastructures.py", "starlette/structures.py")
    commit(repo, "rename the type modules")

    found = findings(repo)
    assert {f["memory"] for f in found} == {"testing", "middleware"}  # not `os.path`
    testing = {(f["line"], f["mention"]): f for f in found if f["memory"] == "testing"}
    assert set(testing) == {
        (3, "tests.types"),
        (4, "tests.types"),
        (4, "tests.types.TestClientFactory"),
    }
    assert {f["new_mention"] for f in testing.values()} == {
        "tests.typing_helpers",
        "tests.typing_helpers.TestClientFactory",
    }
    assert {f["new_path"] for f in testing.values()} == {"tests/typing_helpers.py"}
    middleware = [f for f in found if f["memory"] == "middleware"]
    assert {(f["mention"], f["new_mention"]) for f in middleware} == {
        ("..datastructures", "..structures")
    }

    started, note, strict = told(store, repo, "testing")
    assert started == ["middleware", "testing"] and strict == 1
    assert "(lines 3, 4): `tests.types` -> `tests.typing_helpers`" in note

    fixed = run_cli_process("memories", "fix-code-references", str(repo))
    assert fixed.returncode == 0, fixed.stderr
    text = (repo / ".serena/memories/testing.md").read_text(encoding="utf-8")
    assert "imported from tests.typing_helpers in every test" in text
    assert "`from tests.typing_helpers import TestClientFactory`" in text
    assert "`tests.typing_helpers.TestClientFactory`" in text
    text = (repo / ".serena/memories/middleware.md").read_text(encoding="utf-8")
    assert text == "Middleware takes `URL` from `..structures` (`from ..structures import URL`).\n"


def test_a_relative_import_is_told_and_stays_relative_when_fixed(
    repo: Path, store: MemoryStore
) -> None:
    write(repo, "package.json", json.dumps({"name": "commander"}))
    write(repo, "lib/command.js", "class Command {}\nexports.Command = Command;\n")
    helpers = "".join(f"exports.helper{i} = () => {i};\n" for i in range(12))
    write(repo, "tests/testHelpers.js", helpers)
    write(repo, "tests/command.test.js", "const h = require('./testHelpers.js');\n")
    memory(
        repo,
        "tests",
        "# Commander.js — tests\n\nTests share `./testHelpers.js` (`require('./testHelpers')`:\n"
        "`./testHelpers`), and reach the code as `../lib/command.js`; not `../other-repo/x.js`.\n",
    )
    commit(repo, "start")
    assert findings(repo) == []  # every form names a file of the project
    git(repo, "mv", "tests/testHelpers.js", "tests/helpers.js")
    (repo / "lib/commands").mkdir()
    git(repo, "mv", "lib/command.js", "lib/commands/command.js")
    commit(repo, "rename the helpers and move the command")

    found = {f["mention"]: f for f in findings(repo)}
    assert {m: f["new_mention"] for m, f in found.items()} == {
        "./testHelpers.js": "./helpers.js",
        "./testHelpers": "./helpers",
        "../lib/command.js": "../lib/commands/command.js",
    }
    _started, note, _strict = told(store, repo, "tests")
    assert "`./testHelpers.js` -> `./helpers.js`" in note  # relative, as written
    fixed = run_cli_process("memories", "fix-code-references", str(repo))
    assert fixed.returncode == 0, fixed.stderr
    text = (repo / ".serena/memories/tests.md").read_text(encoding="utf-8")
    assert "Tests share `./helpers.js` (`require('./testHelpers')`:\n`./helpers`)" in text
    assert "as `../lib/commands/command.js`; not `../other-repo/x.js`" in text


def test_a_file_listed_under_its_folder_keeps_its_short_form_when_fixed(repo: Path) -> None:
    """node-semver's `mem:core` lists `internal/`'s files by name: the note told
    `parse-options.js` moved, and the one-call fix said there was nothing to apply."""
    write(repo, "internal/parse-options.js", "module.exports = () => ({})\n")
    write(repo, "internal/re.js", "module.exports = {}\n")
    write(repo, "lib/tool.js", "module.exports = 1\n")
    write(repo, "lib/other.js", "module.exports = 2\n")
    memory(
        repo,
        "core",
        "- `internal/`: `re.js` (regexes), `parse-options.js` (options)\n- `lib/`: `tool.js`\n",
    )
    commit(repo)
    git(repo, "mv", "internal/parse-options.js", "internal/options.js")
    (repo / "tools").mkdir()
    git(repo, "mv", "lib/tool.js", "tools/tool.js")
    commit(repo, "rename the options parser, move the tool")
    fixed = run_cli_process("memories", "fix-code-references", str(repo))
    assert fixed.returncode == 0, fixed.stderr
    text = (repo / ".serena/memories/core.md").read_text(encoding="utf-8")
    assert "`re.js` (regexes), `options.js` (options)" in text
    assert "- `lib/`: `tool.js`" in text  # left its folder: told, not rewritten in short
