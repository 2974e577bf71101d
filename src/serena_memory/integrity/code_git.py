"""git, run for the code checks so that a hostile repository can run nothing: its command
hooks are turned off (no fsmonitor, no external diff, no text conversion, no automatic
maintenance), reads take no lock, and the caller's GIT_DIR and similar variables are
ignored. A command either gives its output or raises :class:`GitUnavailable` (git missing,
no work tree, a refusal, a timeout); :class:`GitJob` runs one in the background while this
process does other work.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time

GIT_TIMEOUT = 60.0

_SAFE_GIT = (
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.untrackedCache=false",
    "-c",
    "core.quotePath=false",
    "-c",
    "diff.external=",
    "-c",
    "gc.auto=0",
    "-c",
    "maintenance.auto=false",
)


class GitUnavailable(Exception):
    """git is not installed, the folder is no work tree, or git refused it."""


def _git_env() -> dict[str, str]:
    env = dict(os.environ)
    env["LC_ALL"] = "C"
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["GIT_OPTIONAL_LOCKS"] = "0"  # a read never takes the index lock
    for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_EXTERNAL_DIFF"):
        env.pop(key, None)
    return env


def run_git(
    root: str, *args: str, timeout: float = GIT_TIMEOUT, data: bytes | None = None
) -> bytes:
    """git's output for ``args`` run in ``root``; GitUnavailable when it fails."""
    try:
        result = subprocess.run(
            ["git", *_SAFE_GIT, *args],
            cwd=root,
            env=_git_env(),
            input=data,
            capture_output=True,
            timeout=timeout,
            stdin=None if data is not None else subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        raise GitUnavailable(f"git did not finish within {int(timeout)} seconds") from None
    except (FileNotFoundError, OSError) as exc:
        raise GitUnavailable(str(exc)) from None
    if result.returncode != 0:
        raise GitUnavailable(result.stderr.decode("utf-8", "replace").strip())
    return result.stdout


class GitJob:
    """A git command started now whose output is read later (:meth:`result`): it runs
    while this process reads the memories. Its output goes to an unnamed temporary file,
    not a pipe, so git never waits for a reader, and no thread is needed, so the process
    may still fork workers while it runs."""

    def __init__(self, root: str, *args: str, timeout: float = GIT_TIMEOUT) -> None:
        self._timeout = timeout
        self._started = time.monotonic()
        self._done: bytes | GitUnavailable | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._out = tempfile.TemporaryFile()  # noqa: SIM115 - closed in _finish
        self._err = tempfile.TemporaryFile()  # noqa: SIM115 - closed in _finish
        try:
            self._proc = subprocess.Popen(
                ["git", *_SAFE_GIT, *args],
                cwd=root,
                env=_git_env(),
                stdin=subprocess.DEVNULL,
                stdout=self._out,
                stderr=self._err,
            )
        except (FileNotFoundError, OSError) as exc:
            self._finish(GitUnavailable(str(exc)))

    def _finish(self, done: bytes | GitUnavailable) -> None:
        self._done = done
        self._out.close()
        self._err.close()

    def result(self) -> bytes:
        """git's output; GitUnavailable when it failed or did not finish in time."""
        if self._done is None:
            assert self._proc is not None
            left = max(0.0, self._timeout - (time.monotonic() - self._started))
            try:
                status = self._proc.wait(timeout=left)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
                self._finish(
                    GitUnavailable(f"git did not finish within {int(self._timeout)} seconds")
                )
            else:
                self._out.seek(0)
                self._err.seek(0)
                if status != 0:
                    message = self._err.read().decode("utf-8", "replace").strip()
                    self._finish(GitUnavailable(message))
                else:
                    self._finish(self._out.read())
        if isinstance(self._done, GitUnavailable):
            raise self._done
        assert self._done is not None
        return self._done

    def discard(self) -> None:
        """Stop waiting for the output: git is ended if it still runs."""
        if self._done is None and self._proc is not None:
            if self._proc.poll() is None:
                self._proc.kill()
            self._proc.wait()
            self._finish(b"")
