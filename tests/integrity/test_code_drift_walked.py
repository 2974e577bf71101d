"""What a user walking the product on pallets/click and sindresorhus/execa met after one
commit that moved a file and renamed a symbol, each in a real git repository built here
from those projects' facts: click's `src/click/testing.py` does `from . import formatting`
and its tests run as `uv run pytest tests/test_formatting.py`; execa's `lib/` imports
`../arguments/escape.js` and `./escape.js`, whose `joinCommand` is used by
`lib/arguments/command.js`, and its `test/arguments/escape.js` shares the name."""

from __future__ import annotations

from pathlib import Path

from conftest import run_cli_process
from test_code_drift import by_mention, commit, findings, git, memory, repo, write

from serena_memory.integrity.code_drift.mentions import PATH, SYMBOL, extract

__all__ = ["repo"]  # the fixture, shared

CLICK_MEMORY = (
    "# click: help formatting\n\n"
    "`src/click/testing.py` forces the width with `from . import formatting`.\n\n"
    "```python\n"
    "from . import formatting\n"
    "from .formatting import HelpFormatter\n"
    "```\n\n"
    "Run `uv run pytest tests/test_formatting.py` (or `python -m pytest -q"
    " tests/test_formatting.py`, `poetry run pytest tests/test_formatting.py`).\n"
)


def _click(repo: Path) -> None:
    """click before and after one commit renaming its formatting module and its test."""
    write(repo, "pyproject.toml", '[project]\nname = "click"\n')
    write(repo, "src/click/__init__.py", "from .core import Command as Command\n")
    write(repo, "src/click/core.py", "from .formatting import HelpFormatter\n\nclass Command:\n")
    write(
        repo,
        "src/click/formatting.py",
        "FORCED_WIDTH = None\n\n\nclass HelpFormatter:\n    def write(self, s):\n"
        "        return s\n",
    )
    testing = "from . import formatting\n\nformatting.FORCED_WIDTH = 80\n"
    write(repo, "src/click/testing.py", testing)
    write(repo, "tests/test_formatting.py", "def test_basic():\n    assert 1 + 1 == 2\n")
    memory(repo, "formatting", CLICK_MEMORY)
    commit(repo, "start")
    git(repo, "mv", "src/click/formatting.py", "src/click/help_format.py")
    git(repo, "mv", "tests/test_formatting.py", "tests/test_help_format.py")
    write(repo, "src/click/core.py", "from .help_format import HelpFormatter\n\nclass Command:\n")
    write(
        repo, "src/click/testing.py", "from . import help_format\n\nhelp_format.FORCED_WIDTH = 80\n"
    )
    commit(repo, "rename formatting to help_format")


def test_a_module_imported_from_its_package_is_told_and_fixed_in_its_form(repo: Path) -> None:
    _click(repo)
    found = [f for f in findings(repo) if f["kind"] == PATH]
    told = {(f["line"], f["mention"]): f for f in found}
    assert told[(3, "formatting")]["status"] == "moved"
    assert told[(3, "formatting")]["new_path"] == "src/click/help_format.py"
    assert told[(3, "formatting")]["new_mention"] == "help_format"
    assert told[(6, "formatting")]["new_mention"] == "help_format"  # the fenced block's
    assert told[(7, ".formatting")]["new_mention"] == ".help_format"
    fixed = run_cli_process("memories", "fix-code-references", str(repo))
    assert fixed.returncode == 0, fixed.stderr
    text = (repo / ".serena/memories/formatting.md").read_text(encoding="utf-8")
    assert "the width with `from . import help_format`." in text
    assert "```python\nfrom . import help_format\nfrom .help_format import HelpFormatter\n" in text


def test_a_test_file_a_runner_runs_in_a_code_span_is_told_where_it_went(repo: Path) -> None:
    assert {
        m.target for m in extract("`uv run pytest tests/test_formatting.py -q`") if m.kind == PATH
    } == {"tests/test_formatting.py"}
    assert {m.target for m in extract("`npx vitest run test/a.test.ts`")} == {"test/a.test.ts"}
    assert {m.target for m in extract("`pytest -k slow tests/`")} == {"tests/"}
    assert extract("`pytest -k test_x`") == []  # an option's value names no file
    _click(repo)
    runs = [f for f in findings(repo) if f["mention"] == "tests/test_formatting.py"]
    assert len(runs) == 3
    assert {(f["status"], f["new_path"]) for f in runs} == {("moved", "tests/test_help_format.py")}
    fixed = run_cli_process("memories", "fix-code-references", str(repo))
    assert fixed.returncode == 0, fixed.stderr
    text = (repo / ".serena/memories/formatting.md").read_text(encoding="utf-8")
    assert "`uv run pytest tests/test_help_format.py`" in text
    assert "`poetry run pytest tests/test_help_format.py`" in text


