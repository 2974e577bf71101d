"""The command line and git as the tests run them: one set of helpers for every test file.

:func:`run_cli` runs `serena` in this process (the console script's own ``main`` under
click's CliRunner): the same output, errors and exit status as the installed command, in
milliseconds instead of the 0.2-0.5 s a new Python process costs. It isolates what a
process would: the working folder, the environment and the logging set-up are put back
afterwards; an exception the command line does not turn into an error line is raised in
the test instead of being hidden in a result. :func:`run_cli_process` runs the real
console script in a subprocess, for tests of what only a process has: pipes and
terminals, signals, the cold start, an environment of its own, a crash.
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

from click.testing import CliRunner

SERENA = [sys.executable, "-m", "serena_memory.cli"]

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Dev",
    "GIT_AUTHOR_EMAIL": "dev@example.com",
    "GIT_COMMITTER_NAME": "Dev",
    "GIT_COMMITTER_EMAIL": "dev@example.com",
}
"""Who the tests' commits are by, whatever the machine's git configuration says."""

_CLI_LOGGERS = ("serena_memory.history",)  # the loggers `main` sets up


@contextlib.contextmanager
def _as_a_process(cwd: Path | None, env: Mapping[str, str | None] | None) -> Iterator[None]:
    """What a new process would not leak back: its folder, environment and loggers."""
    before_cwd = os.getcwd()
    before_env = dict(os.environ)
    loggers = [logging.getLogger(name) for name in _CLI_LOGGERS]
    before_loggers = [(lg.propagate, list(lg.handlers)) for lg in loggers]
    try:
        for key, value in (env or {}).items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        if cwd is not None:
            os.chdir(cwd)
        yield
    finally:
        os.chdir(before_cwd)
        for key in set(os.environ) - set(before_env):
            del os.environ[key]
        for key, value in before_env.items():
            if os.environ.get(key) != value:
                os.environ[key] = value
        for lg, (propagate, handlers) in zip(loggers, before_loggers, strict=True):
            lg.propagate = propagate
            lg.handlers[:] = handlers


def _text(data: bytes, errors: str) -> str:
    """Bytes decoded as ``subprocess.run(text=True)`` decodes a pipe (universal newlines)."""
    return data.decode("utf-8", errors).replace("\r\n", "\n").replace("\r", "\n")


def run_cli(
    *args: str,
    cwd: Path | None = None,
    input: str | bytes | None = None,
    env: Mapping[str, str | None] | None = None,
    errors: str = "strict",
    check: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run `serena ARGS` in this process; the result reads like a finished subprocess's.
    ``env`` changes the environment for this run (None removes a variable); ``errors``
    decodes the output as a pipe's would be with it; ``check`` fails the test unless the
    status is 0."""
    from serena_memory.cli import main

    runner = CliRunner()
    with _as_a_process(cwd, env), runner.isolation(input=input) as (out, err, _):
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
    done = subprocess.CompletedProcess(
        ["serena", *args], code, _text(out.getvalue(), errors), _text(err.getvalue(), errors)
    )
    if check:
        assert done.returncode == 0, done.stderr
    return done


def run_cli_process(
    *args: str,
    cwd: Path | None = None,
    input: str | None = None,
    env: Mapping[str, str | None] | None = None,
    errors: str = "strict",
    timeout: float = 120,
    check: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run the real `serena` console script in a subprocess of its own (the arguments as
    for :func:`run_cli`)."""
    done = subprocess.run(
        [*SERENA, *args],
        cwd=cwd,
        input=input,
        capture_output=True,
        text=True,
        errors=errors,
        env=_environment(env),
        timeout=timeout,
    )
    if check:
        assert done.returncode == 0, done.stderr
    return done


def _environment(changes: Mapping[str, str | None] | None) -> dict[str, str]:
    """This process's environment with ``changes`` made (None removes a variable)."""
    env = dict(os.environ)
    for key, value in (changes or {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def git(
    *args: str,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    check: bool = True,
) -> subprocess.CompletedProcess[str]:
    """Run git with the tests' identity (:data:`GIT_IDENTITY`); a failure fails the test
    unless ``check`` is false."""
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        env={**os.environ, **GIT_IDENTITY, **(env or {})},
        capture_output=True,
        text=True,
        check=check,
        timeout=120,
    )
