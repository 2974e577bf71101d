"""Usage counting: what `serena memories usage` and `check --unused` report, on real
files; usage files that are damaged or hostile are rebuilt, never trusted nor followed;
several processes reading at once lose no count."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from serena_memory.agent.listing import listing_answer
from serena_memory.core.changes import Provenance, acting_as
from serena_memory.core.store import MemoryStore
from serena_memory.usage import log
from serena_memory.usage.counting import client_of
from serena_memory.usage.report import store_usage
from serena_memory.wiring import build_store

DAY = 86400


def usage_dir(home: Path) -> Path:
    return home / "usage"


def appended(store: MemoryStore) -> Path:
    return usage_dir(store.layout.home) / (
        log.project_file(str(store.layout.project_root)) + log.APPENDED
    )


def folded(store: MemoryStore) -> Path:
    return usage_dir(store.layout.home) / (
        log.project_file(str(store.layout.project_root)) + log.FOLDED
    )


def reads(store: MemoryStore) -> dict[str, int]:
    return {m.name: m.reads for m in store_usage(store).memories}


def age(store: MemoryStore, name: str, days: float) -> None:
    """Make memory ``name`` look last changed ``days`` ago."""
    moment = time.time() - days * DAY
    os.utime(store.real_path_of(name), (moment, moment))


# -- what is reported ----------------------------------------------------------------------
def test_usage_lists_reads_last_read_clients_the_never_read_and_the_listing_cost(
    store: MemoryStore, project: Path
) -> None:
    for name in ("core", "auth/login", "old/notes"):
        store.write(name, f"# {name}\n")
    store.read("core")
    with acting_as(Provenance("mcp", "claude-code 2.0", "read_memory")):
        store.read("core")
        store.read("auth/login")
    answer = json.loads(run_cli("memories", "usage", str(project), "--json").stdout)
    rows = {row["name"]: row for row in answer["memories"]}
    assert rows["core"]["reads"] == 2
    assert rows["core"]["clients"] == {"claude-code": 1, "cli": 1}
    assert rows["core"]["last_read"].endswith("Z")
    assert answer["never_read"] == ["old/notes"]
    text = run_cli("memories", "usage", str(project)).stdout
    assert "core: 2 reads" in text and "claude-code: 1" in text
    assert "old/notes: never read" in text and "Never read: 1 memory" in text
    # the cost is what the name adds to the agent's listing, measured on the real answer
    full = len(listing_answer(store))
    store.delete("old/notes")
    assert full - len(listing_answer(store)) == rows["old/notes"]["listing_chars"]
    assert answer["never_read_listing_chars"] == rows["old/notes"]["listing_chars"]


@pytest.mark.parametrize(
    ("who", "entry", "client"),
    [
        ("claude-code 2.0.1", "mcp", "claude-code"),
        ("Cursor v1.2-beta", "mcp", "Cursor"),
        ("my tool", "mcp", "my tool"),
        ("evil\tclient\nname 1.0", "mcp", "evil client name"),
        ("alice", "cli", "cli"),
        ("alice", "dashboard", "dashboard"),
    ],
)
def test_a_client_is_named_without_its_version_and_the_cli_by_its_front_end(
    who: str, entry: str, client: str
) -> None:
    assert client_of(Provenance(entry, who)) == client


def test_reads_change_nothing_the_agent_is_given(store: MemoryStore) -> None:
    for name in ("core", "a", "b", "z"):
        store.write(name, name)
    before = listing_answer(store)
    for _ in range(5):
        store.read("z")
    assert listing_answer(store) == before


def test_a_global_memory_is_counted_across_projects(tmp_path: Path, serena_home: Path) -> None:
    first = tmp_path / "one"
    second = tmp_path / "two"
    for folder in (first, second):
        (folder / ".serena" / "memories").mkdir(parents=True)
    one = build_store(first, home=serena_home)
    two = build_store(second, home=serena_home)
    one.write("global/style", "tabs")
    one.write("local", "x")
    one.read("global/style")
    two.read("global/style")
    assert reads(two)["global/style"] == 2
    assert "local" not in reads(two)
    assert reads(one)["local"] == 0


def test_reads_follow_a_rename_instead_of_starting_again(store: MemoryStore, project: Path) -> None:
    store.write("notes", "# notes\n")
    store.write("other", "# other\n")
    with acting_as(Provenance("mcp", "claude-code 2.0", "read_memory")):
        store.read("notes")
    store.read("notes")
    store.read("other")
    assert run_cli("memories", "rename", "notes", "topic/notes", str(project)).returncode == 0
    found = json.loads(run_cli("memories", "usage", str(project), "--json").stdout)
    by_name = {m["name"]: m for m in found["memories"]}
    assert by_name["topic/notes"]["reads"] == 2
    assert by_name["topic/notes"]["clients"] == {"claude-code": 1, "cli": 1}
    assert by_name["other"]["reads"] == 1
    store.write("notes", "# a new memory of the old name\n")
    assert reads(store)["notes"] == 0  # the old name's reads went with the memory


def test_reads_follow_a_memory_moved_to_the_global_memories_and_back(store: MemoryStore) -> None:
    store.write("style", "tabs")
    for _ in range(3):
        store.read("style")
    store.rename("style", "global/style")
    assert reads(store)["global/style"] == 3
    store.read("global/style")
    store.rename("global/style", "style")
    assert reads(store)["style"] == 4


def test_check_unused_says_when_no_read_was_ever_counted(store: MemoryStore, project: Path) -> None:
    for name in ("core", "notes"):
        store.write(name, name)
        age(store, name, 45)
    long_ago = int(time.time() - 40 * DAY)
    folded(store).parent.mkdir(parents=True, exist_ok=True)
    folded(store).write_text(f"#serena-usage\t1\t{long_ago}\n", encoding="utf-8")
    result = run_cli("memories", "check", str(project), "--unused", "30")
    assert "Unused: 2 memories unread for 30 days or more" in result.stdout
    # every memory "never read": the reads happen where they are not counted, most likely
    assert "No read of any memory has been counted on this machine" in result.stdout


def test_check_unused_reports_what_nobody_read_for_that_long(
    store: MemoryStore, project: Path
) -> None:
    for name in ("core", "stale", "forgotten", "fresh"):
        store.write(name, name)
    long_ago = int(time.time() - 40 * DAY)
    folded(store).parent.mkdir(parents=True, exist_ok=True)
    folded(store).write_text(
        f"#serena-usage\t1\t{long_ago}\n{long_ago + DAY}\t3\tcli\tstale\n", encoding="utf-8"
    )
    for name in ("core", "stale", "forgotten"):
        age(store, name, 45)
    store.read("core")
    result = run_cli("memories", "check", str(project), "--unused", "30")
    assert result.returncode == 0
    assert "Unused: 2 memories unread for 30 days or more" in result.stdout
    assert "forgotten: never read" in result.stdout and "stale: last read" in result.stdout
    assert "fresh" not in result.stdout.split("Unused:")[1]  # written now: not unread yet
    assert "core" not in result.stdout.split("Unused:")[1]
    data = json.loads(run_cli("memories", "check", str(project), "--unused", "30", "--json").stdout)
    assert [m["name"] for m in data["unused"]] == ["forgotten", "stale"]
    assert data["unused_days"] == 30 and data["unused"][1]["reads"] == 3
    strict = run_cli("memories", "check", str(project), "--unused", "30", "--strict")
    assert strict.returncode == 1 and "memories nobody reads" in strict.stderr
    assert run_cli("memories", "check", str(project), "--unused", "60", "--strict").returncode == 0
    refused = run_cli("memories", "check", str(project), "--unused", "soon")
    assert refused.returncode == 2 and "not a whole number" in refused.stderr


def test_counting_starts_at_the_first_report_so_a_folder_nobody_reads_shows_in_time(
    store: MemoryStore,
) -> None:
    store.write("lonely", "x")
    age(store, "lonely", 90)
    first = store_usage(store)
    assert first.unused(30) == []  # counting began just now
    later = store_usage(store, now=time.time() + 31 * DAY)
    assert [m.name for m in later.unused(30)] == ["lonely"]


# -- damaged and hostile usage files -------------------------------------------------------
def test_garbage_and_wrong_types_are_dropped_and_the_file_rebuilt(store: MemoryStore) -> None:
    store.write("core", "x")
    store.read("core")
    now = int(time.time())
    lines = [
        b"\x00\xff\xfe garbage",
        f"{now}\tmany\tcli\tcore".encode(),  # a count that is no number
        f"{now}\t-3\tcli\tcore".encode(),
        f"{now}\t0\tcli\tcore".encode(),
        f"{now + 400 * DAY}\t5\tcli\tcore".encode(),  # a read years ahead
        f"{now}\t{10**13}\tcli\tcore".encode(),  # more digits than any count
        f"{now}\t\u0663\tcli\tcore".encode(),  # a digit of another script
        f"{now}\t2\tcli\tcore\textra".encode(),
        f"{now}\t2\t\tcore".encode(),
        f"{now}\t2\tcli\t{'n' * 2000}".encode(),
        f"{now}\t2\tcl\x1bi\tcore".encode(),
        b'{"core": {"reads": 1e9}}',
    ]
    with appended(store).open("ab") as handle:
        handle.write(b"\n".join(lines) + b"\n")
    assert reads(store) == {"core": 1}  # only the real read
    assert b"garbage" not in folded(store).read_bytes()
    store.read("core")
    assert reads(store) == {"core": 2}


def test_a_huge_usage_file_is_started_anew_without_being_read(store: MemoryStore) -> None:
    store.write("core", "x")
    store.read("core")
    with appended(store).open("r+b") as handle:
        handle.truncate(log.TRUST_AT_MOST + 1)  # sparse: large without filling the disk
    start = time.perf_counter()
    assert reads(store) == {"core": 0}
    assert time.perf_counter() - start < 1
    assert folded(store).stat().st_size < 1000
    store.read("core")
    assert reads(store) == {"core": 1}


def test_a_usage_folder_linked_outside_is_replaced_and_nothing_outside_written(
    store: MemoryStore, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    store.write("core", "x")
    usage_dir(store.layout.home).symlink_to(outside, target_is_directory=True)
    store.read("core")
    assert list(outside.iterdir()) == []
    assert usage_dir(store.layout.home).is_dir() and not usage_dir(store.layout.home).is_symlink()
    assert reads(store) == {"core": 1}


@pytest.mark.parametrize("kind", ["symlink", "hardlink"])
def test_a_usage_file_linked_to_a_file_outside_is_never_written_through(
    store: MemoryStore, tmp_path: Path, kind: str
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    store.write("core", "x")
    store.read("core")
    reads(store)  # both files exist now
    for path in (appended(store), folded(store)):
        path.unlink()
        if kind == "symlink":
            path.symlink_to(victim)
        else:
            os.link(victim, path)
    store.read("core")
    assert reads(store) == {"core": 1}  # the earlier read went with the replaced files
    assert victim.read_text() == "precious\n"
    assert not appended(store).is_symlink()


def test_a_fifo_or_a_folder_in_place_of_a_usage_file_neither_hangs_nor_fails(
    store: MemoryStore,
) -> None:
    store.write("core", "x")
    store.read("core")
    reads(store)  # both files exist now
    appended(store).unlink()
    os.mkfifo(appended(store))
    folded(store).unlink()
    (folded(store) / "inside").mkdir(parents=True)
    store.read("core")
    assert reads(store) == {"core": 1}
    assert appended(store).is_file() and folded(store).is_file()


def test_a_fold_removes_what_a_crashed_fold_left_and_keeps_every_count(
    store: MemoryStore,
) -> None:
    store.write("core", "x")
    store.read("core")
    reads(store)
    left = usage_dir(store.layout.home) / f".{folded(store).name}.99999.tmp"
    left.write_text("half a fold")
    with appended(store).open("ab") as handle:
        handle.write(b"damaged line\n")  # makes the next report fold
    assert reads(store) == {"core": 1}
    assert not left.exists()


def test_a_file_in_place_of_the_usage_folder_is_replaced(store: MemoryStore) -> None:
    store.write("core", "x")
    usage_dir(store.layout.home).write_text("a file where the folder goes")
    assert store.read("core") == "x"
    assert usage_dir(store.layout.home).is_dir()
    assert reads(store) == {"core": 1}


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000))
def test_any_bytes_parse_to_sound_counts(data: bytes) -> None:
    found, _sound = log.parse(data, time.time())
    for name, memory in found.memories.items():
        assert memory.reads >= 1 and memory.reads == sum(memory.clients.values())
        assert "\n" not in name and "\t" not in name
        assert memory.last_read <= time.time() + 2 * DAY


# -- several processes at once ---------------------------------------------------------------
WORKER = """
import sys
from pathlib import Path
from serena_memory.usage import log
from serena_memory.usage.counting import client_of
log.FOLD_AT = 4000  # fold often, while the others append
from serena_memory.wiring import build_store
store = build_store(Path(sys.argv[1]), home=Path(sys.argv[2]))
print("ready", flush=True)
sys.stdin.readline()
for i in range(int(sys.argv[3])):
    store.read("core" if i % 2 else "notes")
