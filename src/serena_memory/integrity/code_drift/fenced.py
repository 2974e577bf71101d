"""What a fenced block still says about the project's files (pure, no file access).

A fenced block mostly holds commands, sample output and sketches of code to be written,
so its names are not taken as claims the way prose is. Five shapes in one are: a folder
tree drawn with ``├──``/``└──`` (a name in it names the file at that place in the tree),
the file names in a diagram of boxes (``|  TopCollector (collector.py)  |``), a comment
naming a file (``// webpack.config.js``, ``# In src/app.py``) and the module
an import loads (``import X from "./components/X"``, ``import("@/pages/home")``), and
a path with a folder that a command runs or a line of code reads (``python tools/x.py``).
Each is a weak claim: the checker reports it only when git knew the file it names.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Iterator

from serena_memory.integrity.code_drift.extensions import KNOWN_EXTENSIONS

_COMMENT = re.compile(r"^\s*(?://+|#+(?!!)|/\*+|\*(?=\s)|<!--|--(?=\s))\s?(.*)$")
"""A line that is a comment as a whole: ``//``, ``#`` (not ``#!``), ``/*``, `` * ``,
``<!--``, ``-- `` (not an option, ``--out``)."""
_IMPORT = re.compile(
    r"""(?:\bfrom|\bimport|\brequire)\s*\(?\s*["']([^"'\s]+)["']""",
)
_LOCAL_IMPORT = re.compile(r"^(?:\.{1,2}/|[@~#][\w-]*/)")
"""An import of the project's own code: relative, or through an alias (``@/x``,
``~/x``, ``@shared/x``; a package's scope, ``@tanstack/x``, is told apart by the
checker, which knows the project's aliases)."""


def comment_text(line: str) -> str | None:
    """The text of a line that is a comment as a whole (None: it is code or nothing)."""
    if "/" not in line and "#" not in line and "-" not in line and "*" not in line:
        return None
    found = _COMMENT.match(line)
    return found.group(1) if found else None


_WRONG = re.compile(r"❌|\b(?:wrong|incorrect|bad|avoid|don'?t|anti-?pattern)\b", re.IGNORECASE)
"""A comment that says the code under it is what not to write: "❌ WRONG: old imports"."""


def wrong_lines(lines: list[tuple[int, str]]) -> set[int]:
    """The lines of a fenced block under a comment that says they are what not to write
    ("// ❌ WRONG: Old flat package imports"), to the next comment or blank line."""
    out: set[int] = set()
    wrong = False
    for number, line in lines:
        comment = comment_text(line)
        if comment is not None:
            wrong = _WRONG.search(comment) is not None
        elif not line.strip():
            wrong = False
        elif wrong:
            out.add(number)
    return out


_BOX_EDGE = re.compile(r"[+┌└╔╭][-─═]{3,}[+┐┘╗╮]")
"""A box's top or bottom edge: ``+--------+``, ``┌────┐``."""


_FLOW_ARROW = frozenset("↓↑⬇⬆▼▲")
"""A line of a flow diagram that is only an arrow between two steps."""


def boxed(lines: Iterable[str]) -> bool:
    """Whether a fenced block draws boxes or a flow (an architecture diagram, steps joined
    by lines that are only ``↓``): the file names written in it (``|  (daemon.py)  |``,
    ``ui.tsx (React)``) are the modules they stand for."""
    return any(
        (("-" in line or "─" in line or "═" in line) and _BOX_EDGE.search(line))
        or (line.strip() in _FLOW_ARROW and line.strip() != "")
        for line in lines
    )


def read_as_prose(line: str, drawn: bool) -> str | None:
    """What of a fenced line is read like prose for file names: a comment's text (with
    no code span), a header's file (``Filename: viewer.py``), or the whole line in a box
    diagram (``drawn``); None: nothing."""
    comment = comment_text(line)
    if comment is not None and "`" not in comment:
        return comment
    if ":" in line and (header := _FILE_HEADER.match(line)) is not None:
        return header.group(1)
    return line if drawn else None


_FILE_HEADER = re.compile(r"^\s*(?:File(?:name)?|FILE(?:NAME)?|file(?:name)?)\s*:\s*([\w./-]+)\s*$")
"""A docstring's header line naming its file: ``Filename: viewer.py``."""


def imported(line: str) -> Iterator[str]:
    """The project modules a line of code imports, as written (``./components/X``)."""
    if "import" not in line and "require" not in line and "from" not in line:
        return
    for found in _IMPORT.finditer(line):
        spec = found.group(1)
        if _LOCAL_IMPORT.match(spec) and "*" not in spec:
            yield spec


_INCLUDE = re.compile(r"""^\s*include\(\s*"([\w./-]+\.jl)"\s*\)""")
"""A file Julia loads into the code that runs it: ``include("Simulation.jl")``."""


def included(line: str) -> list[str]:
    """The file a line of Julia includes, as written (none: no ``include`` call)."""
    found = _INCLUDE.match(line) if "include" in line else None
    return [found.group(1)] if found else []


_PY_FROM = re.compile(
    r"\bfrom\s+(\.+[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)\s+import\s"
)
"""The module of a Python import, dotted (``from pysearch.api import``) or relative
(``from .formatting import``)."""


_PY_RUN = re.compile(
    r"\b(?:python3?\s+-m|uvicorn|gunicorn|hypercorn|daphne)\s+(?:-[-\w=.]*\s+){0,6}"
    r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?::[A-Za-z_]\w*)?)(?=\s|$|[\"'])"
)
"""A dotted module Python runs: ``python -m app.tools.seed``, or the app a server loads,
``uvicorn app.main:app`` (as written: the module is before the ``:``)."""


def python_modules(line: str) -> list[str]:
    """The dotted modules a line of Python imports from (``from pysearch.api import
    X``, ``from .formatting import X``, in a script or a ``python -c "..."``) or runs
    (``uvicorn app.main:app``): the project's modules they may be."""
    found = _PY_FROM.findall(line) if "from" in line and "import" in line else []
    if "python" in line or "corn" in line or "daphne" in line:
        found += _PY_RUN.findall(line)
    return found


_JVM_NAME = re.compile(
    r"^\s*(?:package|import(?:\s+static)?)\s+([a-z_]\w*(?:\.[A-Za-z_]\w*)+)\s*;?\s*$"
)
"""A Java, Kotlin or Scala ``package`` or ``import`` line: the dotted name of a package,
or of a class in one."""


def jvm_name(line: str) -> str | None:
    """The package or class a ``package``/``import`` line of the JVM's languages names."""
    if "package" not in line and "import" not in line:
        return None
    found = _JVM_NAME.match(line)
    return found.group(1) if found else None


def normal_import(spec: str) -> str | None:
    """An import's path as a mention's target: ``./`` and a final ``/`` cut (None: it
    leaves its folder, ``../``, which the checker reads as a suffix of its own)."""
    if spec.startswith("./"):
        spec = posixpath.normpath(spec)
    return None if spec.startswith("..") else spec.rstrip("/")


_CARGO = re.compile(r"\bcargo\s+(?:\+\S+\s+)?(?:run|build|test|bench|install|check|clippy)\b")
_CARGO_TARGET = re.compile(r"\s--(bin|example|test|bench)[\s=]+([A-Za-z_][\w-]*)")
_CARGO_FOLDERS = {"bin": "src/bin/", "example": "examples/", "test": "tests/", "bench": "benches/"}


def cargo_targets(line: str) -> Iterator[tuple[str, str]]:
    """(name, its file's path without an extension) of each target a cargo command
    runs: ``cargo run --bin smtop`` runs ``src/bin/smtop``, ``--test x`` ``tests/x``."""
    if "cargo" not in line or _CARGO.search(line) is None:
        return
    for found in _CARGO_TARGET.finditer(line):
        yield found.group(2), _CARGO_FOLDERS[found.group(1)] + found.group(2)


_CODE_TOKEN = re.compile(r"""[^\s"'`=(),;\[\]{}<>|]+""")
"""A word of a command or a line of code: what stands between spaces, quotes and
brackets."""


def code_paths(line: str) -> Iterator[str]:
    """The paths with a folder a command or a line of code names (``python
    tools/fix.py``, ``run: ./build/test.ps1 -CI``, ``$Path = "./scripts/tests"``): the
    files it runs or reads. Not a URL, an option, a path outside the project, nor an
    import's module (:func:`imported` reads that)."""
    if "/" not in line or _IMPORT.search(line) or makes_or_deletes(line):
        return
    for token in _CODE_TOKEN.findall(line):
        token = token.rstrip(".:")
        if "/" in token.rstrip("/") and "://" not in token and not token.startswith(_NOT_HERE):
            yield token


def command_names(line: str) -> Iterator[tuple[str, bool]]:
    """(name, run) of each file or folder name without a folder that a command line
    takes as an argument (``python build.py``, ``pip install -r requirements.txt``,
    ``ls agents/``): a word after the command's own with a known extension, or a name
    ending in ``/``; ``run`` when it is the script an interpreter runs, which the command
    says is there. Not the command itself, an option, a module (``python -m x``) nor a
    line of code."""
    words = _command_words(line)
    if words is None or words[0] in _MAKERS:
        return
    script, compose, given = words[0] in _INTERPRETERS, _compose(words), False
    skip = False
    for word in words[1:]:
        if skip or word.startswith(_NOT_HERE) or word in ("-m", "-c"):
            skip, script = word in ("-m", "-c"), script and not word.startswith("-")
            given = compose and word in ("-f", "--file")
            continue
        word = word.strip("\"'").rstrip(".:,;")
        if _bare_name(word):
            yield word, script or given
        script = given = False


def _compose(words: list[str]) -> bool:
    """Whether a command reads the file its ``-f`` gives (``docker-compose -f
    docker-compose.prod.yml up``, ``docker build -f Dockerfile.prod .``): the command says
    that file is there, as an interpreter says its script is."""
    return words[0] == "docker-compose" or (
        words[0] == "docker" and words[1:2] in (["compose"], ["build"])
    )


def interpreter_script(line: str) -> str | None:
    """The script with a folder an interpreter runs on a command line (``python
    scripts/smoke_test.py``, ``uv run python tools/gen.py``) or the first test file a
    test runner runs (``pytest tests/api/test_auth.py``), as written: the command says
    it is there, as it does of a bare one (:func:`command_names`); None when there is none
    (``python -m x``, ``python -c``, a line of code)."""
    words = _command_words(line) if "/" in line else None
    if words is None:
        return None
    if words[0] in _TEST_RUNNERS:  # `pytest tests/api/test_auth.py -v`: a test file it runs
        ran = [w for w in _test_arguments(words[1:]) if "." in w.rsplit("/", 1)[-1]][:1]
    else:
        ran = _interpreter_runs(words[0], words[1:]) if words[0] in _INTERPRETERS else []
    if not ran or "/" not in ran[0] or ran[0].startswith(_NOT_HERE):
        return None
    # a script under `examples/` is as often a made-up example (or a library's) as not
    return None if _EXAMPLE_FOLDERS & set(ran[0].split("/")[:-1]) else ran[0]


_EXAMPLE_FOLDERS = frozenset({"example", "examples", "sample", "samples"})


def taken_folders(line: str) -> list[str]:
    """The paths with a folder and no extension that a command runs on or lists, as
    written (``dotnet test tests/App.Api.Tests``, ``dotnet run --project src/App.Api``,
    ``pytest tests/unit``, ``ls src/components``): the command says they are the project's.
    Not an option's value (``-o out/app``: an output), nor words of other commands
    (``git checkout feature/x``, ``docker run org/image``), which name no file."""
    words = _command_words(line) if "/" in line else None
    if words is None or words[0] not in _FOLDER_TAKERS:
        return []
    out = []
    for before, word in zip(words, words[1:], strict=False):
        word = word.strip("\"'")
        option = before.startswith("-") and before not in _PROJECT_OPTIONS
        if option or word.startswith(_NOT_HERE) or ":" in word or "/" not in word.rstrip("/"):
            continue
        out.append(word)
    return out


def ran_files(line: str) -> list[str]:
    """The files and folders a command runs, as written: the script an interpreter runs
    (``python tools/gen.py``, ``uv run python x.py``, ``deno run x.ts``) and what a test
    runner takes (``pytest tests/test_a.py``, ``python -m pytest -q tests/``, ``poetry run
    pytest x.py::test_y``, ``npx vitest run a.test.ts``, ``node --test t.js``). A word that
    is no path (an option's value, ``-k slow``) is the caller's to drop."""
    words = line.split(" #", 1)[0].split()
    while len(words) > 1 and (words[0] in _RUNNERS or words[0] in _PACKAGE_RUNNERS):
        words = words[2:] if words[1] in ("run", "exec") else words[1:]
    if not words:
        return []
    if words[0] in _INTERPRETERS:
        return _interpreter_runs(words[0], words[1:])
    if words[0] in _FILE_TAKERS:
        return _given_files(words[1:])
    return _test_arguments(words[1:]) if words[0] in _TEST_RUNNERS else []


_FILE_TAKERS = frozenset({"docker", "docker-compose", "podman", "podman-compose", "make"})
"""Programs whose ``-f``/``--file`` names the file they read (``docker compose -f
deploy/compose.yaml up``, ``make -f build/Makefile``)."""


def _given_files(words: list[str]) -> list[str]:
    """The files a ``-f FILE``, ``--file FILE`` or ``--file=FILE`` names."""
    found = []
    for index, word in enumerate(words[:-1]):
        if word in ("-f", "--file"):
            found.append(words[index + 1])
    found += [word.split("=", 1)[1] for word in words if word.startswith("--file=")]
    return [word for word in found if not word.startswith(("-", "$"))]


def _interpreter_runs(head: str, rest: list[str]) -> list[str]:
    """What an interpreter (``head``) given ``rest`` runs: its script, or the test files
    of its test runner (``python -m pytest``, ``node --test``, ``bun test``)."""
    if rest[:1] == ["-m"]:
        return _test_arguments(rest[2:]) if rest[1:2] and rest[1] in _TEST_MODULES else []
    if rest[:1] in (["test"], ["--test"]):
        return _test_arguments(rest[1:])
    if rest[:1] == ["run"] and head == "deno":
        rest = rest[1:]
    script = next((i for i, w in enumerate(rest) if not w.startswith("-")), None)
    return [rest[script]] if script is not None and "-c" not in rest[:script] else []


def _test_arguments(words: list[str]) -> list[str]:
    """A test runner's arguments that may be the files it runs: not its options, a
    variable or a path outside the project."""
    return [w.strip("\"'") for w in words if not w.startswith(_NOT_HERE) and w != "run"]


def _command_words(line: str) -> list[str] | None:
    """A command line's words from the command's own name on (after a runner's: ``uv run
    python x.py`` from ``python``); None when the line can name no file this way or is no
    command: no ``.`` nor ``/``, an import, an assignment, a call, a path or a sentence
    first."""
    if "." not in line and "/" not in line:
        return None
    code = line.split("#", 1)[0]
    if _IMPORT.search(code) or "=" in _OPTION_VALUE.sub("", code) or "(" in code:
        return None
    words = code.split()
    while len(words) > 1 and words[0] in _RUNNERS:
        words = words[2:] if words[1] == "run" else words[1:]  # uv run python x.py
    if not words or not _COMMAND.match(words[0]):
        return None
    return words


def _bare_name(word: str) -> bool:
    """Whether a command's argument is a file name with a known extension or a folder's
    name ending in ``/`` (no folder before it: a path is :func:`code_paths`' to tell)."""
    return bool(
        _BARE_FOLDER.match(word)
        or (_BARE_FILE.match(word) and word.rsplit(".", 1)[1].lower() in KNOWN_EXTENSIONS)
    )


_CD = re.compile(r"^\s*(?:\$\s+)?cd\s+([\w@.+-][\w@.+/-]*)\s*(?:&&|;|$)")
"""A command that changes the folder the next ones run in: ``cd backend``, ``cd
web && npm test``."""


def cd_folder(line: str, folder: str) -> str:
    """The folder of the project the commands after ``line`` run in, ``folder`` before
    it ('' the root): a ``cd`` into a folder below it moves there; a ``cd`` out of the
    project, home or back (``cd /tmp``, ``cd ~``, ``cd -``) goes back to the root (no
    longer known)."""
    if "cd" not in line:
        return folder
    found = _CD.match(line)
    if found is None:
        return "" if line.strip() in ("cd", "cd -", "cd ~") else folder
    moved = posixpath.normpath(folder + found.group(1))
    return "" if moved == "." or moved.startswith("..") else moved + "/"


_CLONE = re.compile(r"^\s*(?:\$\s+)?git\s+clone\s")


def cloned_into(line: str, cloned: bool) -> bool:
    """Whether the next ``cd`` after ``line`` goes into a clone of the project (``git
    clone <url>`` then ``cd data-agent-v4``: its root), ``cloned`` before it."""
    return bool(_CLONE.match(line)) or (cloned and cd_target(line) is None)


def cd_target(line: str) -> str | None:
    """The folder a ``cd`` line moves into as written (``lumen-gcp/backend``), or None:
    a command names a folder of the project it runs in."""
    found = _CD.match(line) if "cd" in line else None
    return found.group(1) if found else None


def makes_or_deletes(line: str) -> bool:
    """Whether a command line deletes or makes the files it takes (``rm -rf dist/
    build/``, ``mkdir -p src/new``): a build's output or a file still to be made, no
    claim that the project has it."""
    words = line.split("#", 1)[0].split()
    while len(words) > 1 and words[0] in _RUNNERS:
        words = words[1:]
    return bool(words) and words[0] in _MAKERS


_MAKERS = frozenset(
    {"rm", "rmdir", "del", "erase", "rd", "unlink", "shred", "trash", "mkdir", "touch"}
    | {"Remove-Item", "New-Item", "ri", "ni"}
)
"""Commands that delete or make what they take, in a shell or PowerShell."""
_RUNNERS = frozenset({"uv", "poetry", "pipenv", "pdm", "hatch", "rye", "sudo"})
"""Commands that run the command after them (``uv run python x.py``)."""
_PACKAGE_RUNNERS = frozenset({"npx", "pnpm", "yarn", "bunx", "pnpx"})
"""Commands that run a package's program (``npx vitest``, ``pnpm exec jest``)."""
_TEST_RUNNERS = frozenset(
    {"pytest", "py.test", "jest", "vitest", "mocha", "ava", "rspec", "phpunit", "tap"}
)
"""Commands that take the test files they run as arguments."""
_FOLDER_TAKERS = frozenset({"dotnet", "ls", "tree"}) | _TEST_RUNNERS
"""Commands whose arguments are the project's folders (or files) they build, test or list."""
_PROJECT_OPTIONS = frozenset({"--project", "--project-path"})
"""Options whose value is a project's folder or file (``dotnet run --project src/App``)."""
_TEST_MODULES = frozenset({"pytest", "unittest"})
"""Modules ``python -m`` runs that take test files (``python -m pytest tests/a.py``)."""
_INTERPRETERS = frozenset(
    [
        "python",
        "python3",
        "py",
        "node",
        "bash",
        "sh",
        "zsh",
        "pwsh",
        "powershell",
        "ruby",
        "perl",
        "php",
        "deno",
        "bun",
        "tsx",
        "ts-node",
        "julia",
    ]
)
"""Commands whose first argument is the script they run."""
_OPTION_VALUE = re.compile(r"(?<!\S)--?[A-Za-z][\w-]*=\S*")
"""An option given its value with ``=`` (``julia --project=. main.jl``): no assignment."""
_COMMAND = re.compile(r"^[a-z][\w.+-]*$")
"""A command's name as typed (``python``, ``pip``, ``ls``), not a path nor a sentence."""
_BARE_FILE = re.compile(r"^[\w-]+(?:\.[\w-]+)*\.[A-Za-z0-9]+$")
_BARE_FOLDER = re.compile(r"^[A-Za-z_][\w.-]*/$")


_NOT_HERE = ("/", "~", "$", "-", "@", "%")
"""How a word that is not a path of the project starts: the root, home, a variable, an
option, a package's scope."""


_WINDOWS_PATH = re.compile(r"(?<![\w\\/:.$%-])[A-Za-z_][\w.-]*(?:\\[\w.-]+)+(?![\w\\/])")
"""A relative path written with Windows' backslashes (``modules\\appTasks.py``), not after
a drive (``C:\\Users\\x``) nor a root backslash."""


def windows_paths(line: str) -> str:
    """``line`` with the backslashes of each relative Windows path turned into ``/``
    (``git add modules\\appTasks.py`` in a ``cmd`` block): the same length, so each
    mention keeps its place."""
    return _WINDOWS_PATH.sub(lambda found: found.group().replace("\\", "/"), line)
