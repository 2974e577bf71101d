"""Background threads stopped before a process ends (core/background.py), each case in a
process of its own: stopping is for good, and the last resort ends the process."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=60
    )


def test_threads_that_look_are_stopped_and_waited_for() -> None:
    done = _run(
        """
        import time
        from serena_memory.core import background

        stopped = []
        def work():
            while not background.stopping():
                time.sleep(0.01)
            time.sleep(0.2)  # finishing its step
            stopped.append(True)

        background.start(work, name="worker")
        background.on_stop(lambda: print("told"))
        assert background.stop() == []
        assert stopped == [True]
        background.on_stop(lambda: print("told at once"))
        background.finish(3)  # nothing left: returns, and the process ends as usual
        print("ended")
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["told", "told", "at", "once", "ended"]


def test_a_thread_that_never_stops_ends_the_process_with_its_status() -> None:
    start = time.monotonic()
    done = _run(
        """
        import threading
        from serena_memory.core import background

        background.start(threading.Event().wait, name="stuck")
        print("flushed before the end", end="")
        background.finish(7)
        print("never")
        """
    )
    assert done.returncode == 7, done.stderr
    assert done.stdout == "flushed before the end"
    assert time.monotonic() - start < 30
