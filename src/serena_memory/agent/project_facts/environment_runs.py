"""What a tox or nox command line runs: the environments it names (``tox -e lint``), the
default ones (``tox``, ``tox -p auto``), or the command it hands an environment of no known
kind (``tox -e envname -- pytest -k x``)."""

from __future__ import annotations

from serena_memory.agent.project_facts.names import classify_name

# tox's subcommands that show or set up its configuration rather than run an environment
_TOX_INFO = frozenset({"list", "l", "config", "c", "depends", "de", "quickstart", "q",
                       "legacy", "le"})  # fmt: skip
# options that change how the default environments run, not which: `tox -p auto`, `tox -r`
_RUN_OPTIONS = frozenset({"-p", "--parallel", "-v", "-vv", "-vvv", "-q", "-r", "--recreate",
                          "--parallel-live", "-o"})  # fmt: skip
_PARALLEL_VALUES = frozenset({"auto", "all"})
_CHECKS = frozenset({"test", "lint", "format", "typecheck"})
# the options naming the environments or sessions to run
_SELECTS = frozenset({"-e", "-f", "-s", "--session", "--sessions", "-m"})


def environment_kind(words: list[str]) -> str | None:
    """``tox``, ``tox run -e typing``, ``tox -f lint``, ``nox -s tests``: the kind of the
    environments named, the tests when none is (``tox run -- --run-integration`` hands
    the default environment's tests their options after ``--``, ``tox -p auto`` runs them
    side by side)."""
    rest, handed = _options(words)
    if words[0] == "tox" and _runs_none(rest):
        return None  # `tox list` shows the environments, `--notest` makes them: none runs
    names = next((v for o, v in zip(rest, rest[1:], strict=False) if o in _SELECTS), None)
    if names is not None:
        return _named_kind(names) or _handed_kind(words[0], handed)
    rest = _without_run_options(rest) if words[0] == "tox" else rest
    return "test" if not any(w.startswith("-") for w in rest[:1]) else None


def _options(words: list[str]) -> tuple[list[str], list[str]]:
    """(the runner's own words, those it hands on after ``--``), the next command of a
    chain left out."""
    rest = words[2:] if len(words) > 1 and words[1] in ("run", "r") else words[1:]
    handed = rest[rest.index("--") + 1 :] if "--" in rest else []
    for end in ("--", "&&"):
        rest = rest[: rest.index(end)] if end in rest else rest
    return rest, handed


def _runs_none(rest: list[str]) -> bool:
    return bool(rest[:1]) and rest[0] in _TOX_INFO or "--notest" in rest


def _named_kind(names: str) -> str | None:
    """The kind of the environments named: ``tox -e lint,docs`` checks, one check beside
    builds (the docs) being its kind."""
    kinds = {classify_name(name) for name in names.split(",")}
    checks = kinds & _CHECKS
    if len(kinds) == 1:
        return kinds.pop()
    return checks.pop() if len(checks) == 1 and kinds <= checks | {"build"} else None


def _without_run_options(rest: list[str]) -> list[str]:
    """The words after the options that only say how the default environments run
    (``-p auto``, ``-r``, ``-v``)."""
    while rest and rest[0] in _RUN_OPTIONS:
        parallel = rest[0] in ("-p", "--parallel")
        rest = rest[1:]
        if parallel and rest and (rest[0] in _PARALLEL_VALUES or rest[0].isdigit()):
            rest = rest[1:]
    return rest


def _handed_kind(runner: str, handed: list[str]) -> str | None:
    """The kind of the command a tox environment of no known name is handed after ``--``
    (its ``{posargs:pytest}``: ``tox -e envname -- pytest -k test_x`` tests)."""
    from serena_memory.agent.project_facts.commands import classify_command

    if runner != "tox" or not handed or handed[0].startswith("-"):
        return None
    kind = classify_command(" ".join(handed))
    return kind if kind in _CHECKS else None


def sets_up(words: list[str]) -> str | None:
    """``tox devenv``, ``tox --devenv venv``: the contributor's virtualenv made."""
    return "setup"
