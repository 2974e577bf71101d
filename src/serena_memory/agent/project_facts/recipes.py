"""What a task runs: the kind of a make target, just recipe, npm script or ``scripts/`` tool
is read from the commands of its body first, and from its name only when the body says
nothing (a ``scripts/lint`` that runs ``ruff format`` and ``ruff check --fix`` formats; a
task named for the coverage that only reports it, ``coverage-report``, is part of testing).

A task that runs several tools of different kinds (an ``npm test`` of ``xo && tsc --noEmit
&& ava``) is offered, and so is each tool's own line, under its own kind. The default task
(``make``, ``just`` with no name) is offered first when it runs something of a known kind.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from serena_memory.agent.project_facts.commands import (
    canonical,
    classify_command,
    installs_own,
    is_never_line,
    program,
    shell_command,
)
from serena_memory.agent.project_facts.names import classify_name, is_never, words
from serena_memory.agent.project_facts.parts import ONE_BY_ONE, VARIABLE, VARIABLES, offer_parts
from serena_memory.agent.project_facts.sheet import FactSheet

NEVER = "never"
# a body made only of these is something else than the kinds the sheet offers
REPORT = "report"
MAX_DEPTH = 6
MAX_BODY_LINES = 40
MAX_SCRIPT_LINES = 200
# a word that is only a variable: `$(SOURCES)`, `${ARGS}`, `{{args}}`, `$SOURCE_FILES`, `"$@"`
_ONLY_VARIABLE = re.compile(rf"""^(["']?)({VARIABLES}|\$[A-Za-z_]\w*|\$[@*])\1$""")
# `${PREFIX}mypy` (`$PREFIXmypy` would be one variable's name)
_PATH_PREFIX = re.compile(r"(^|\s)\$\{[A-Za-z_]\w*\}(?=[A-Za-z])")
# a line that ships: `twine upload`, `npm publish`, `mike deploy`, `mkdocs gh-deploy`
_NEVER_WORDS = frozenset({"publish", "upload", "deploy", "gh-deploy"})
# a program of the project's named for shipping (`./script/release`), or checking what it
# ships (`twine check dist/*`)
_SHIPS = _NEVER_WORDS | {"release", "twine"}
_NEVER_GIT = re.compile(r"^git\s+(clone|push|tag|commit)\b")
# the hosted repository driven from a laptop: `gh workflow run nightly.yml`, `gh run watch`
_NEVER_GH = re.compile(r"^gh\s+(workflow|run|release|pr|repo)\b")
# the coverage measured, piped to a hosted service (`c8 report --reporter=text-lcov |
# coveralls`): CI's upload, as the names `coveralls` and `codecov` say
_TO_HOSTED = re.compile(r"\|\s*(?:npx\s+)?(?:coveralls|codecov)\b")
# a file of the project's packaging for a distribution (`docs/packaging/brew/deps.py`)
_PACKAGING = re.compile(r"(^|/)packaging/")
# a download from the web into the project (not an installer piped into a shell): a task
# made of it refreshes vendored data or assets (`wget -O www/static/logo.png https://...`)
FETCH = "fetch"
# `twine check dist/*`: the check of the distributions a build made, a step of that build
# (`build: pyproject-build; twine check dist/*`), alone a maintainer's check before a release
CHECKS_BUILT = "checks-built"
_FETCH = re.compile(r"^(curl|wget)\s.*\bhttps?://")
_INTO_SHELL = re.compile(r"\|\s*(sudo\s+)?(ba|z)?sh\b")
# a coverage tool's report of a run already made: `coverage report`, `nyc report`
_COVERAGE_TOOLS = ("coverage", "nyc", "c8")
_REPORTS = ("report", "html", "xml", "lcov", "json", "combine", "erase")
_COVERAGE_NAMES = frozenset({"coverage", "cov", "cover"})
_FOR_CI = frozenset({"generate", "summary", "ci"})
_COVERAGE_STEPS = frozenset({"report", "clean", "erase", "combine"})
_BENCHMARKS = frozenset({"bench", "benchmark", "benchmarks"})
_MEASURES = _BENCHMARKS | {"perf", "profile", "profiling", "flamegraph"}
# a program of the project's own run by its path (`python scripts/unasync.py --check`)
_OWN_PROGRAM = re.compile(
    r"^(?:(?:python3?|bash|sh|node|ruby)\s+)?(?:\./)?\w[\w.-]*/[\w./-]+(?:\s|$)"
)
# a line run when a condition holds: the command it runs then
_IF_THEN = re.compile(r"^if\s.+?;\s*then\s+(.+?)\s*;?\s*fi$")
# the compiler's optimized mode: `cargo test --release` releases nothing
_BUILD_MODES = frozenset({"--release", "-r", "--profile=release"})
_CHECK_OPTIONS = frozenset({"--check", "--diff", "-l", "-d", "--list-different"})
# a formatter's own short form of `--check`: `prettier -c src`
_CHECK_SHORT = {"prettier": "-c"}


@dataclass
class Task:
    """One task: the other tasks it runs first, and the command lines of its body."""

    name: str
    needs: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    # a target that makes files (`all: target/$(BINARY)`) builds, whatever its name
    makes_files: bool = False
    # the words its kind is read from when its body says nothing (its name when empty):
    # hatch's `coverage:generate-summary` is read as `generate-summary`
    label: str = ""
    # the file the Makefile's default goal makes (`bin/gh: ...`): `make` alone builds it,
    # and it has no name a person types
    file_goal: bool = False
    # the group a justfile files it under (`[group: 'check']`): its kind when neither its
    # body nor its name says one (`forbid: ./bin/forbid` checks)
    group: str = ""
    # a task the runner does not let a person call (poe's `_clean_docs`): read for the tasks
    # that run it, never offered
    private: bool = False
    # the lines the workspace's members run for it (`turbo publint` runs each member's
    # `publint`): its kind when its own words say none, never offered as its parts
    elsewhere: list[str] = field(default_factory=list)


def clean_line(line: str) -> str:
    """A body line as a person would type it: no make prefixes (``@``, ``-``, ``+``), a
    bare variable argument dropped (``ruff check $(sources)`` is ``ruff check``: the tool's
    own default); a variable inside a word is left, and keeps the line from being offered."""
    line = shell_command(line.strip().lstrip("@-+").strip())
    guarded = _IF_THEN.match(line)  # `if [ -n "$(GO_SIMD)" ]; then cd exp && go test; fi`
    line = guarded.group(1) if guarded and " else " not in guarded.group(1) else line
    line = line.replace("$(MAKE)", "make").replace("${MAKE}", "make")
    line = _PATH_PREFIX.sub(r"\1", line)  # `${PREFIX}mypy` is `mypy` from a virtualenv
    kept = line.split()[:1]  # `$CARGO test` is no `test`: it stays, and is not offered
    kept += [word for word in line.split()[1:] if not _ONLY_VARIABLE.match(word)]
    return " ".join(kept)


def without_variables(line: str) -> str:
    """Every variable a word (``${_FEATURES_${@:check-%=%}}`` is one, nested), to read the
    line's words."""
    for _ in range(3):
        line, count = VARIABLE.subn("VAR", line)
        if not count:
            break
    return line


def line_kind(line: str) -> str | None:
    """The kind of one body line, ``NEVER`` for a maintainer's step, ``REPORT`` for a
    coverage report, None when it says nothing."""
    if _NEVER_GIT.match(line) or _drives_hosted(line):
        return NEVER
    if _NEVER_WORDS.intersection(line.split()[:3]) or _PACKAGING.search(line.split()[0]):
        return NEVER
    if _FETCH.match(line) and not _INTO_SHELL.search(line):
        return FETCH
    program = words(line.split()[0].rsplit("/", 1)[-1])
    if line.split()[:2] == ["twine", "check"]:
        return CHECKS_BUILT
    if _installs_on_the_system(line) or _SHIPS.intersection(program):
        return NEVER  # `install -m755 bin/gh $(DESTDIR)...`, `./script/release --local`
    first = line.split()[:3]
    tool = next((word for word in first[:2] if word in _COVERAGE_TOOLS), None)
    if tool is not None:
        rest = line.split()[line.split().index(tool) + 1 :][:1]
        if rest and rest[0] in _REPORTS:
            return REPORT
    return classify_command(line, typed=False)


def _drives_hosted(line: str) -> bool:
    """The hosted repository's CI driven, or the coverage sent to a hosted service."""
    return bool(_NEVER_GH.match(line) or _TO_HOSTED.search(line))


def _installs_on_the_system(line: str) -> bool:
    """``install`` (the program) copies a build into the system's folders; ``cargo install
    --path .`` puts the project's own binary there."""
    first = line.split()[:3]
    return first[:1] == ["install"] or first[:2] == ["cargo", "install"] and "--path" in first


def is_checking(line: str) -> bool:
    """A formatter run that checks rather than rewrites (``black --check``, or a task
    named for it: ``make format-check``)."""
    task = line.split()[1:2] if line.split()[:1] in (["make"], ["just"]) else []
    short = _CHECK_SHORT.get(program(line))
    return any(word in _CHECK_OPTIONS or word == short for word in line.split()) or any(
        "check" in words(name) for name in task
    )


_CHECK_KINDS = frozenset({"lint", "format", "typecheck"})


class Reader:
    """The kinds of a runner's tasks, each worked out once."""

    def __init__(
        self,
        tasks: dict[str, Task],
        installs_project: bool = True,
        calls: dict[str, str] | None = None,
        own: frozenset[str] = frozenset(),
        read: Callable[[str], str | None] | None = None,
    ) -> None:
        self.tasks = tasks
        self.installs_project = installs_project
        self.own = own
        # the text of one of the project's files: a script a task runs is read for what
        # would keep the task off the sheet (`./scripts/gen-licenses.sh` downloading)
        self.read = read
        # how a line calls one of these tasks (`hatch run style:lint`) -> the task's name;
        # `pnpm lint` calls the script offered as `pnpm run lint` too
        self.calls = dict(calls or {})
        for command, name in (calls or {}).items():
            if command.split()[:2] in (["pnpm", "run"], ["yarn", "run"]):
                self.calls.setdefault(canonical(command), name)
        self._kinds: dict[str, str | None] = {}

    def called(self, line: str) -> str | None:
        """The task a body line runs through the runner (``make lint``, ``hatch run
        style:lint --fix``), its own kind being known better than its name's."""
        # but a `run` task runs the command it is given: `just run black .` formats
        found = [
            (len(command), name)
            for command, name in self.calls.items()
            if line == command or line.startswith(command + " ") and name != "run"
        ]
        # the longest spelling: `task lint` calls `lint`, not the bare `task`
        return max(found)[1] if found else None

    def body_kinds(self, name: str, depth: int = 0) -> list[tuple[str, str]]:
        """(kind, line) of every command the task and the tasks it needs run."""
        task = self.tasks.get(name)
        if task is None or depth > MAX_DEPTH:
            return []
        # a target this reader has no body for (made by a catch-all `%:` rule) is read by
        # its name for a task named for nothing (`all: vet test`)
        unnamed = classify_name(task.label or name) is None
        found = [(kind, "") for kind in self._need_kinds(task, unnamed, depth)]
        for line in task.lines[:MAX_BODY_LINES]:
            cleaned = clean_line(line)
            kind = self.body_line_kind(cleaned, depth)
            if kind:
                found.append((kind, cleaned))
        return found

    def _need_kinds(self, task: Task, unnamed: bool, depth: int) -> list[str]:
        """The kinds of the tasks ``task`` needs first, but a set-up: installing first says
        nothing of what the task runs."""
        kinds = []
        for need in task.needs:
            kind = self._need_kind(need, unnamed, depth)
            if kind and kind != "setup":
                kinds.append(kind)
        return kinds

    def _need_kind(self, need: str, unnamed: bool, depth: int) -> str | None:
        """A needed task's kind: a known task's own, else its name's for a task ``unnamed``
        (made by a catch-all rule); a file it makes (``bin/gh``, ``app.o``) says nothing."""
        if need in self.tasks:
            return self.kind(need, depth + 1)
        plain = unnamed and "." not in need and "/" not in need
        return classify_name(need) if plain else None

    def body_line_kind(self, cleaned: str, depth: int = 0) -> str | None:
        """The kind of a cleaned body line: the task it calls through the runner, else the
        line's own; ``NEVER`` for one installing the release or running a script that
        ships."""
        own = self.called(cleaned)
        if own is not None:
            kind = self.kind(own, depth + 1)
        else:
            kind = line_kind(without_variables(cleaned)) if cleaned else None
        if kind == "setup" and installs_own(cleaned.split(), self.own):
            return NEVER  # `install: cargo install -f just` installs the release
        if kind is None and cleaned and self._script_ships(cleaned):
            return NEVER
        return kind

    def _script_ships(self, line: str) -> bool:
        """Whether the line runs a script of the project's (``./scripts/x.sh``) that
        releases, drives CI or refreshes downloaded data."""
        path = line.split()[0].removeprefix("./")
        if self.read is None or "/" not in path or path.startswith(("/", "$", "~", ".")):
            return False
        text = self.read(path)
        if not text or not text.startswith("#!"):
            return False
        lines = [raw.strip() for raw in text.splitlines()[1:MAX_SCRIPT_LINES]]
        found = {line_kind(line) for line in lines if line and not line.startswith("#")}
        return _is_never(None, {kind for kind in found if kind is not None})

    def kind(self, name: str, depth: int = 0) -> str | None:
        if name not in self._kinds:
            self._kinds[name] = None  # a task that needs itself says nothing more
            self._kinds[name] = self._kind(name, depth)
        return self._kinds[name]

    def _kind(self, name: str, depth: int) -> str | None:
        task = self.tasks.get(name)
        if self._named_never(name, task, depth):
            return NEVER
        if any(word in _MEASURES for word in words(name)):
            return self._measure_kind(name, depth)
        named = classify_name(task.label if task and task.label else name)
        puts = self._puts_on_system(name, named)
        if puts:
            named = None  # `install: go install ./cmd/task` builds the program and puts it
        found = self.body_kinds(name, depth)
        kinds = {kind for kind, _ in found}
        if _is_never(named, kinds):
            return NEVER
        kinds -= {REPORT, FETCH, CHECKS_BUILT}
        if kinds:
            return body_kind(named, kinds, found)
        if found:  # a coverage report, nothing else
            return "test" if _shows_coverage(name) or _coverage_step(name, task) else None
        members = self._members_kind(named, task)
        return members or self._kind_without_body(name, task, named, puts, depth)

    def _members_kind(self, named: str | None, task: Task | None) -> str | None:
        """The kind of the lines the members run for a task handing its name to them."""
        lines = [clean_line(line) for line in task.elsewhere] if task else []
        found = [(kind, line) for line in lines if line and (kind := line_kind(line))]
        kinds = {kind for kind, _ in found} - {REPORT, FETCH, CHECKS_BUILT}
        if not kinds or _is_never(named, kinds):
            return None
        return body_kind(named, kinds, found)

    def _measure_kind(self, name: str, depth: int) -> str | None:
        """A benchmark is run like the tests, to see a change's cost (``make bench``,
        ``pnpm run bench:compare``), but not each of its parts (``bench-child``); a
        profile or a flame graph is a one-off investigation."""
        if not _is_benchmark(name):
            return None
        kinds = {kind for kind, _ in self.body_kinds(name, depth)}
        return NEVER if NEVER in kinds else "test"

    def _named_never(self, name: str, task: Task | None, depth: int) -> bool:
        """A maintainer's task by its name (but a ``test-release`` of the compiler's
        optimized mode), or by the justfile group it is filed under."""
        if is_never(name) and not self._in_release_mode(name, depth):
            return True
        return task is not None and bool(task.group) and is_never(task.group)

    def _puts_on_system(self, name: str, named: str | None) -> bool:
        """An ``install`` task named a set-up that puts the built program on the system,
        where the runner's install does not set the project up (a Go or C Makefile's); an
        ``install-tools`` or ``linters-install`` installs what the project is developed with."""
        installs = named == "setup" and not self.installs_project and "install" in words(name)
        return installs and _only_installs(name)

    def _kind_without_body(
        self, name: str, task: Task | None, named: str | None, puts: bool, depth: int
    ) -> str | None:
        """The kind of a task whose body runs nothing of a kind: ``NEVER`` for one only
        putting a build on the system, else its name's, its check-only twin's, or its
        justfile group's."""
        if puts and task is not None and task.makes_files and _only_installs(name):
            return NEVER  # `install: $(INSTALL)-native` puts a build on the system
        grouped = classify_name(task.group) if task and task.group else None
        return self._named_kind(name, named) or self._checked_as(name, depth) or grouped

    def _in_release_mode(self, name: str, depth: int) -> bool:
        """``test-release: cargo test --release``: the tests or a build with the compiler's
        optimizations, its name's ``release`` releasing nothing."""
        if is_never(" ".join(w for w in words(name) if w != "release")):
            return False
        found = self.body_kinds(name, depth)
        lines = [line for _, line in found]
        modes = all(set(line.split()) & _BUILD_MODES for line in lines)
        return bool(found) and modes and {kind for kind, _ in found} <= {"test", "build"}

    def _checked_as(self, name: str, depth: int) -> str | None:
        """The kind of a task's check-only twin (``misspell`` beside ``misspell-check``,
        ``fmt`` beside ``fmt-check``): the task is its writing form, of the same kind."""
        for twin in (f"{name}-check", f"{name}_check", f"{name}:check", f"check-{name}"):
            if twin in self.tasks and twin != name:
                kind = self.kind(twin, depth + 1)
                if kind in _CHECK_KINDS:
                    return kind
        return None

    def _named_kind(self, name: str, named: str | None) -> str | None:
        """The kind of a task whose body says nothing: its name's, or a build when it makes
        files; an ``install`` that puts a program on the system sets nothing up."""
        if self._puts_on_system(name, named):
            named = None
        task = self.tasks.get(name)
        return "build" if named is None and task and task.makes_files else named


def _is_benchmark(name: str) -> bool:
    found = set(words(name))
    return bool(found & _BENCHMARKS) and found <= _BENCHMARKS | {"compare"}


def _shows_coverage(name: str) -> bool:
    """A task named for the coverage (``coverage-report``, ``cov``) that only reports it
    shows a person what the tests they ran left uncovered: part of testing. One that
    generates a summary or a file for CI (``coverage:generate-summary``) is CI's."""
    found = set(words(name))
    return bool(found & _COVERAGE_NAMES) and not found & _FOR_CI


def _coverage_step(name: str, task: Task | None) -> bool:
    """A task named for the coverage step that is all it runs (tox's ``report: coverage
    report`` and ``clean: coverage erase`` around the tests of its env_list)."""
    lines = task.lines if task else []
    named = set(words(name)) <= _COVERAGE_STEPS
    return named and bool(lines) and all(line_kind(line) == REPORT for line in lines)


def _is_never(named: str | None, kinds: set[str]) -> bool:
    """A body that ships, refreshes downloaded data, or checks distributions it did not
    build (``twine check dist/*`` alone is the last step before an upload)."""
    checks_only = CHECKS_BUILT in kinds and "build" not in kinds
    return NEVER in kinds or checks_only or FETCH in kinds and _refreshes(named, kinds)


def _refreshes(named: str | None, kinds: set[str]) -> bool:
    """A task downloading into the project and doing nothing else of note (but formatting
    what it wrote), not named for a set-up or the tests: it refreshes vendored data or
    assets, a maintainer's chore (a build fetching a dependency first is still a build)."""
    return named not in ("setup", "test") and not kinds - {FETCH, "format"}


# what a task named `install-X` installs to work on the project: `install-tools`
_INSTALLED_FOR_WORK = frozenset({"setup", "bootstrap", "deps", "init", "develop", "tools", "dev",
                                 "hooks", "linters", "dependencies", "requirements"})  # fmt: skip


def _only_installs(name: str) -> bool:
    """``install``, ``install-universal``: a name saying nothing but installing (an
    ``install-tools`` sets up the tools)."""
    return not _INSTALLED_FOR_WORK.intersection(words(name))


def watches(line: str) -> bool:
    """A test runner left watching the files (``vitest``, ``jest --watch``): a
    development loop, not a test run."""
    found = line.split()
    return "--watch" in found or found[-1:] == ["vitest"] or found[-2:] == ["vitest", "watch"]


def body_kind(named: str | None, kinds: set[str], found: list[tuple[str, str]]) -> str:
    """The kind of a task whose body runs commands of ``kinds``: tests with checks are
    tests; checks of several kinds are a lint, unless every formatter rewrites (a fixer)
    or the name says one of them;
    a build, run or set-up task keeps its name (a build's ``tsc`` is no type check)."""
    if named in ("build", "run", "setup") and "test" not in kinds:
        return _named_first(named, kinds)
    if named == "run" and _only_watches(kinds, found):
        return "run"  # `dev: vitest`
    if named == "typecheck" and kinds <= {"test", "typecheck"}:
        return named  # `typing-pyright: pytest tests/test_pyright.py` tests the types
    if "test" in kinds:
        return "test"
    if len(kinds) == 1:
        return kinds.pop()
    if kinds <= {"lint", "format", "typecheck"}:
        return _checks_kind(named, kinds, found)
    if named in kinds:
        return named
    checks = kinds - {"setup"}  # `static-psalm: composer install; psalm.phar`: a check
    if len(checks) == 1 and checks <= _CHECK_KINDS:
        return checks.pop()
    return next(kind for kind in ("setup", "build", "run", "lint") if kind in kinds)


def _only_watches(kinds: set[str], found: list[tuple[str, str]]) -> bool:
    """A body of tests only, each runner left watching the files: a development loop."""
    tests = [line for kind, line in found if kind == "test" and line]
    return kinds == {"test"} and bool(tests) and all(watches(t) for t in tests)


def _checks_kind(named: str | None, kinds: set[str], found: list[tuple[str, str]]) -> str:
    """The kind of a body of checks of several kinds: a fixer when every formatter
    rewrites, else the one the name says, else a lint."""
    formatters = [line for kind, line in found if kind == "format" and line]
    writes = formatters and not any(is_checking(line) for line in formatters)
    if writes:
        return "format"
    # `test-types: tsc && attw --pack .` type checks, as its name says
    return named if named is not None and named in kinds else "lint"


def _named_first(named: str, kinds: set[str]) -> str:
    """A build, run or set-up task's name says its kind, but for docs that are served
    (``docs: mkdocs serve``)."""
    return "run" if named == "build" and kinds == {"run"} else named


def offer_runner_tasks(
    sheet: FactSheet,
    tasks: dict[str, Task],
    command: Callable[[str], str],
    source: str,
    *,
    default: str | None = None,
    bare: str | None = None,
    installs_project: bool = True,
    parts: bool = True,
    read: Callable[[str], str | None] | None = None,
) -> None:
    """Offer the tasks by what they run: ``bare`` (``make``) first for the ``default``
    task, then the tasks the default runs, then the others by their number of words
    (``test``, then ``test-node``, then ``test-node:unit``), in the file's order; then,
    with ``parts``, for each task running tools of several kinds, each tool's line (not
    for a member's tasks: its lines run in its folder)."""
    calls = {command(name): name for name in tasks}
    reader = Reader(tasks, installs_project, calls, sheet.own_packages, read)
    bare = _offer_bare(sheet, reader, default, bare, source)
    ranked: list[tuple[int, bool, int, str]] = []
    close = closure(tasks, default) if default else set()
    for index, name in enumerate(tasks):
        # the default's tasks, then the fewer words the sooner: `test-node` runs the
        # `test-node:unit`, `test-node:interfaces:bdd`... that follow it; the tests'
        # coverage and the benchmarks after the tests
        rank = 0 if name in close else len(words(name))
        later = _shows_coverage(name) or _is_benchmark(name)
        ranked.append((rank, later, index, name))
    hidden = _same_as_bare(tasks, default) if bare else set()
    shown: list[str] = []
    for *_, name in sorted(ranked):
        kind = reader.kind(name)
        if _not_typed(tasks[name]):
            continue
        if kind == NEVER:
            sheet.withhold(command(name))  # CI's `hatch -v run docs:ci-build dev`, too
        elif kind in sheet.commands and name not in hidden:
            sheet.add(kind, command(name), source)
            shown.append(name)
    for name in shown if parts else []:
        found = reader.body_kinds(name) + _own_checkers(reader, name)
        offer_parts(sheet, _as_tasks(reader, command, found), source)


def _not_typed(task: Task) -> bool:
    """A task no one calls by its name: the file ``make`` alone builds, a pattern
    (``check-%``), a private task of the runner's."""
    return task.file_goal or task.private or task.name.endswith("%")


def _own_checkers(reader: Reader, name: str) -> list[tuple[str, str]]:
    """The project's own programs a check runs, whose lines say no kind (httpcore's
    ``scripts/check`` runs ``python scripts/unasync.py --check``): checks of the task's
    kind, a person runs each alone when it fails."""
    kind = reader.kind(name)
    if kind not in ONE_BY_ONE:
        return []
    cleaned = (clean_line(line) for line in reader.tasks[name].lines[:MAX_BODY_LINES])
    return [
        (kind, line)
        for line in cleaned
        if _OWN_PROGRAM.match(line)
        and reader.body_line_kind(line) is None
        and not is_never_line(line)  # `shell/update.sh --check` updates
    ]


def _as_tasks(
    reader: Reader, command: Callable[[str], str], found: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    """The parts of an aggregate, a bare call of another task (``pnpm lint``) spelt as
    that task is offered (``pnpm run lint``)."""
    spelt = []
    for kind, line in found:
        called = reader.called(line) if line else None
        bare = called is not None and canonical(line) == canonical(command(called))
        spelt.append((kind, command(called) if called is not None and bare else line))
    return spelt


def _offer_bare(
    sheet: FactSheet, reader: Reader, default: str | None, bare: str | None, source: str
) -> str | None:
    """Offer ``bare`` (``make``) when the default task runs others; None when it does not
    (``make`` runs `test`: ``make test`` says it in words)."""
    if default is None or default not in reader.tasks or not _is_composite(reader.tasks[default]):
        return None
    kind = reader.kind(default)
    if bare and kind in sheet.commands:
        sheet.add(kind, bare, source)
    return bare


def _is_composite(task: Task) -> bool:
    """A default task that runs others (``all: lint test``) or is named for being one."""
    return any(task.needs) or task.name in ("all", "default") or task.file_goal


def _same_as_bare(tasks: dict[str, Task], default: str | None) -> set[str]:
    """The default task, and the one it only runs (``default: all``), are the bare command."""
    task = tasks.get(default or "")
    if task is None:
        return set()
    if not task.lines and len(task.needs) == 1:
        return {task.name, task.needs[0]}
    return {task.name}


def closure(tasks: dict[str, Task], name: str) -> set[str]:
    seen: set[str] = set()
    todo = [name]
    while todo and len(seen) < 200:
        current = todo.pop()
        if current in seen or current not in tasks:
            continue
        seen.add(current)
        todo.extend(tasks[current].needs)
    return seen
