"""`check --duplicates` on a thousand memories with no cache took 6-8 s and said nothing
on a terminal: from about a second's work it says what it reads (on stderr, a terminal
only); a pipe stays quiet. Real processes, a real pseudo-terminal."""

from __future__ import annotations

import os
import pty
import random
import subprocess
import time
from pathlib import Path

from tests.helpers.cli_support import SERENA

MANY = 200  # over a second's first build on a slow machine: the duplicate check says so

WORDS = [f"{a}{b}" for a in ("ka", "lo", "mi", "nu", "pe", "ro", "su", "ti") for b in "aeiouyz"]


def _many(project: Path, count: int) -> None:
    """``count`` memories of different words (no two alike), in topic folders, written an
    hour ago (a file changed within the last second is read again each time)."""
    rng = random.Random(7)
    for i in range(count):
        folder = project / ".serena" / "memories" / f"topic{i % 5}"
        folder.mkdir(parents=True, exist_ok=True)
        lines = [" ".join(rng.choice(WORDS) for _ in range(10)) + "." for _ in range(8)]
        path = folder / f"m{i}.md"
        path.write_text(f"# M{i}\n\n" + "\n".join(lines) + "\n")
        os.utime(path, (time.time() - 3600, time.time() - 3600))


def _on_a_terminal(args: list[str]) -> tuple[str, str]:
    """stdout (a pipe) and what was written to stderr, a pseudo-terminal."""
    leader, follower = pty.openpty()
    with subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=follower, stdin=subprocess.DEVNULL, text=True
    ) as process:
        os.close(follower)
        seen = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: the process closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        out = process.stdout.read() if process.stdout else ""
        assert process.wait(timeout=120) == 0, seen
    os.close(leader)
    return out, seen.decode()


def test_a_first_duplicate_check_of_many_memories_says_so_on_a_terminal_only(
    project: Path, serena_home: Path
) -> None:
    _many(project, MANY)
    args = [*SERENA, "memories", "check", "--duplicates", str(project)]
    piped = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0, piped.stderr
    assert piped.stderr == ""  # a pipe stays quiet
    for cache in (serena_home / "cache").rglob("*.sqlite3"):
        cache.unlink()  # the first build again
    out, told = _on_a_terminal(args)
    assert f"Reading {MANY} memories for duplicates..." in told, told
    assert out == piped.stdout  # the results are the same, on stdout
    again, quiet = _on_a_terminal(args)  # read from the cache: nothing to say
    assert quiet == "" and again == piped.stdout
