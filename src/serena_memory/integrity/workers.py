"""Work split over forked worker processes, for a check of many memories on several CPUs,
and the cycle collector paused while a check runs (:func:`collector_paused`).

Forking is only for a process that runs no threads (forking one that does is unsafe):
the command line's check. Each worker sends its result back pickled through a pipe; a
worker that fails has its chunk done again in this process, so a result never depends on
a worker.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import pickle
import signal
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TypeVar, cast

if TYPE_CHECKING:
    from serena_memory.integrity.listing import MemoryListingReader

T = TypeVar("T")
PARALLEL_MIN_PER_JOB = 400  # below this many memories per worker, forking costs more


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector off while a check runs: the check makes no reference
    cycles, and its many small objects (one per finding and reference) would otherwise
    have the collector walk every live object again and again (a fifth of a cold check)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def can_fork() -> bool:
    import threading

    return hasattr(os, "fork") and threading.active_count() == 1


def chunks_by_size(
    listing: MemoryListingReader, jobs: int, names: list[str] | None = None
) -> list[list[str]]:
    """Contiguous slices of the sorted names (all of them, or ``names``) with about the
    same number of bytes each, so that merging the partial reports in order gives the
    serial report."""
    names = listing.names if names is None else names
    sizes = []
    for name in names:
        try:
            sizes.append(os.path.getsize(listing.paths[name]))
        except OSError:
            sizes.append(0)
    total = sum(sizes) or 1
    chunks: list[list[str]] = [[] for _ in range(jobs)]
    done = 0
    for name, size in zip(names, sizes, strict=True):
        chunks[min(jobs - 1, done * jobs // total)].append(name)
        done += size
    return [c for c in chunks if c]


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
                with contextlib.suppress(OSError):
                    os.setpgid(0, 0)  # its own group: the programs it starts end with it
                os.close(read_end)
                with os.fdopen(write_end, "wb") as out:
                    out.write(pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL))
                status = 0
            finally:
                os._exit(status)
        os.close(write_end)
        with contextlib.suppress(OSError):  # set here too: the child may not have run yet
            os.setpgid(pid, pid)
        self._pid: int | None = pid
        self._read = read_end
        self._ender = weakref.finalize(self, _end, pid, read_end, os.getpid())

    def result(self) -> object:
        """What ``work`` returned, once (the caller checks its type, as for anything read
        from another process); None when the worker failed or was discarded."""
        if self._pid is None:
            return None
        self._ender.detach()
        with os.fdopen(self._read, "rb") as source:
            data = source.read()
        with contextlib.suppress(ChildProcessError):
            os.waitid(os.P_PID, self._pid, os.WEXITED | os.WNOWAIT)  # ended, not collected:
        _kill_group(self._pid)  # its group is still its own, so a program it left ends
        _pid, status = os.waitpid(self._pid, 0)
        self._pid = None
        return pickle.loads(data) if status == 0 and data else None

    def discard(self) -> None:
        """End the worker and whatever it started: its result is not wanted."""
        if self._pid is not None:
            self._ender.detach()
            _end(self._pid, self._read, os.getpid())
            self._pid = None


def _kill_group(pid: int) -> None:
    with contextlib.suppress(OSError):  # none left: the group is gone
        os.killpg(pid, signal.SIGKILL)


def _end(pid: int, read_end: int, owner: int) -> None:
    """Kill a worker and the programs it started (its process group), and collect it; only
    in the process that forked it. Also run when a job nobody collected is dropped, or
    at exit."""
    if os.getpid() != owner:
        return
    _kill_group(pid)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)  # the pid is ours until it is waited for
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
    with contextlib.suppress(OSError):
        os.close(read_end)


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
