"""How to run one test file or one test: what a contributor types while working on a
change, far more often than the whole suite.

Offered only when the project's runner is known (a test command already on the sheet, or
the runner's own configuration) and a real test file of the project can be named, in the
prefix the project runs its tools with (``uv run pytest tests/test_x.py``, ``pnpm exec
vitest run src/x.test.ts``, ``bundle exec rspec spec/x_spec.rb``). Nothing is offered when
the docs or the tasks show such a form already.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from serena_memory.agent.project_facts.commands import unwrap
from serena_memory.agent.project_facts.files import Project, table
from serena_memory.agent.project_facts.node import package_data, package_manager
from serena_memory.agent.project_facts.package_managers import program_prefix

SOURCE = "test files"
MAX_FOLDERS_VISITED = 200
MAX_DEPTH = 3
_SKIPPED = frozenset({"node_modules", "vendor", "testdata", "fixtures", "fixture", "__snapshots__",
                      "target", "dist", "build", "snapshots", "data"})  # fmt: skip
_PYTHON_TEST = re.compile(r"^(test_\w+|\w+_test)\.py$")
_JS_TEST = re.compile(r"^[\w.-]+(?:\.test|\.spec|[a-z]Spec|[a-z]Test)\.[cm]?[jt]sx?$")
_JS_FILE = re.compile(r"^[\w-]+\.[cm]?[jt]s$")
_PYTHON_TEST_FUNC = re.compile(r"^(?:async )?def (test_\w+)\(", re.M)
"""A test function at a module's top level (a class's tests are named by their class)."""
_PYTHON_TEST_CLASS = re.compile(r"class (Test\w*)\b")
_PYTHON_TEST_METHOD = re.compile(r"[ \t]+(?:async )?def (test_\w+)\(")
MAX_TEST_FILE_LINES = 5000
_GO_TEST_FILE = re.compile(r"^\w+_test\.go$")
MAX_GO_TEST_FILES = 20
_GO_TEST_FUNC = re.compile(r"^func (Test\w+)\(\w+ \*testing\.T\)", re.M)
_RUST_TEST_FUNC = re.compile(r"#\[(?:\w+::)?test\]\s*(?:#\[[^\]\n]*\]\s*)*(?:async\s+)?fn\s+(\w+)")
# the words of a command that already runs one file or one test
_ONE_TEST = re.compile(r"(::|\s-run\s|\s-k\s|\s--test\s|_test\.\w+\b|_spec\.rb\b|"
                       r"\btest_\w+\.py\b|\.(test|spec)\.[cm]?[jt]sx?\b|Test\.php\b)")  # fmt: skip
_JS_RUNNERS = (("vitest", "vitest run "), ("jest", "jest "), ("mocha", "mocha "), ("ava", "ava "))
# a test script given a file through the package manager (npm needs `--` before it)
_THROUGH_SCRIPT = {"npm": "npm test -- ", "pnpm": "pnpm test ", "yarn": "yarn test ",
                   "bun": "bun run test "}  # fmt: skip
_PHP_TEST = re.compile(r"^\w+Test\.php$")
_SETUP_OPTIONS = frozenset({"--require", "-r", "--config", "--setupFiles", "--file"})
_PYTHON_PREFIXES = ("uv run ", "poetry run ", "pdm run ", "pipenv run ", "python -m ",
                    "python3 -m ")  # fmt: skip


def read_single_test(project: Project) -> None:
    """Offer one single-test command when the sheet shows none."""
    tests = project.sheet.commands.get("test", [])
    if any(_ONE_TEST.search(f" {command} ") and not _in_environments(command) for command in tests):
        return
    forms: tuple[Callable[[Project, list[str]], str | None], ...] = (
        _pytest, _unittest, _go_test, _cargo_test, _node_test, _ruby_test, _phpunit, _mix_test,
    )  # fmt: skip
    for form in forms:
        command = form(project, tests)
        if command:
            project.sheet.add("test", command, SOURCE)
            if form is _pytest and (named := _pytest_by_name(project, command)):
                project.sheet.add("test", named, SOURCE)
            return


def _in_environments(command: str) -> bool:
    """``tox -- -k name``: one test, run in environments built for it (slow to iterate)."""
    return unwrap(command.split())[:1] in (["tox"], ["nox"])


def find_file(project: Project, folders: tuple[str, ...], name: re.Pattern[str]) -> str | None:
    """The first file matching ``name`` in ``folders`` (shallowest first, a few levels
    down, never in dependencies, fixtures or build output)."""
    queue = [(folder, 0) for folder in folders if project.is_dir(folder)]
    visited = 0
    while queue and visited < MAX_FOLDERS_VISITED:
        folder, depth = queue.pop(0)
        visited += 1
        entries = project.listing(folder)
        prefix = "" if folder == "." else f"{folder}/"
        for entry in entries:
            if name.match(entry) and project.is_file(prefix + entry):
                return prefix + entry
        if depth < MAX_DEPTH:
            queue.extend(
                (prefix + entry, depth + 1)
                for entry in entries
                if entry not in _SKIPPED and not entry.startswith(".")
                and project.is_dir(prefix + entry)
            )  # fmt: skip
    return None


def _pytest(project: Project, tests: list[str]) -> str | None:
    """``pytest tests/test_x.py`` through the prefix the project's pytest runs with, or
    ``hatch test tests/test_x.py`` where the project tests with Hatch."""
    hatch = any(command.split()[:2] == ["hatch", "test"] for command in tests)
    prefix = "hatch test" if hatch else _pytest_prefix(project, tests)
    if prefix is None:
        return None
    # the tests' folder, else one inside the package (`referencing/tests/test_core.py`)
    path = find_file(project, ("tests", "test", "testing"), _PYTHON_TEST) or find_file(
        project, (".",), _PYTHON_TEST
    )
    if path is None:
        return None
    return f"hatch test {path}" if hatch else f"{prefix}pytest {path}"


def _unittest(project: Project, tests: list[str]) -> str | None:
    """``python -m unittest tests.test_x``: one module of a project tested with unittest
    (its tests run by ``python -m unittest``, with or without coverage)."""
    if not any(re.search(r"-m unittest\b", command) for command in tests):
        return None
    path = find_file(project, ("tests", "test"), _PYTHON_TEST)
    return f"python -m unittest {path.removesuffix('.py').replace('/', '.')}" if path else None


def _pytest_by_name(project: Project, command: str) -> str | None:
    """``pytest tests/test_x.py::test_y``: one test of the file the line runs, by its name
    (the file's first test function)."""
    text = (project.text(command.rsplit(" ", 1)[-1]) or "")[:200_000]
    test = _PYTHON_TEST_FUNC.search(text)
    if test:
        return f"{command}::{test.group(1)}"
    method = _first_test_method(text)  # `Class::method` of a test class
    return f"{command}::{method}" if method else None


def _first_test_method(text: str) -> str | None:
    """``TestX::test_y``: the first test method of a test class, read line by line."""
    within: str | None = None
    for line in text.splitlines()[:MAX_TEST_FILE_LINES]:
        if line[:1] in (" ", "\t"):
            method = _PYTHON_TEST_METHOD.match(line) if within else None
            if method:
                return f"{within}::{method.group(1)}"
        elif line.strip() and not line.startswith(("#", "@")):
            found = _PYTHON_TEST_CLASS.match(line)  # a line at the left: a class begins or ends
            within = found.group(1) if found else None
    return None


def _pytest_prefix(project: Project, tests: list[str]) -> str | None:
    """The project's runner (``uv run``) when it has one, else the prefix its own pytest
    command is written with (``python -m``); None when pytest is not the project's."""
    from serena_memory.agent.project_facts.python_project import runner

    spelled: str | None = None
    for command in tests:
        words = command.split()
        if unwrap(words)[:1] == ["pytest"] and "pytest" in words:
            before = " ".join(words[: words.index("pytest")])
            spelled = f"{before} " if before else ""
            break
    configured = project.first("pytest.ini", "conftest.py", "tests/conftest.py")
    tool = table(project.toml("pyproject.toml"), "tool")
    if spelled is None and not configured and "pytest" not in tool:
        return None
    prefix = runner(project, tool)
    if prefix or spelled is None:
        return prefix
    return spelled if spelled in _PYTHON_PREFIXES else ""


def _go_test(project: Project, tests: list[str]) -> str | None:
    """``go test -run TestX ./pkg``: one test of a package of the module."""
    if not project.is_file("go.mod"):
        return None
    path = find_file(project, (".",), _GO_TEST_FILE)
    if path is None:
        return None
    folder = path.rsplit("/", 1)[0] if "/" in path else "."
    package = "./..." if folder == "." else f"./{folder}"  # the root's: found in any package
    prefix = "" if folder == "." else f"{folder}/"
    # the package's first test file that holds a test (`bench_test.go` may hold none)
    files = sorted(e for e in project.listing(folder) if _GO_TEST_FILE.match(e))
    for name in files[:MAX_GO_TEST_FILES]:
        test = _GO_TEST_FUNC.search((project.text(prefix + name) or "")[:200_000])
        if test:
            return f"go test -run {test.group(1)} {package}"
    return f"go test {package}"


def _cargo_test(project: Project, tests: list[str]) -> str | None:
    """``cargo test NAME`` (``-p CRATE`` in a workspace member), else one test file."""
    manifest = project.toml("Cargo.toml")
    if not manifest:
        return None
    for folder in ("", *_members(project, manifest)):
        prefix = f"{folder}/" if folder else ""
        path = find_file(project, (f"{prefix}tests",), re.compile(r"^\w+\.rs$"))
        if path is None:
            continue
        crate = str(table(project.toml(f"{prefix}Cargo.toml"), "package").get("name", ""))
        member = f"-p {crate} " if folder and re.fullmatch(r"[\w-]+", crate) else ""
        if folder and not member:
            continue
        test = _RUST_TEST_FUNC.search((project.text(path) or "")[:200_000])
        if test:
            return f"cargo test {member}{test.group(1)}"
        if "/" not in path.removeprefix(f"{prefix}tests/"):
            return f"cargo test {member}--test {path.rsplit('/', 1)[-1][:-3]}"
    return None


def _members(project: Project, manifest: dict) -> list[str]:
    """The workspace's member folders (``crates/*`` read from the folder)."""
    found: list[str] = []
    members = table(manifest, "workspace").get("members")
    for member in members if isinstance(members, list) else []:
        if not isinstance(member, str) or ".." in member or member.startswith("/"):
            continue
        if member.endswith("/*"):
            parent = member[:-2]
            found += [f"{parent}/{name}" for name in project.listing(parent)[:50]]
        elif "*" not in member:
            found.append(member.rstrip("/"))
    return found[:50]


def _node_test(project: Project, tests: list[str]) -> str | None:
    """``npx vitest run FILE``, ``node --test FILE``...: the runner the test script or the
    dependencies name, through the package manager's way of running a local tool; through
    the test script itself (``npm test -- FILE``) when that script is the runner with
    options alone, so the file runs with the project's own options (a browser project, a
    typecheck)."""
    data = package_data(project)
    if data is None:
        return None
    script = str(table(data, "scripts").get("test", ""))
    installed = {**table(data, "devDependencies"), **table(data, "dependencies")}
    folders = ("test", "tests", "__tests__", "src", "spec", "packages", "lib")
    for runner in ("node --test", "bun test"):
        if runner in script:
            path = find_file(project, folders, _JS_TEST) or find_file(project, ("test",), _JS_FILE)
            return f"{runner} {path}" if path else None
    for tool, command in _JS_RUNNERS:
        if tool in installed or re.search(rf"\b{tool}\b", script):
            pattern = _JS_TEST if tool in ("vitest", "jest") else _JS_FILE
            path = find_file(project, folders, _JS_TEST) or find_file(project, folders, pattern)
            manager = package_manager(project, data)
            if path and _runner_alone(project, script):
                return f"{_THROUGH_SCRIPT[manager]}{path}"
            carried = _setup_options(tool, table(data, "scripts"))
            prefix = program_prefix(manager, command.split(" ", 1)[0], table(data, "scripts"))
            return f"{prefix}{command}{carried}{path}" if path else None
    return None


def _runner_alone(project: Project, script: str) -> bool:
    """Whether a test script is one runner given options alone (their values included,
    ``--config ./jest.config.js``), so a file given to it narrows it: a folder or a glob
    it is given (``mocha test/``) would still run beside the file."""
    words = script.split()
    if not words or words[0] not in ("vitest", "jest", "mocha", "ava") or "&&" in words:
        return False
    return not any(
        word.endswith("/") or "*" in word or project.is_dir(word.removeprefix("./"))
        for word in words[1:]
        if not word.startswith("-")
    )


def _setup_options(tool: str, scripts: dict) -> str:
    """The options naming what the runner loads first (``--require test/support/env``,
    ``--config x.js``) in the script that runs ``tool``, the test script first: a test
    file run without them runs without the project's set-up."""
    for body in sorted(map(str, scripts.values()), key=lambda b: b != scripts.get("test")):
        words = body.split()
        if tool not in words:
            continue
        after = words[words.index(tool) + 1 :]
        kept = [
            f"{option} {value} "
            for option, value in zip(after, after[1:], strict=False)
            if option in _SETUP_OPTIONS and not value.startswith("-")
        ]
        return "".join(kept)
    return ""


def _ruby_test(project: Project, tests: list[str]) -> str | None:
    """``bundle exec rspec spec/x_spec.rb``, or minitest's ``ruby -Itest test/x_test.rb``."""
    if not project.first("Gemfile", "Rakefile", ".rspec"):
        return None
    prefix = "bundle exec " if project.is_file("Gemfile") else ""
    spec = find_file(project, ("spec",), re.compile(r"^\w+_spec\.rb$"))
    if spec:
        return f"{prefix}rspec {spec}"
    test = find_file(project, ("test",), re.compile(r"^(\w+_test|test_\w+)\.rb$"))
    return f"{prefix}ruby -Itest {test}" if test else None


def _phpunit(project: Project, tests: list[str]) -> str | None:
    """``vendor/bin/phpunit tests/XTest.php``, where Composer installs PHPUnit."""
    data = project.text("composer.json") or ""
    if '"phpunit/phpunit"' not in data and not project.first("phpunit.xml", "phpunit.xml.dist"):
        return None
    path = find_file(project, ("tests", "test"), _PHP_TEST)
    return f"vendor/bin/phpunit {path}" if path else None


def _mix_test(project: Project, tests: list[str]) -> str | None:
    """``mix test test/x_test.exs`` in a Mix project."""
    if not project.is_file("mix.exs"):
        return None
    path = find_file(project, ("test",), re.compile(r"^\w+_test\.exs$"))
    return f"mix test {path}" if path else None