def _execa(repo: Path, rename_tests: bool) -> None:
    """execa's escaping module, used from `lib/arguments/` and `lib/methods/`, renamed."""
    write(repo, "package.json", '{"name": "execa", "type": "module"}\n')
    write(
        repo,
        "lib/arguments/escape.js",
        "export const joinCommand = (filePath, rawArguments) => {\n"
        "\treturn [filePath, ...rawArguments].join(' ');\n};\n\n"
        "export const escapeLines = lines => lines;\n",
    )
    write(
        repo,
        "lib/arguments/command.js",
        "import {joinCommand} from './escape.js';\n\n"
        "export const handleCommand = (filePath, rawArguments) => {\n"
        "\tconst command = joinCommand(filePath, rawArguments);\n\treturn command;\n};\n",
    )
    write(
        repo,
        "lib/methods/main-async.js",
        "import {escapeLines} from '../arguments/escape.js';\n\nexport const run = escapeLines;\n",
    )
    write(repo, "test/arguments/escape.js", "import test from 'ava';\n\ntest('escapes', t => t);\n")
    memory(
        repo,
        "escaping",
        "# execa: escaping\n\n"
        "`lib/methods/main-async.js` takes `escapeLines` from `../arguments/escape.js`.\n\n"
        "```js\nimport {joinCommand} from './escape.js';\n```\n\n"
        "`joinCommand()` is called by `lib/arguments/command.js` to build the command.\n",
    )
    commit(repo, "start")
    git(repo, "mv", "lib/arguments/escape.js", "lib/arguments/quote.js")
    if rename_tests:
        git(repo, "mv", "test/arguments/escape.js", "test/arguments/quote.js")
    write(
        repo,
        "lib/arguments/quote.js",
        "export const quoteCommand = (filePath, rawArguments) => {\n"
        "\treturn [filePath, ...rawArguments].join(' ');\n};\n\n"
        "export const escapeLines = lines => lines;\n",
    )
    write(
        repo,
        "lib/arguments/command.js",
        "import {quoteCommand} from './quote.js';\n\n"
        "export const handleCommand = (filePath, rawArguments) => {\n"
        "\tconst command = quoteCommand(filePath, rawArguments);\n\treturn command;\n};\n",
    )
    write(
        repo,
        "lib/methods/main-async.js",
        "import {escapeLines} from '../arguments/quote.js';\n\nexport const run = escapeLines;\n",
    )
    commit(repo, "rename escape.js to quote.js, joinCommand to quoteCommand")


def test_a_relative_path_every_namesake_of_which_moved_alike_is_moved(repo: Path) -> None:
    _execa(repo, rename_tests=True)
    told = by_mention([f for f in findings(repo) if f["kind"] == PATH])
    up = told["../arguments/escape.js"]
    assert up["status"] == "moved" and up["new_mention"] == "../arguments/quote.js"
    assert up["new_path"] in ("lib/arguments/quote.js", "test/arguments/quote.js")
    relative = told["./escape.js"]
    assert relative["status"] == "moved" and relative["new_mention"] == "./quote.js"
    fixed = run_cli_process("memories", "fix-code-references", str(repo))
    assert fixed.returncode == 0, fixed.stderr
    text = (repo / ".serena/memories/escaping.md").read_text(encoding="utf-8")
    assert "`escapeLines` from `../arguments/quote.js`." in text
    assert "import {joinCommand} from './quote.js';" in text  # a block names no symbol


def test_an_import_in_a_fenced_block_is_told_like_its_path(repo: Path) -> None:
    _execa(repo, rename_tests=False)  # the test file of that name stays
    told = by_mention([f for f in findings(repo) if f["kind"] == PATH])
    relative = told["./escape.js"]
    assert (relative["status"], relative["new_path"]) == ("moved", "lib/arguments/quote.js")
    assert relative["new_mention"] == "./quote.js"


def test_a_renamed_symbol_is_placed_in_the_file_that_defines_it(repo: Path) -> None:
    _execa(repo, rename_tests=True)
    symbols = [f for f in findings(repo) if f["kind"] == SYMBOL]
    called = by_mention(symbols)["joinCommand()"]
    assert called["new_name"] == "quoteCommand"
    assert called["new_path"] == "lib/arguments/quote.js"  # not command.js, on its line
