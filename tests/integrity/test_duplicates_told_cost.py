"""What the note told at write time costs: bounded by the text written, not by the
folder. Real files, the real command line in a process of its own, real audit events
of the files a write opens."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from cli_support import run_cli_process
from test_duplicates import DEPLOY

from serena_memory.core.store import MemoryStore
from serena_memory.integrity.duplicates import features_cache as DC
from serena_memory.integrity.duplicates.write_comparison import ALWAYS_READ, write_note

_OPENED: list[str] | None = None
"""The paths opened while a test watches (None: nobody watches)."""


def _audit(event: str, args: tuple[object, ...]) -> None:
    if _OPENED is not None and event == "open" and isinstance(args[0], str):
        _OPENED.append(args[0])


sys.addaudithook(_audit)


def _fill(project: Path, count: int) -> None:
    folder = project / ".serena" / "memories" / "filler"
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        (folder / f"note_{i}.md").write_text(
            f"# Note {i}\n\nFiller number {i} says little.\n\nNothing else {i * 7}.\n"
        )


def _opened_memories(project: Path, name: str, text: str, store: MemoryStore) -> list[str]:
    global _OPENED
    _OPENED = []
    try:
        write_note(store, name, text)
        memories = str(project / ".serena" / "memories")
        return [p for p in _OPENED if p.startswith(memories)]
    finally:
        _OPENED = None


def test_before_any_check_a_write_in_a_large_folder_opens_no_memory(
    store: MemoryStore, project: Path
) -> None:
    """It can't know the other memories without reading them all: it says nothing (and
    nothing false) rather than take time in proportion to the folder."""
    store.write("ops/deploy", DEPLOY)
    _fill(project, ALWAYS_READ)
    store.write("notes/copy", DEPLOY + "\nOne line more.\n")
    assert _opened_memories(project, "notes/copy", DEPLOY + "\nOne line more.\n", store) == []
    assert write_note(store, "notes/copy", DEPLOY + "\nOne line more.\n") == ""
    DC.check_duplicates(store)  # the index made: now it is told, from the index
    store.write("notes/copy", DEPLOY + "\nTwo lines more.\n")
    opened = _opened_memories(project, "notes/copy", DEPLOY + "\nTwo lines more.\n", store)
    assert opened and all(p.endswith("ops/deploy.md") for p in opened)  # the one it meets
    note = write_note(store, "notes/copy", DEPLOY + "\nTwo lines more.\n")
    assert "memory 'ops/deploy'" in note


def test_a_command_line_write_that_meets_no_memory_loads_no_numpy(project: Path) -> None:
    """numpy takes a tenth of a second to load: a write pays it only when its text meets
    another memory, whether a check made the index or not."""
    _fill(project, ALWAYS_READ + 5)
    env = {"PYTHONPROFILEIMPORTTIME": "1"}
    text = "# Build\n\nThe nightly build runs at three and mails its log to the team.\n"
    done = run_cli_process("memories", "write", "ops/build", str(project), "-c", text, env=env)
    assert done.returncode == 0, done.stderr
    assert " numpy" not in done.stderr  # no check ran: a large folder is not read
    checked = run_cli_process("memories", "check", "--duplicates", str(project))
    assert checked.returncode in (0, 1), checked.stderr
    text += "It keeps the last ten logs.\n"
    done = run_cli_process("memories", "write", "ops/build", str(project), "-c", text, env=env)
    assert done.returncode == 0, done.stderr
    assert "Updated memory 'ops/build'" in done.stdout
    assert " numpy" not in done.stderr  # after a check: the index alone


def test_a_write_in_a_small_folder_that_meets_nothing_loads_no_numpy(project: Path) -> None:
    """Before any check, a small folder is read at every write; whether the text can meet
    any of it is decided in plain Python, so an unrelated write stays as fast as without
    the note, and one that restates a memory is still told."""
    _fill(project, 3)
    env = {"PYTHONPROFILEIMPORTTIME": "1"}
    text = "# Build\n\nThe nightly build runs at three and mails its log to the team.\n"
    done = run_cli_process("memories", "write", "ops/build", str(project), "-c", text, env=env)
    assert done.returncode == 0, done.stderr
    assert " numpy" not in done.stderr
    done = run_cli_process("memories", "write", "ops/copy", str(project), "-c", text, env=env)
    assert done.returncode == 0, done.stderr
    assert "ops/build" in done.stderr  # the copy is told


def test_the_slots_of_the_others_are_taken_apart_only_for_a_text_that_states_one(
    store: MemoryStore, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a small folder, compared whole before any check, a note that states no slot (a
    port, a command, a tool...) is compared by its lines, sentences and words only:
    taking apart the slots of every other memory (the costliest part) is done only when
    the text written states one."""
    from serena_memory.integrity.duplicates import write_comparison

    taken: list[str] = []
    real = write_comparison.slot_rows

    def counted(text: str) -> list[tuple[int, int, int]]:
        taken.append(text)
        return real(text)

    monkeypatch.setattr(write_comparison, "slot_rows", counted)
    store.write("ops/deploy", DEPLOY)
    _fill(project, 10)
    plain = "Another small fact, said plainly.\n"
    store.write("notes/plain", plain)
    assert write_note(store, "notes/plain", plain) == ""
    assert taken == []
    clash = (
        "# Ops\n\nSome notes first.\n\n"
        "Health checks hit `/healthz` on port 9090 every ten seconds.\n"
    )
    store.write("ops/health", clash)
    assert "contradicts memory 'ops/deploy' line 6" in write_note(store, "ops/health", clash)
    assert taken


def test_a_write_in_a_large_folder_no_check_ran_on_loads_none_of_the_comparison(
    project: Path, serena_home: Path
) -> None:
    """With no index and more memories than a write reads, the note says nothing: that is
    known before the duplicate check's modules are loaded (they take longer to load than
    the write takes to run). In a small folder they are, and the note is told."""
    import subprocess

    _fill(project, ALWAYS_READ + 1)
    script = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from serena_memory.cli import cli\n"
        "args = ['memories', 'write', sys.argv[2], sys.argv[1], '-c', sys.argv[3]]\n"
        "done = CliRunner().invoke(cli, args)\n"
        "assert done.exit_code == 0, done.output\n"
        "print(done.stderr.strip() or '-')\n"
        "print('serena_memory.integrity.duplicates.write_comparison' in sys.modules)\n"
    )

    def write(name: str, text: str) -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", script, str(project), name, text],
            capture_output=True,
            text=True,
            env={**os.environ, "SERENA_HOME": str(serena_home)},
            check=True,
        )
        return done.stdout.splitlines()

    assert write("ops/deploy", DEPLOY) == ["-", "False"]
    assert write("ops/copy", DEPLOY) == ["-", "False"]  # a copy, but no index to tell it
    small = project.parent / "small"
    (small / ".serena" / "memories").mkdir(parents=True)
    project = small
    assert write("ops/deploy", DEPLOY) == ["-", "True"]
    told, loaded = write("ops/copy", DEPLOY)
    assert "has the same text" in told and loaded == "True"
