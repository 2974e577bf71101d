"""The parts of an aggregate task offered beside it: each tool of a task running several
kinds or several checkers, each run of a test task running one test command with other
options, and each run of a task's command in a folder of its own."""

from __future__ import annotations

import re
from collections.abc import Iterable

from serena_memory.agent.project_facts.commands import MAX_COMMAND_CHARS, in_folder
from serena_memory.agent.project_facts.sheet import FactSheet

# the kinds whose tools a person runs one by one (a failing type checker, alone)
ONE_BY_ONE = frozenset({"format", "typecheck", "lint"})
# make's, just's, hatch's (`{args}`, `{env:NAME}`) and tox's (`{posargs}`) variables
VARIABLES = (
    r"\$\([^()]*\)|\$\{[^{}]*\}|\{\{[^{}]*\}\}|\{(?:args|env|root|home|posargs|toxinidir|"
    r"tox_root|envpython|envbindir|envtmpdir|env_tmp_dir|envsitepackagesdir|tty)\b[^{}]*\}"
)
VARIABLE = re.compile(VARIABLES)
# the toolchains whose test command builds the code it tests, with the options given
_TOOLCHAINS = frozenset({"cargo", "go", "dotnet", "swift", "zig", "mix"})
# a line whose output is redirected, piped or given a fallback: a script's plumbing
_SHELL_PLUMBING = re.compile(r"\s(\|\|?|&>|\d?>>?)\s|\s\d?>&\d")


def offer_parts(sheet: FactSheet, found: Iterable[tuple[str, str]], source: str) -> None:
    """Each line of an aggregate, under its own kind, when it can be typed as it stands; a
    fixer running several formatters (``fmt: cargo fmt; shfmt --write *.sh``) gives each
    formatter's writing form, which a check elsewhere (``shfmt --diff``) does not say, and
    a check running several checkers (``type: tsd && tsc``) each checker, as each checks
    something of its own (the declarations, the code)."""
    # a build checking what it built (`twine check dist/*`) or a test run and its
    # coverage report are one task of one kind, with no parts to show
    lines = [(kind, line) for kind, line in found if line and kind in sheet.commands]
    kinds = {kind for kind, _ in lines}
    checks = kinds <= ONE_BY_ONE | {"build"}
    checkers = {line.split()[0] for _, line in lines} if len(kinds) == 1 and checks else set()
    if len(kinds) < 2 and len(checkers) < 2 and not _test_variants(lines):
        _offer_elsewhere(sheet, lines, source)
        return
    for kind, line in lines:
        typed = not VARIABLE.search(line) and len(line) <= MAX_COMMAND_CHARS
        plain = not _SHELL_PLUMBING.search(line)  # `bundle install -j8 > /dev/null || ...`
        if typed and plain:
            sheet.add(kind, line, source)


def _offer_elsewhere(sheet: FactSheet, lines: list[tuple[str, str]], source: str) -> None:
    """A task running its command here and then in a folder of its own (``lint:
    golangci-lint run ./...; cd exp/simd && golangci-lint run ./``): the folder's run is
    one the first does not reach, and a person reruns it alone where it failed."""
    here = [line for _, line in lines if in_folder(line) is None]
    for kind, line in lines if here else []:
        if in_folder(line) is not None and not VARIABLE.search(line):
            sheet.add(kind, line, source)


def _test_variants(lines: list[tuple[str, str]]) -> bool:
    """A compiled project's test task running its toolchain's tests over and over with
    other build options (``cargo test -p insta --all-features``, then
    ``--no-default-features``): each run tests a build of its own, and a person reruns the
    one that failed alone (a JavaScript runner's projects, `jest --selectProjects unit`
    then `e2e`, are one suite in parts)."""
    heads = {tuple(line.split()[:2]) for _, line in lines}
    distinct = {line for _, line in lines}
    compiled = all(head[0] in _TOOLCHAINS for head in heads)
    one_test = {kind for kind, _ in lines} == {"test"} and len(heads) == 1
    return one_test and compiled and len(distinct) > 1