"""


def test_processes_reading_at_once_lose_no_count_and_keep_the_file(
    store: MemoryStore, project: Path, serena_home: Path
) -> None:
    store.write("core", "c")
    store.write("notes", "n")
    each, workers = 150, 4
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(project), str(serena_home), str(each)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(workers)
    ]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    for proc in procs:  # all start reading at once
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for proc in procs:
        assert proc.wait(timeout=120) == 0
    assert reads(store) == {"core": each * workers // 2, "notes": each * workers // 2}
    assert log.parse(folded(store).read_bytes(), time.time())[1]  # a sound file


def test_unused_says_when_counting_is_too_young_for_any_memory_to_be_unused(
    store: MemoryStore,
) -> None:
    from serena_memory.usage.unused import unused_memories

    store.write("core", "x")
    store.write("old", "y")
    age(store, "old", 90)
    began = int(time.time() - 5 * DAY)
    folded(store).parent.mkdir(parents=True, exist_ok=True)
    folded(store).write_text(f"#serena-usage\t1\t{began}\n{began + 60}\t2\tcli\tcore\n")
    report = unused_memories(store, 30)
    assert report.found == [] and report.reads == 2 and report.counted_days == 5
    note = report.counting_note()
    assert note is not None
    assert note.startswith("Reads have been counted on this machine for 5 days only (since ")
    assert "a memory is listed once nobody read it for 30 days, so none can be before" in note
    assert unused_memories(store, 5).counting_note() is None  # counted long enough, and read
    listed = unused_memories(store, 5).listed()
    assert [(m["name"], m["reads"]) for m in listed] == [("old", 0)]
