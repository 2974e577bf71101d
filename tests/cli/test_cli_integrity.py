"""The integrity commands as a user runs them: real `serena` subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli, write_config

MEMORIES = {
    "core": "Entry. Read `mem:auth/login` first; `mem:auth/logn` is a typo.\n"
    "Bare: tech_stack and style.\n",
    "auth/login": "Login; see `mem:core`.\n",
    "tech_stack": "Python.\n",
    "style": "Short.\n",
    "frozen/rules": "Frozen: `mem:gone` and auth/login.\n",
    "notes": "Near-miss: Tech_Stack.\n",
}


@pytest.fixture
def folder(project: Path, serena_home: Path) -> Path:
    write_config(project / ".serena" / "project.yml", 'read_only_memory_patterns: ["frozen/.*"]\n')
    for name, text in MEMORIES.items():
        path = project / ".serena" / "memories" / (name + ".md")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return project


def test_check_human_output_grouped_and_exit_status(folder: Path) -> None:
    done = run_cli(
        "memories", "check", str(folder), "--include-unmarked", "--fuzzy-matching", "--reachability"
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    order = [
        "Stale references (2):",
        "  - `mem:auth/logn` in `core` (line 1)",
        "    candidates: `mem:auth/login`",
        "  - `mem:gone` in `frozen/rules` [read-only source] (line 1)",
        "  high confidence (2):",
        "    - 1 occurrence of `tech_stack` in `core` (suggested: `mem:tech_stack`)",
        "    - 1 occurrence of `auth/login` in `frozen/rules` [read-only source]"
        " (suggested: `mem:auth/login`)",
        "  low confidence (1):",
        "    - 1 occurrence of `style` in `core` (suggested: `mem:style`)",
        "  - 1 occurrence of `Tech_Stack` in `notes` — near-miss (suggested: `mem:tech_stack`)",
        "Not reachable from `mem:core` (4):",
        "  - `tech_stack`",
    ]
    positions = [out.index(line) for line in order]
    assert positions == sorted(positions), out


def test_check_strict_and_json(folder: Path) -> None:
    done = run_cli("memories", "check", str(folder), "--strict", "--json")
    assert done.returncode == 1
    data = json.loads(done.stdout)
    assert [(s["source"], s["target"], s["candidates"]) for s in data["stale_references"]] == [
        ("core", "auth/logn", ["auth/login"]),
        ("frozen/rules", "gone", []),
    ]
    assert "bare_mentions" not in data and data["clean"] is False
    for name in ("core", "frozen/rules"):
        (folder / ".serena" / "memories" / (name + ".md")).write_text("fixed\n")
    clean = run_cli("memories", "check", str(folder), "--strict")
    assert clean.returncode == 0
    assert clean.stdout.startswith("No integrity problems found")


def test_check_counts_what_list_shows_and_says_what_it_left_out(
    project: Path, serena_home: Path
) -> None:
    """A project after onboarding: a topic folder, a global memory, the seeded
    memory_maintenance (its examples are not references) and an empty memory; `check`
    tells the count `list` shows and why some were not checked."""
    texts = {
        "core": "Entry. Read `mem:auth/login`.\n",
        "auth/login": "Login; see `mem:core`.\n",
        "global/style": "Short lines.\n",
        "memory_maintenance": "Examples: `mem:db/migrations` is how a reference looks.\n",
    }
    for name, text in texts.items():
        done = run_cli("memories", "write", name, str(project), "--content", text)
        assert done.returncode == 0, done.stderr
    (project / ".serena" / "memories" / "scratch.md").write_text("", encoding="utf-8")
    listed = json.loads(run_cli("memories", "list", str(project), "--json").stdout)["memories"]
    assert len(listed) == 5
    done = run_cli("memories", "check", str(project))
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "No integrity problems found (3 of 5 memories, references checked; left out: "
        "memory_maintenance (it holds examples), 1 empty memory).\n"
    )
    data = json.loads(run_cli("memories", "check", str(project), "--json").stdout)
    assert data["scanned"] + len(data["not_scanned"]) == len(listed)
    assert sorted(data["not_scanned"]) == ["memory_maintenance", "scratch"]


def test_fuzzy_without_unmarked_is_ignored_with_a_note(folder: Path) -> None:
    done = run_cli("memories", "check", str(folder), "--fuzzy-matching")
    assert done.returncode == 0
    assert "--include-unmarked" in done.stderr
    assert "near-miss" not in done.stdout


def test_check_reports_a_broken_config_and_a_missing_project(folder: Path) -> None:
    write_config(folder / ".serena" / "project.yml", "read_only_memory_patterns: ['(']\n")
    done = run_cli("memories", "check", str(folder))
    assert done.returncode == 1
    assert "project.yml" in done.stderr and "read_only_memory_patterns" in done.stderr
    assert "Traceback" not in done.stderr
    missing = run_cli("memories", "check", str(folder / "nope"))
    assert missing.returncode == 1 and "does not exist" in missing.stderr


def test_auto_prefix_dry_run_then_apply_then_nothing(folder: Path) -> None:
    core = folder / ".serena" / "memories" / "core.md"
    before = core.read_text()
    dry = run_cli("memories", "auto-prefix-references", str(folder), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "Would add `mem:` to 1 bare mention in 1 memory (dry run" in dry.stdout
    assert "  - 1 x `tech_stack` -> `mem:tech_stack` in `core`" in dry.stdout
    assert "Skipped, flat name (1)" in dry.stdout and "`style` in `core`" in dry.stdout
    assert "Skipped, read-only source (1)" in dry.stdout
    assert "Skipped, near-miss (1)" in dry.stdout and "`Tech_Stack` in `notes`" in dry.stdout
    assert core.read_text() == before
    done = run_cli("memories", "auto-prefix-references", str(folder))
    assert done.stdout.startswith("Added `mem:` to 1 bare mention")
    assert core.read_text() == before.replace("tech_stack and", "mem:tech_stack and")
    again = run_cli("memories", "auto-prefix-references", str(folder), "--json")
    data = json.loads(again.stdout)
    assert data["changed"] == [] and data["replacements"] == 0
    assert {s["reason"] for s in data["skipped"]} == {"flat name", "read-only source", "near-miss"}
    wide = run_cli(
        "memories", "auto-prefix-references", str(folder), "--include-flat-names",
        "--include-read-only",
    )  # fmt: skip
    assert "in `frozen/rules`" in wide.stdout and "`style` -> `mem:style`" in wide.stdout
    rules = (folder / ".serena" / "memories" / "frozen" / "rules.md").read_text()
    assert rules == "Frozen: `mem:gone` and mem:auth/login.\n"


def test_backlinks(folder: Path) -> None:
    done = run_cli("memories", "backlinks", "auth/login", str(folder))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "1 memory references `mem:auth/login`:\n  core: line 1\n"
    data = json.loads(run_cli("memories", "backlinks", "gone", str(folder), "--json").stdout)
    assert data == {
        "name": "gone",
        "exists": False,
        "backlinks": [{"source": "frozen/rules", "lines": [1], "source_read_only": True}],
    }
    none = run_cli("memories", "backlinks", "style", str(folder))
    assert none.stdout == "No memory references `mem:style`.\n"


def test_graph_formats(folder: Path) -> None:
    mermaid = run_cli("memories", "graph", str(folder))
    assert mermaid.stdout.startswith("graph LR\n")
    data = json.loads(run_cli("memories", "graph", str(folder), "--format", "json").stdout)
    missing = {n["name"] for n in data["nodes"] if n["missing"]}
    assert missing == {"auth/logn", "gone"}
    dot = run_cli("memories", "graph", str(folder), "--format", "dot").stdout
    assert '"core" -> "auth/login";' in dot
    bad = run_cli("memories", "graph", str(folder), "--format", "png")
    assert bad.returncode == 2


def test_cli_start_does_not_load_the_integrity_engine() -> None:
    code = (
        "import sys\n"
        "import serena_memory.cli as c\n"
        "assert 'check' in c.memories.commands\n"
        "heavy = {'ahocorasick', 'rapidfuzz', 'serena_memory.integrity.references.analysis',\n"
        "         'serena_memory.integrity.references.similarity'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_an_undecodable_memory_is_reported_by_check_and_graph_without_a_traceback(
    folder: Path,
) -> None:
    memories = folder / ".serena" / "memories"
    (memories / "core.md").write_text("Entry: `mem:latin1` then `mem:auth/login`.\n")
    (memories / "latin1.md").write_bytes(b"Caf\xe9 notes, see `mem:style`\n")
    done = run_cli("memories", "check", str(folder), "--reachability")
    assert "Traceback" not in done.stderr, done.stderr
    assert "Not valid UTF-8, not checked (1):\n  - `latin1`" in done.stdout
    assert "  - `style`" in done.stdout  # only reached through the undecodable memory
    data = json.loads(run_cli("memories", "check", str(folder), "--reachability", "--json").stdout)
    assert data["unreadable"] == ["latin1"] and "latin1" not in data["unreachable"]
    for fmt, marker in [
        ("mermaid", "latin1 (not UTF-8)"),
        ("dot", "latin1 (not UTF-8)"),
        ("graphml", '<data key="unreadable">true</data>'),
        ("json", '"unreadable": true'),
    ]:
        done = run_cli("memories", "graph", str(folder), "--format", fmt)
        assert done.returncode == 0, done.stderr
        assert marker in done.stdout, fmt
    nodes = {n["name"]: n for n in json.loads(done.stdout)["nodes"]}
    assert nodes["latin1"]["unreadable"] and nodes["latin1"]["reachable"]
    assert not nodes["core"]["unreadable"]


def test_auto_prefix_writes_memory_file_paths_as_references_only_when_asked(
    project: Path, serena_home: Path
) -> None:
    memories = project / ".serena" / "memories"
    memories.mkdir(parents=True, exist_ok=True)
    (memories / "evaluator_architecture_2025.md").write_text("Design.\n")
    notes = memories / "notes.md"
    text = (
        "Design: `.serena/memories/evaluator_architecture_2025.md`.\n"
        "Link: [design](.serena/memories/evaluator_architecture_2025.md)\n"
    )
    notes.write_text(text)
    plain = run_cli("memories", "auto-prefix-references", str(project))
    assert "Skipped, path to a memory file (1)" in plain.stdout, plain.stdout
    assert "--include-file-paths" in plain.stdout and notes.read_text() == text
    done = run_cli("memories", "auto-prefix-references", str(project), "--include-file-paths")
    assert done.returncode == 0, done.stderr
    assert (
        "1 x `.serena/memories/evaluator_architecture_2025.md` -> "
        "`mem:evaluator_architecture_2025` in `notes`" in done.stdout
    )
    assert notes.read_text() == text.replace(
        "`.serena/memories/evaluator_architecture_2025.md`", "`mem:evaluator_architecture_2025`"
    )  # the Markdown link is left as it is: rewriting it would break it
    again = run_cli("memories", "auto-prefix-references", str(project), "--include-file-paths")
    assert "Nothing to prefix" in again.stdout
