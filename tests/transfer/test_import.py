"""Importing memories from other tools' files, and exporting them for agents without MCP.

Real files in tmp folders: the fixtures under tests/fixtures/import are written in the
style of each tool's public examples."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import REPO_ROOT, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from serena_memory.core.store import MemoryStore
from serena_memory.transfer.export import (
    bundle_bytes,
    export_bundle,
    export_section,
)
from serena_memory.transfer.formats import detect, plan_import
from serena_memory.transfer.plan import apply_plan
from serena_memory.transfer.sources import SourceError
from serena_memory.wiring import build_store

FIXTURES = REPO_ROOT / "tests" / "fixtures" / "import"
# format, fixture folder, path below it to import, names that must be created
CASES = [
    ("claude-md", "claude-md", ".", ["core", "tech_stack", "suggested_commands", "conventions"]),
    ("cline-memory-bank", "cline", ".", ["core", "tech_stack", "cline-memory-bank/progress"]),
    ("cursor-rules", "cursor", ".", ["cursor-rules/typescript", "cursor-rules/frontend/react"]),
    ("basic-memory", "basic-memory", ".", ["basic-memory/notes/grind-size"]),
    ("claude-auto-memory", "auto-memory", ".", ["claude-memory/core", "claude-memory/debugging"]),
    ("mcp-memory-jsonl", "mcp", "memory.jsonl", ["mcp-memory/dana_ortiz"]),
]


def _source(tmp_path: Path, folder: str) -> Path:
    target = tmp_path / "sources" / folder
    shutil.copytree(FIXTURES / folder, target)
    return target


def _all_text(store: MemoryStore) -> str:
    return "\n".join(store.read(n) for n in store.scan().files)


def _source_lines(root: Path) -> list[str]:
    lines = []
    for path in sorted(root.rglob("*")):
        if path.is_file():
            lines += [line for line in path.read_text().splitlines() if line.strip()]
    return lines


@pytest.mark.parametrize(("fmt", "folder", "rel", "expected"), CASES)
def test_every_format_imports_once_keeps_every_line_and_undoes_in_one_restore(
    store: MemoryStore, tmp_path: Path, fmt: str, folder: str, rel: str, expected: list[str]
) -> None:
    source = _source(tmp_path, folder)
    dry = apply_plan(store, plan_import(fmt, source / rel), dry_run=True)
    assert dry.created and not list(store.scan().files)
    store.write("before", "a memory of the person\n")
    result = apply_plan(store, plan_import(fmt, source / rel))
    assert set(expected) <= set(result.created)
    text = _all_text(store)
    if fmt == "mcp-memory-jsonl":
        for word in ("Maintains the billing service", "Backed by Redis streams", "maintains"):
            assert word in text
    else:
        missing = [line for line in _source_lines(source) if line not in text]
        assert missing == []
    entries = store.history().entries()
    again = apply_plan(store, plan_import(fmt, source / rel))
    assert again.created == [] and sorted(again.unchanged) == sorted(result.created)
    assert len(store.history().entries()) == len(entries)
    history = store.history()
    history.restore_all(history.before_rev(entries[0].rev))
    assert sorted(store.scan().files) == ["before"]


def test_claude_md_links_become_references_and_cycles_end(store: MemoryStore, tmp_path: Path):
    source = _source(tmp_path, "claude-md")
    apply_plan(store, plan_import("claude-md", source))
    core = store.read("core")
    assert "mem:claude-md/docs/architecture" in core and "mem:claude-md/docs/testing" in core
    assert "@testing.md. (mem:claude-md/docs/testing)" in store.read("claude-md/docs/architecture")
    assert "mem:claude-md/docs/architecture" in store.read("claude-md/docs/testing")
    assert "make" not in store.read("suggested_commands")
    assert "uv run pytest -q" in store.read("suggested_commands")
    assert "Invoices are generated" in store.read("claude-md/services/billing/core")
    assert "ops@harbor.example" in store.read("claude-md/gotchas")  # an e-mail is no import


def test_front_matter_is_kept_visibly(store: MemoryStore, tmp_path: Path) -> None:
    apply_plan(store, plan_import("cursor-rules", _source(tmp_path, "cursor")))
    rule = store.read("cursor-rules/typescript")
    assert "applied to files matching: src/**/*.ts, src/**/*.tsx (globs)" in rule
    assert "TypeScript conventions for the web client" in rule
    assert "mem:cursor-rules/frontend/react" in rule
    assert "always applied (alwaysApply: true)" in store.read("cursor-rules/always")
    apply_plan(store, plan_import("basic-memory", _source(tmp_path, "basic-memory")))
    note = store.read("basic-memory/notes/coffee-brewing")
    assert "tags: coffee, brewing" in note and "permalink: notes/coffee-brewing-methods" in note
    assert "[[Grind Size]] (mem:basic-memory/notes/grind-size)" in note
    assert "(mem:basic-memory/notes/decisions/choosing-a-grinder)" in note
    assert "[[Tea Steeping]]" in note  # no such note: left as text


def test_an_existing_memory_is_skipped_or_written_beside(store: MemoryStore, tmp_path: Path):
    source = _source(tmp_path, "cline")
    store.write("core", "the person's own core\n")
    result = apply_plan(store, plan_import("cline-memory-bank", source), on_conflict="skip")
    assert [name for name, _ in result.skipped] == ["core"]
    assert store.read("core") == "the person's own core\n"
    renamed = apply_plan(store, plan_import("cline-memory-bank", source), on_conflict="rename")
    assert renamed.created == ["core-imported"]
    assert "Lantern is a desktop note app" in store.read("core-imported")
    again = apply_plan(store, plan_import("cline-memory-bank", source), on_conflict="rename")
    assert again.created == []


def test_by_default_the_text_that_collides_goes_beside_and_is_linked(
    store: MemoryStore, tmp_path: Path
) -> None:
    """An import next to existing memories keeps every line: what collides goes beside the
    memory of its name, which links to it, so the agent starting from `mem:core` finds it."""
    source = _source(tmp_path, "cline")
    store.write("core", "# Core\n\nthe person's own core\n")
    result = apply_plan(store, plan_import("cline-memory-bank", source))
    assert result.skipped == [] and "cline-memory-bank/core" in result.created
    assert "Lantern is a desktop note app" in store.read("cline-memory-bank/core")
    assert store.read("core") == (
        "# Core\n\nthe person's own core\n\nImported from "
        f"{result.plan.origins['core']} beside this memory: `mem:cline-memory-bank/core`.\n"
    )
    assert "core links to it" in "\n".join(result.lines())
    planned = plan_import("cline-memory-bank", source)
    written = "".join(store.read(n) for n in store.scan().files)
    lines = {line for text in planned.memories.values() for line in text.splitlines() if line}
    assert [line for line in lines if line not in written] == []  # nothing dropped
    again = apply_plan(store, plan_import("cline-memory-bank", source))
    assert again.created == [] and again.linked == []
    assert store.read("core").count("beside this memory") == 1


def test_hostile_sources_are_refused_in_one_sentence(tmp_path: Path, project: Path) -> None:
    outside = tmp_path / "secret.md"
    outside.write_text("TOP SECRET\n")
    source = tmp_path / "src"
    source.mkdir()
    (source / "linked.md").symlink_to(outside)
    (source / "CLAUDE.md").write_text("# P\nsee @linked.md and @../secret.md\n")
    plan = plan_import("claude-md", source)
    assert "TOP SECRET" not in "".join(plan.memories.values())
    assert any("outside the source folder" in w for w in plan.warnings)
    (source / "CLAUDE.md").write_bytes(b"# P\n\xff\xfe bad\n")
    run = run_cli("memories", "import", "claude-md", str(source), "-p", str(project))
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "CLAUDE.md is not valid UTF-8" in run.stderr
    (source / "CLAUDE.md").write_bytes(b"x" * (3 * 1024 * 1024))
    with pytest.raises(SourceError, match="limit"):
        plan_import("claude-md", source)
    (source / "CLAUDE.md").write_text("> " * 5000 + "deep\n" + "[" * 5000 + "\n")
    plan_import("claude-md", source)  # deep nesting: read, not a crash
    chain = tmp_path / "chain"
    chain.mkdir()
    (chain / "CLAUDE.md").write_text("@f0.md\n")
    for i in range(9):
        (chain / f"f{i}.md").write_text(f"@f{i + 1}.md\n")
    (chain / "f9.md").write_text("end\n")
    plan = plan_import("claude-md", chain)
    assert any("deeper than" in w for w in plan.warnings)
    (chain / "memory.jsonl").write_text('{"type":"entity"\n')
    with pytest.raises(SourceError, match="line 1 is not a JSON object"):
        plan_import("mcp-memory-jsonl", chain / "memory.jsonl")


_TOKENS = [*"abc #@[]()`>-*:/.", "```", "## ", "mem:", "\u00e9", "---", "[[x]]", "@a.md"]
_LINE = st.lists(st.sampled_from(_TOKENS), max_size=12).map("".join)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    lines=st.lists(_LINE, max_size=30),
    fmt=st.sampled_from(
        [
            "claude-md",
            "agents-md",
            "cline-memory-bank",
            "cursor-rules",
            "basic-memory",
            "claude-auto-memory",
        ]
    ),
)
def test_every_line_of_any_source_lands_in_some_memory(tmp_path: Path, lines: list[str], fmt: str):
    folder = tmp_path / f"prop-{abs(hash((tuple(lines), fmt)))}"
    folder.mkdir()
    name = {"claude-md": "CLAUDE.md", "agents-md": "AGENTS.md", "cursor-rules": "rule.mdc"}.get(
        fmt, "MEMORY.md"
    )
    text = "\n".join(lines) + "\n"
    (folder / name).write_text(text, encoding="utf-8")
    plan = plan_import(fmt, folder)
    joined = "\n".join(plan.memories.values())
    for line in lines:
        assert line.strip() == "" or line in joined


@settings(max_examples=30, deadline=None)
@given(observations=st.lists(st.text(min_size=1, max_size=30), min_size=1, max_size=5))
def test_every_observation_lands_in_a_memory(tmp_path_factory, observations: list[str]) -> None:
    import json

    folder = tmp_path_factory.mktemp("jsonl")
    record = {"type": "entity", "name": "E", "entityType": "t", "observations": observations}
    (folder / "memory.jsonl").write_text(json.dumps(record) + "\n")
    text = "".join(plan_import("mcp-memory-jsonl", folder).memories.values())
    assert all(o in text for o in observations)


def test_export_section_replaces_only_itself_and_check_tells_stale(store: MemoryStore) -> None:
    agents = store.layout.project_root / "AGENTS.md"
    agents.write_bytes(b"# My notes\r\n\r\nKeep this \xc3\xa9 text.\r\n")
    store.write("core", "entry\n")
    assert export_section(store, "agents-md").changed
    first = agents.read_bytes()
    assert first.startswith(b"# My notes\r\n\r\nKeep this \xc3\xa9 text.\r\n")
    assert b".serena/memories/core.md" in first
    agents.write_bytes(first + b"\nMy own closing words.\n")
    assert not export_section(store, "agents-md").changed
    store.write("topic/x", "new\n")
    assert export_section(store, "agents-md", check=True).changed
    export_section(store, "agents-md")
    after = agents.read_bytes()
    assert after.endswith(b"\nMy own closing words.\n") and b"topic/" in after
    export_section(store, "agents-md")
    assert agents.read_bytes() == after
    run = run_cli(
        "memories", "export", "agents-md", "--check", "-p", str(store.layout.project_root)
    )
    assert run.returncode == 0, run.stderr
    store.write("more", "x\n")
    run = run_cli(
        "memories", "export", "agents-md", "--check", "-p", str(store.layout.project_root)
    )
    assert run.returncode == 1 and "out of date" in run.stdout


def test_export_refuses_a_file_outside_the_project(store: MemoryStore, tmp_path: Path) -> None:
    (store.layout.project_root / "AGENTS.md").symlink_to(tmp_path / "elsewhere.md")
    with pytest.raises(SourceError, match="outside the project"):
        export_section(store, "agents-md")
    assert not (tmp_path / "elsewhere.md").exists()


def test_a_bundle_round_trips_byte_for_byte(store: MemoryStore, tmp_path: Path, serena_home):
    store.write("core", "entry\r\nwith CRLF and \u00e9\n")
    store.write("a/b", "no final newline")
    bundle = tmp_path / "all.json"
    export_bundle(store, bundle)
    other_root = tmp_path / "other"
    other_root.mkdir()
    other = build_store(other_root, home=serena_home)
    result = apply_plan(other, plan_import("bundle", bundle))
    assert sorted(result.created) == ["a/b", "core"]
    for name in ("core", "a/b"):
        assert other.read_bytes(name) == store.read_bytes(name)
    assert bundle_bytes(other) == bundle_bytes(store)


def test_detect_lists_what_a_project_holds(tmp_path: Path, project: Path) -> None:
    shutil.copytree(FIXTURES / "cline" / "memory-bank", project / "memory-bank")
    (project / "CLAUDE.md").write_text("# x\n")
    found = {f.format for f in detect(project, tmp_path / "home")}
    assert found == {"claude-md", "cline-memory-bank"}
    run = run_cli("memories", "import", "auto", "-p", str(project))
    assert "cline-memory-bank" in run.stdout and "--yes" in run.stdout
    run = run_cli("memories", "import", "auto", "--yes", "-p", str(project))
    assert run.returncode == 0, run.stderr
    assert (project / ".serena" / "memories" / "core.md").exists()
    assert os.path.exists(project / ".serena" / "memories" / "cline-memory-bank" / "progress.md")


def test_agents_md_holding_what_claude_md_holds_is_one_source(
    tmp_path: Path, project: Path
) -> None:
    """A project keeping one guide for each tool (a copy, or a link to the other) had it
    imported twice, and `check --duplicates` told every memory as a copy of its twin."""
    guide = "# Guide\n\n## Commands\n- `make test`\n\n## Style\n- Black, 100 columns\n"
    (project / "CLAUDE.md").write_text(guide)
    (project / "AGENTS.md").write_text(guide)
    assert {f.format for f in detect(project, tmp_path / "home")} == {"claude-md"}
    (project / "AGENTS.md").unlink()
    (project / "AGENTS.md").symlink_to("CLAUDE.md")
    assert {f.format for f in detect(project, tmp_path / "home")} == {"claude-md"}
    (project / "AGENTS.md").unlink()
    (project / "AGENTS.md").write_text(guide + "- one more line\n")
    assert {f.format for f in detect(project, tmp_path / "home")} == {"claude-md", "agents-md"}
    (project / "AGENTS.md").write_text(guide)
    run = run_cli("memories", "import", "auto", "--yes", "-p", str(project))
    assert run.returncode == 0, run.stderr
    memories = project / ".serena" / "memories"
    assert (memories / "claude-md").is_dir() and not (memories / "agents-md").exists()


def test_the_activation_message_names_importable_sources(store: MemoryStore) -> None:
    from serena_memory.agent.onboarding import activation_message

    (store.layout.project_root / "AGENTS.md").write_text("# x\n")
    text = activation_message(store)
    # the file the agent opens, named as its file tools take it (not the project folder)
    assert "(`AGENTS.md`)" in text and "serena memories import auto" in text
    store.write("core", "entry\n")
    assert "serena memories import auto" not in activation_message(store)
