"""Imports stay inside the project and bounded; a bundle writes global memories only when
asked, and its undo takes back all of it; an exported bundle is written as a file of its
own. Hostile sources in real folders: links out, fifos, huge and non-UTF-8 files."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest
from conftest import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from serena_memory.core.store import MemoryStore
from serena_memory.transfer.export import export_bundle
from serena_memory.transfer.formats import detect
from serena_memory.transfer.mcp_jsonl import _entity_names
from serena_memory.transfer.plan import ImportPlan
from serena_memory.transfer.sources import SourceError, slug

SECRET = "TEXT OF ANOTHER PROJECT"


def _memories(project: Path) -> list[str]:
    folder = project / ".serena" / "memories"
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.md"))


def _sibling_with_notes(tmp_path: Path) -> Path:
    """A folder beside the project full of Markdown that must never be imported."""
    sibling = tmp_path / "sibling"
    (sibling / "deep").mkdir(parents=True)
    (sibling / "notes.md").write_text(f"{SECRET}\n")
    (sibling / "deep" / "rule.mdc").write_text(f"{SECRET}\n")
    return sibling


def test_a_source_folder_linked_out_of_the_project_is_never_followed(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / "basic-memory").mkdir(parents=True)
    (home / "basic-memory" / "note.md").write_text(f"{SECRET}\n")
    monkeypatch.setenv("HOME", str(home))
    sibling = _sibling_with_notes(tmp_path)
    (project / "memory-bank").symlink_to(Path(os.pardir))  # memory-bank -> ..
    (project / ".cursor").mkdir()
    (project / ".cursor" / "rules").symlink_to(sibling)  # .cursor/rules -> ~/notes
    for fmt in ("cline-memory-bank", "cursor-rules"):
        run = run_cli("memories", "import", fmt, "-p", str(project))
        assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
        assert "is a symlink to" in run.stderr and "not followed" in run.stderr
        assert "give the path it leads to on the command line" in run.stderr
    run = run_cli("memories", "import", "auto", "--yes", "-p", str(project))
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("Not followed:") == 2 and "Created" not in run.stdout
    assert "Outside the project: basic-memory" in run.stdout
    assert "import it with `serena memories import basic-memory " in run.stdout
    assert _memories(project) == []
    found = {f.format: f for f in detect(project, home)}
    assert found["cline-memory-bank"].refused and found["cursor-rules"].refused
    # the person names the folder itself: that is read, and only what lies inside it
    run = run_cli("memories", "import", "cursor-rules", str(sibling), "-p", str(project))
    assert run.returncode == 0, run.stderr
    assert _memories(project) == ["cursor-rules/deep/rule.md", "cursor-rules/notes.md"]


def test_the_activation_message_names_no_source_outside_the_project(
    store: MemoryStore, tmp_path: Path
) -> None:
    from serena_memory.agent.onboarding import activation_message

    (store.layout.project_root / "memory-bank").symlink_to(_sibling_with_notes(tmp_path))
    text = activation_message(store)
    assert "memory-bank" not in text and "serena memories import auto" not in text
    (store.layout.project_root / "memory.jsonl").write_text('{"type":"entity","name":"x"}\n')
    text = activation_message(store)
    assert "`memory.jsonl`" in text and "memory-bank" not in text


def test_an_inner_folder_of_a_named_path_is_held_to_it(tmp_path: Path, project: Path) -> None:
    sibling = _sibling_with_notes(tmp_path)
    named = tmp_path / "named"
    named.mkdir()
    (named / "memory-bank").symlink_to(sibling)
    run = run_cli("memories", "import", "cline-memory-bank", str(named), "-p", str(project))
    assert run.returncode == 1 and "not followed" in run.stderr, run.stderr
    assert _memories(project) == []


def test_files_that_are_no_regular_text_are_refused_in_one_sentence(project: Path) -> None:
    bank = project / "memory-bank"
    bank.mkdir()
    os.mkfifo(bank / "activeContext.md")
    run = run_cli("memories", "import", "cline-memory-bank", "-p", str(project))
    assert run.returncode == 1 and "is a fifo" in run.stderr and "Traceback" not in run.stderr
    os.unlink(bank / "activeContext.md")
    (bank / "huge.md").write_bytes(b"x" * (3 * 1024 * 1024))
    run = run_cli("memories", "import", "cline-memory-bank", "-p", str(project))
    assert run.returncode == 1 and "limit" in run.stderr
    (bank / "huge.md").write_bytes(b"caf\xe9\n")
    run = run_cli("memories", "import", "cline-memory-bank", "-p", str(project))
    assert run.returncode == 1 and "huge.md is not valid UTF-8" in run.stderr
    assert _memories(project) == []


def _bundle(path: Path, names: list[str]) -> Path:
    memories = [{"name": n, "content": f"{n} text\n"} for n in names]
    doc = {"format": "serena-memory-bundle", "version": 1, "memories": memories}
    path.write_text(json.dumps(doc))
    return path


def _undo(stdout: str) -> list[str]:
    lines = stdout.splitlines()
    start = lines.index("Undo it with:") + 1
    return [line.strip() for line in lines[start:] if line.startswith("  serena ")]


def _run_all(commands: list[str]) -> None:
    for command in commands:
        words = shlex.split(command)
        assert words[:2] == ["serena", "memories"]
        run = run_cli(*words[1:])
        assert run.returncode == 0, run.stderr


def _listed(project: Path) -> str:
    return run_cli("memories", "list", "-p", str(project)).stdout


def test_a_bundle_writes_global_memories_only_when_asked(
    store: MemoryStore, tmp_path: Path, serena_home: Path
) -> None:
    bundle = _bundle(tmp_path / "b.json", ["global/evil", "p1"])
    project = store.layout.project_root
    run = run_cli("memories", "import", "bundle", str(bundle), "-p", str(project))
    assert run.returncode == 0, run.stderr
    assert "skipped global/evil" in run.stdout and "--allow-global" in run.stdout
    assert not (serena_home / "memories" / "global" / "evil.md").exists()
    assert store.exists("p1")


def test_the_undo_a_bundle_import_gives_takes_all_of_it_back(
    store: MemoryStore, tmp_path: Path
) -> None:
    project = store.layout.project_root
    store.write("before", "kept\n")
    store.write("global/before", "kept too\n")
    bundle = _bundle(tmp_path / "b.json", ["global/evil", "p1", "topic/p2"])
    run = run_cli("memories", "import", "bundle", str(bundle), "--allow-global", "-p", str(project))
    assert run.returncode == 0, run.stderr
    assert "global/evil" in _listed(project)
    commands = _undo(run.stdout)
    assert len(commands) == 2  # the project's history and the global one
    _run_all(commands)
    listed = _listed(project)
    assert "before" in listed and "global/before" in listed
    for name in ("global/evil", "p1", "topic/p2"):
        assert name not in listed


def test_the_undo_of_a_first_import_takes_it_back_too(tmp_path: Path, project: Path) -> None:
    bundle = _bundle(tmp_path / "b.json", ["global/first_bundled", "p1"])
    run = run_cli("memories", "import", "bundle", str(bundle), "--allow-global", "-p", str(project))
    assert run.returncode == 0, run.stderr
    _run_all(_undo(run.stdout))
    listed = _listed(project)
    assert "first_bundled" not in listed and "p1" not in listed


def _same_slug_entities(folder: Path, count: int) -> Path:
    digits = "!#$%&*+,;="
    lines = []
    for i in range(count):
        name = "x " + "".join(digits[int(d)] for d in str(i))
        lines.append(json.dumps({"type": "entity", "name": name, "observations": ["o"]}))
    (folder / "memory.jsonl").write_text("\n".join(lines) + "\n")
    return folder / "memory.jsonl"


@pytest.mark.slow  # an import past the cap of memories
def test_an_import_past_the_cap_writes_nothing(tmp_path: Path, project: Path) -> None:
    jsonl = _same_slug_entities(tmp_path, 20_000)
    headings = tmp_path / "headings"
    headings.mkdir()
    (headings / "CLAUDE.md").write_text("# P\n" + "## s\n" * 20_000)
    # 20,000 entities; 20,000 sections, the first one with the title as the entry memory
    for fmt, source in (("mcp-memory-jsonl", jsonl), ("claude-md", headings)):
        count = 20_000
        run = run_cli("memories", "import", fmt, str(source), "-p", str(project))
        assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
        assert f"create {count:,} memories, more than the 2,000 one import may" in run.stderr
        assert "nothing was written" in run.stderr and f"--max-memories {count}" in run.stderr
        assert _memories(project) == []
    small = tmp_path / "small"
    small.mkdir()
    (small / "CLAUDE.md").write_text("# P\n" + "## s\n" * 30)
    run = run_cli("memories", "import", "claude-md", str(small), "--max-memories", "10")
    assert run.returncode == 1 and "30 memories, more than the 10" in run.stderr
    run = run_cli(
        "memories", "import", "claude-md", str(small), "--max-memories", "30", "-p", str(project)
    )
    assert run.returncode == 0, run.stderr
    assert len(_memories(project)) == 30


def _probed(names: list[str], topic: str) -> dict[str, str]:
    """Each name numbered by probing from 2 every time (what the names must stay)."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for entity in names:
        base = f"{topic}/{slug(entity, 'entity')}"
        name, n = base, 1
        while name in used:
            n += 1
            name = f"{base}-{n}"
        used.add(name)
        out[entity] = name
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["x", "x!", "x-2", "x-3", "y", "x 2", "X", "x-2-2"]), unique=True))
def test_numbering_names_goes_on_where_it_stopped_and_gives_the_same_names(names: list[str]):
    assert _entity_names(names, "t") == _probed(names, "t")
    plan = ImportPlan("f", "s")
    added = [plan.add(f"t/{slug(n)}", "x", "o") for n in names]
    assert added == list(_probed(names, "t").values())


def test_an_exported_bundle_is_written_as_a_file_of_its_own(
    store: MemoryStore, tmp_path: Path
) -> None:
    store.write("core", "entry\n")
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text("the person's own file\n")
    link = tmp_path / "bundle.json"
    link.symlink_to(elsewhere)
    with pytest.raises(SourceError, match="is a symlink"):
        export_bundle(store, link)
    assert elsewhere.read_text() == "the person's own file\n" and link.is_symlink()
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    project = str(store.layout.project_root)
    run = run_cli("memories", "export", "bundle", "--file", str(fifo), "-p", project)
    assert run.returncode == 1 and "is a fifo" in run.stderr, run.stderr
    target = tmp_path / "out.json"
    target.write_text("old\n")
    assert export_bundle(store, target) == 1
    assert json.loads(target.read_text())["memories"][0]["name"] == "core"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    (store.layout.project_root / ".serena" / "memories" / "latin1.md").write_bytes(b"caf\xe9\n")
    run = run_cli("memories", "export", "bundle", "--file", str(target), "-p", project)
    assert run.returncode == 1 and "memory 'latin1' is not valid UTF-8" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr
    assert json.loads(target.read_text())["memories"][0]["name"] == "core"
