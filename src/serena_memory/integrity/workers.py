"""Work split over forked worker processes, for a check of many memories on several CPUs.

Only for a process that runs no threads (forking one that does is unsafe): the command
line's check. Each worker sends its result back pickled through a pipe; a worker that
fails has its chunk done again in this process, so a result never depends on a worker.
"""

from __future__ import annotations

import functools
import os
import pickle
from collections.abc import Callable
from typing import TypeVar, cast

T = TypeVar("T")


class ForkedJob:
    """``work`` started now in one forked worker process, its result read later
    (:meth:`result`) while this process does other work, as :func:`forked` does for
    chunks; the same rule holds: only for a process that runs no threads. The result comes
    back pickled through a pipe; None stands for a worker that failed, so the caller does
    the work itself."""

    def __init__(self, work: Callable[[], object]) -> None:
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            status = 1
            try:
                os.close(read_end)
                with os.fdopen(write_end, "wb") as out:
                    out.write(pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL))
                status = 0
            finally:
                os._exit(status)
        os.close(write_end)
        self._pid: int | None = pid
        self._read = read_end

    def result(self) -> object:
        """What ``work`` returned, once (the caller checks its type, as for anything read
        from another process); None when the worker failed or was discarded."""
        if self._pid is None:
            return None
        with os.fdopen(self._read, "rb") as source:
            data = source.read()
        _pid, status = os.waitpid(self._pid, 0)
        self._pid = None
        return pickle.loads(data) if status == 0 and data else None

    def discard(self) -> None:
        """End the worker: its result is not wanted."""
        if self._pid is not None:
            os.kill(self._pid, 9)  # SIGKILL; the pid is ours until it is waited for
            os.waitpid(self._pid, 0)
            self._pid = None
            os.close(self._read)


def forked(
    chunks: list[list[str]],
    part: Callable[[list[str]], T],
    meanwhile: Callable[[], object] | None = None,
) -> list[T]:
    """``part`` of each chunk, in order: every chunk but the first in a forked worker, the
    first in this process, after ``meanwhile`` (work of this process the workers need not
    share, done while they run). ``part`` never returns None (None is a failed worker)."""
    workers = [(ForkedJob(functools.partial(part, names)), names) for names in chunks[1:]]
    if meanwhile is not None:
        meanwhile()
    results = [part(chunks[0])] if chunks else []
    for job, names in workers:
        found = job.result()
        results.append(cast(T, found) if found is not None else part(names))
    return results
