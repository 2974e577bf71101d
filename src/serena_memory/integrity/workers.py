"""Work split over forked worker processes, for a check of many memories on several CPUs.

Only for a process that runs no threads (forking one that does is unsafe): the command
line's check. Each worker sends its result back pickled through a pipe; a worker that
fails has its chunk done again in this process, so a result never depends on a worker.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def forked(
    chunks: list[list[str]],
    part: Callable[[list[str]], T],
    meanwhile: Callable[[], object] | None = None,
) -> list[T]:
    """``part`` of each chunk, in order: every chunk but the first in a forked worker, the
    first in this process, after ``meanwhile`` (work of this process the workers need not
    share, done while they run)."""
    workers = []
    for names in chunks[1:]:
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            status = 1
            try:
                os.close(read_end)
                with os.fdopen(write_end, "wb") as out:
                    out.write(pickle.dumps(part(names), protocol=pickle.HIGHEST_PROTOCOL))
                status = 0
            finally:
                os._exit(status)
        os.close(write_end)
        workers.append((pid, read_end, names))
    if meanwhile is not None:
        meanwhile()
    results = [part(chunks[0])] if chunks else []
    for pid, read_end, names in workers:
        with os.fdopen(read_end, "rb") as source:
            data = source.read()
        _pid, status = os.waitpid(pid, 0)
        results.append(pickle.loads(data) if status == 0 and data else part(names))
    return results
