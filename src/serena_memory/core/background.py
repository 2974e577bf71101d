"""The background threads of a long-running process (a server), stopped before it ends.

Why one place: when Python ends, a daemon thread still running is made to exit where it
stands the next time it asks for the interpreter. One inside a native call at that moment
(the search model loading its weights, numpy, the tokenizer, libgit2) is unwound through
the native frames, and some of them (Rust's and C++'s catch-all frames) abort the whole
process instead: ``FATAL: exception not rethrown`` and SIGABRT, which an MCP client logs
as a crash of the server it just closed.

So every thread a server starts for work in the background is started with :func:`start`,
and the command that served calls :func:`finish` before the interpreter ends: each thread
is asked to stop (:func:`stopping`, and the callbacks given to :func:`on_stop`) and is
waited for, within :data:`STOP_SECONDS` in all. A thread still inside a native call that
can't be interrupted after that long would make the interpreter's end abort, so the process
then ends itself with ``os._exit`` once stdout and stderr are flushed: nothing is lost that
matters (every write is in a transaction of its own, and stamps not saved only make the
next process read more files).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from serena_memory.core.process import PROCESS

STOP_SECONDS = 1.5
"""How long the threads have to stop in all: within the 2 s the MCP SDK's client waits for
a server it closed before it terminates it."""


class _Background:
    """The threads started and the callbacks to call when the process stops."""

    def __init__(self) -> None:
        self.guard = threading.Lock()
        self.threads: set[threading.Thread] = set()
        self.stop_callbacks: list[Callable[[], None]] = []
        self.stopping = threading.Event()


def _state() -> _Background:
    return PROCESS.owned(_Background)


def start(target: Callable[..., Any], *args: Any, name: str) -> threading.Thread:
    """Run ``target(*args)`` in a thread of its own that :func:`finish` waits for."""
    thread = threading.Thread(target=_forgotten_when_done, args=(target, args), name=name)
    thread.daemon = True  # a thread that stays stuck must not hold the process up forever
    state = _state()
    with state.guard:
        state.threads.add(thread)
    thread.start()
    return thread


def _forgotten_when_done(target: Callable[..., Any], args: tuple[Any, ...]) -> None:
    try:
        target(*args)
    finally:
        state = _state()
        with state.guard:
            state.threads.discard(threading.current_thread())


def on_stop(callback: Callable[[], None]) -> None:
    """Call ``callback`` when the process stops its background work (a server's own way
    of being told to stop); at once if it is stopping already."""
    state = _state()
    with state.guard:
        if not state.stopping.is_set():
            state.stop_callbacks.append(callback)
            return
    callback()


def stopping() -> bool:
    """Whether the process is ending: long work checks this between steps and returns."""
    return _state().stopping.is_set()


def stop(seconds: float = STOP_SECONDS) -> list[str]:
    """Ask every background thread to stop and wait for them, at most ``seconds`` in all;
    the names of those still running then."""
    state = _state()
    state.stopping.set()
    with state.guard:
        callbacks, state.stop_callbacks[:] = list(state.stop_callbacks), []
    for callback in callbacks:
        callback()
    deadline = time.monotonic() + seconds
    while True:
        with state.guard:
            running = [thread for thread in state.threads if thread.is_alive()]
        running += _waited_for_by_python()
        left = deadline - time.monotonic()
        if not running or left <= 0:
            return sorted(thread.name for thread in running)
        running[0].join(left)


def _waited_for_by_python() -> list[threading.Thread]:
    """The other threads the interpreter waits for before it ends (not daemons): a worker
    of a thread pool still in a call, such as a read of stdin a stopped server left behind."""
    here = threading.current_thread()
    return [
        thread
        for thread in threading.enumerate()
        if not thread.daemon and thread is not here and thread is not threading.main_thread()
    ]


def finish(exit_code: int) -> None:
    """Before the interpreter ends: stop the background threads, and end the process with
    ``exit_code`` now if one of them is still running (see the module's docstring)."""
    if stop():
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):  # closed, or its reader hung up
                stream.flush()
        os._exit(exit_code)
