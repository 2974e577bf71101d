"""Names inside a code span that holds a whole statement (`from .recipes import *`,
`import more_itertools.recipes`, `{ assertString(str); ... }`, `require('./lib/x')`,
`git mv a b`): when the commits since the memory was written renamed or moved them, the
read note tells them as the memory wrote them and drift mode rewrites them inside the
span; a statement naming what the project never had (an example, another library) stays
quiet. Real git repositories, real files and history."""

from __future__ import annotations

from pathlib import Path

from test_code_drift import commit, git, memory, write

from serena_memory.integrity.code_drift.fixes import Replacement, apply
from serena_memory.integrity.code_drift.mentions import PATH, SYMBOL, extract
from serena_memory.integrity.code_drift.read_note import read_note
from serena_memory.integrity.code_drift.statements import statement_names
from serena_memory.mcp.state import create_state
from serena_memory.mcp.tools_memories import edit_memory, read_memory
from serena_memory.wiring import build_store

LAYOUT = """# Layout
- `more_itertools/__init__.py` does `from .recipes import *` and `from .more import *`.
- Tests: `import more_itertools.recipes` then `more_itertools.recipes.take(2, x)`.
- Every validator starts with `{ assertString(str); ... }`.
- Node users write `const assertString = require('./lib/util/assertString')`.
- Renamed once with `git mv src/lib/util/assertString.js src/lib/util/checks.js`.
"""
EXAMPLES = """# Examples
- Never in this project: `from .widgets import *`, `import numpy.linalg`.
- Nor `{ checkThing(x); ... }`, `const y = require('lodash/fp')`, `git mv a/b.py c/d.py`.
- Nor `const z = require('./lib/nothing')`.
"""


def _project(root: Path) -> None:
    """A Python package and a JavaScript library, the memories committed, then one commit
    renaming `recipes.py` to `classic.py`, `assertString.js` to `checkString.js` and the
    function `assertString` to `checkString`."""
    git(root, "init", "-q", "-b", "main")
    write(root, "more_itertools/__init__.py", "from .more import *\nfrom .recipes import *\n")
    write(root, "more_itertools/more.py", "def chunked(it, n):\n    return list(it)\n")
    write(
        root,
        "more_itertools/recipes.py",
        "def take(n, it):\n    return list(it)[:n]\n\n\ndef tail(n, it):\n    return it\n",
    )
    for name in ("assertString", "checkString"):
        write(
            root,
            f"src/lib/util/{name}.js",
            f"export default function {name}(input) {{\n"
            "  if (typeof input !== 'string') {\n"
            "    throw new TypeError('not a string');\n  }\n}\n",
        )
        write(
            root,
            "src/lib/isEmail.js",
            f"import {name} from './util/{name}';\n\n"
            f"export default function isEmail(str) {{\n  {name}(str);\n  return true;\n}}\n",
        )
        if name == "assertString":
            commit(root, "start")
            memory(root, "layout", LAYOUT)
            memory(root, "examples", EXAMPLES)
            commit(root, "memories")
            git(root, "rm", "-q", "src/lib/util/assertString.js")
            git(root, "mv", "more_itertools/recipes.py", "more_itertools/classic.py")
    write(root, "more_itertools/__init__.py", "from .more import *\nfrom .classic import *\n")
    commit(root, "recipes is classic; assertString is checkString")


def test_names_inside_statements_are_told_and_fixed_inside_the_span(
    project: Path, serena_home: Path
) -> None:
    _project(project)
    state = create_state(project, [], home=serena_home)
    note = read_memory(state, "layout").partition("\n---\nNote: ")[2]
    for told in (
        "`.recipes` -> `.classic`",
        "`more_itertools.recipes` -> `more_itertools.classic`",
        "`assertString` -> `checkString`",
        "`./lib/util/assertString` -> `./lib/util/checkString`",
        "`src/lib/util/assertString.js` -> `src/lib/util/checkString.js`",
    ):
        assert told in note, note
    assert "Don't rely" not in note  # each has its exact replacement
    edit_memory(state, "layout", needle="", repl="", mode="drift")
    assert build_store(project).read("layout") == (
        "# Layout\n"
        "- `more_itertools/__init__.py` does `from .classic import *` and `from .more import *`.\n"
        "- Tests: `import more_itertools.classic` then `more_itertools.classic.take(2, x)`.\n"
        "- Every validator starts with `{ checkString(str); ... }`.\n"
        "- Node users write `const assertString = require('./lib/util/checkString')`.\n"
        "- Renamed once with `git mv src/lib/util/checkString.js src/lib/util/checks.js`.\n"
    )


def test_statements_naming_what_the_project_never_had_stay_quiet(project: Path) -> None:
    _project(project)
    assert read_note(str(project), "examples", EXAMPLES) == ""


def test_a_statement_span_names_its_calls_star_imports_and_local_requires() -> None:
    assert statement_names("from .recipes import *") == [(".recipes", "recipes")]
    assert statement_names("{ assertString(str); ... }") == [("assertString", "assertString")]
    assert statement_names("this.render(); return load(path)") == [
        ("render", "render"),
        ("load", "load"),
    ]
    assert statement_names("const x = require('lodash')") == []  # `require` is the language's
    assert statement_names("{ x = 1; ... }") == []
    found = {(m.kind, m.text, m.inner) for m in extract("`const a = require('./lib/a')`\n")}
    assert (PATH, "./lib/a", True) in found
    assert all(kind != SYMBOL for kind, _text, _inner in found)
    whole = extract("`assertString(str)` and `lib/a.js`\n")
    assert not any(m.inner for m in whole)  # a span that is one name is no statement


def test_a_move_a_statement_records_is_no_drift(project: Path) -> None:
    """`git mv src/x.py src/y.py` written after that move: the old name was gone when the
    memory was written, so the statement tells what was done, not drift."""
    git(project, "init", "-q", "-b", "main")
    write(project, "src/x.py", "def a():\n    return 1\n" * 5)
    commit(project, "start")
    git(project, "mv", "src/x.py", "src/y.py")
    commit(project, "move")
    text = "# Done\n- We ran `git mv src/x.py src/y.py` last week.\n"
    memory(project, "done", text)
    commit(project, "memory")
    write(project, "README.md", "x\n")
    commit(project, "later")
    written = str(project / ".serena/memories/done.md")
    assert read_note(str(project), "done", text, written=written) == ""


def test_a_renamed_name_is_rewritten_in_the_spans_that_hold_it_not_in_the_prose() -> None:
    text = "# Loading\n- Start with `{ load(path); ... }` to load the file from src/load.\n"
    renamed = Replacement("m", 2, "load", "read_config", ())
    new, done = apply(text, [renamed])
    assert done == [renamed]
    assert new == (
        "# Loading\n- Start with `{ read_config(path); ... }` to load the file from src/load.\n"
    )
    moved = Replacement("m", 2, "src/load", "src/loading", ())  # a path: wherever it stands
    assert "from src/loading." in apply(text, [moved])[0]
