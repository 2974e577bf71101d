"""Imports and exports, word for word: the plans made from every fixture source and from
sources with every kind of odd link and record, the results of writing them (new, again,
beside other text, renamed, as a dry run) and the exported section at a few budgets are
the ones recorded in ``tests/fixtures/transfer/recorded.json``."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

from conftest import REPO_ROOT

from serena_memory.core.store import MemoryStore
from serena_memory.transfer.export import section_text
from serena_memory.transfer.formats import plan_import
from serena_memory.transfer.plan import ImportPlan, apply_plan

FIXTURES = REPO_ROOT / "tests" / "fixtures" / "import"
RECORDED = REPO_ROOT / "tests" / "fixtures" / "transfer" / "recorded.json"
SOURCES = [
    ("claude-md", "claude-md", "."),
    ("cline-memory-bank", "cline", "."),
    ("cursor-rules", "cursor", "."),
    ("basic-memory", "basic-memory", "."),
    ("claude-auto-memory", "auto-memory", "."),
    ("mcp-memory-jsonl", "mcp", "memory.jsonl"),
]
# a CLAUDE.md whose @imports lead everywhere: home, absolute, up and out, to mentions that
# are no file, through a link out, in a cycle, deeper than allowed, to another CLAUDE.md
ODD_CLAUDE = {
    "CLAUDE.md": "Intro @~/x.md and @/etc/passwd and @../up.md and @someone.\n"
    "See @a.md and @out.md and @pkg/CLAUDE.md.\n\n## Tech stack\nPython @d1.md\n\n"
    "## Commands\nrun it\n\n## Odd one\ntext @a.md\n\n## Odd one\nagain\n",
    "a.md": "A, back to @CLAUDE.md and @a.md\n",
    "d1.md": "@d2.md\n",
    "d2.md": "@d3.md\n",
    "d3.md": "@d4.md\n",
    "d4.md": "@d5.md\n",
    "d5.md": "@d6.md\n",
    "d6.md": "deepest @d7.md\n",
    "d7.md": "too deep\n",
    "pkg/CLAUDE.md": "Package intro.\n\n## Conventions\nnested @../a.md\n",
    "pkg/sub/CLAUDE.md": "## Only a section\nbody\n",
}
ODD_JSONL = (
    "\n".join(
        json.dumps(record)
        for record in [
            {
                "type": "entity",
                "name": "Dana",
                "entityType": "person",
                "observations": ["likes tea"],
            },
            {"type": "entity", "name": "Dana", "entityType": "engineer", "observations": [1, "x"]},
            {"type": "entity", "name": "dana", "observations": "not a list"},
            {"type": "entity", "name": "Ops team", "entityType": "team"},
            {"type": "relation", "from": "Dana", "relationType": "works in", "to": "Ops team"},
            {"type": "relation", "from": "Dana", "relationType": "knows", "to": "Lee"},
            {"type": "relation", "from": "Kim", "relationType": "knows", "to": "Lee"},
            {"type": "relation", "from": "Kim", "to": "Lee"},
            {"type": "note", "text": "kept"},
            ["a", "list"],
        ]
    )
    + "\n\n"
)


def _plan_record(plan: ImportPlan, base: Path) -> dict[str, object]:
    return {
        "format": plan.format,
        "source": os.path.relpath(plan.source, base),
        "memories": plan.memories,
        "origins": plan.origins,
        "warnings": plan.warnings,
    }


def _write_tree(root: Path, tree: dict[str, str]) -> None:
    for rel, text in tree.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _odd_sources(base: Path) -> dict[str, tuple[str, Path]]:
    claude = base / "odd-claude"
    _write_tree(claude, ODD_CLAUDE)
    (base / "elsewhere.md").write_text("outside\n", encoding="utf-8")
    (claude / "out.md").symlink_to(base / "elsewhere.md")
    agents = base / "odd-agents"
    _write_tree(agents, {"AGENTS.md": "## Definition of done\ntests pass\n"})
    jsonl = base / "odd-jsonl"
    _write_tree(jsonl, {"memory.jsonl": ODD_JSONL})
    return {
        "odd-claude": ("claude-md", claude),
        "odd-agents": ("agents-md", agents),
        "odd-jsonl": ("mcp-memory-jsonl", jsonl),
    }


def plans(base: Path) -> dict[str, object]:
    found: dict[str, object] = {}
    for fmt, folder, rel in SOURCES:
        target = base / "sources" / folder
        shutil.copytree(FIXTURES / folder, target)
        found[f"plan/{folder}"] = _plan_record(plan_import(fmt, target / rel), base)
    for key, (fmt, path) in _odd_sources(base).items():
        found[f"plan/{key}"] = _plan_record(plan_import(fmt, path), base)
    return found


def results(store: MemoryStore, base: Path) -> dict[str, object]:
    """Writing the claude-md plan: dry, new, again, beside other text, renamed."""
    source = base / "sources" / "claude-md"
    if not source.exists():
        shutil.copytree(FIXTURES / "claude-md", source)

    def stable(text: str) -> str:  # the undo names an entry id and the project
        text = re.sub(r"--at [0-9a-f]{12}", "--at ENTRY", text)
        return text.replace(str(store.layout.project_root), "PROJECT").replace(str(base), "BASE")

    def record(result) -> dict[str, object]:
        data = result.to_dict()
        data["source"] = os.path.relpath(str(data["source"]), base)
        data["undo"] = [stable(c) for c in data["undo"]]
        lines = [stable(line) for line in result.lines()]
        return {"data": data, "lines": lines}

    found: dict[str, object] = {}
    store.write("conventions", "# other text\n")
    store.write("conventions-imported", "# also other\n")
    found["apply/dry"] = record(
        apply_plan(store, plan_import("claude-md", source), dry_run=True, on_conflict="skip")
    )
    found["apply/skip"] = record(
        apply_plan(store, plan_import("claude-md", source), on_conflict="skip")
    )
    found["apply/again"] = record(
        apply_plan(store, plan_import("claude-md", source), on_conflict="skip")
    )
    store.write("tech_stack", "# changed since\n")
    found["apply/rename"] = record(
        apply_plan(store, plan_import("claude-md", source), on_conflict="rename")
    )
    found["apply/rename-again"] = record(
        apply_plan(store, plan_import("claude-md", source), on_conflict="rename")
    )
    store.write("suggested_commands", "# ours\n")
    found["apply/beside"] = record(apply_plan(store, plan_import("claude-md", source)))
    found["apply/beside-again"] = record(apply_plan(store, plan_import("claude-md", source)))
    bad = ImportPlan("claude-md", str(source))
    bad.add("../escape", "x", "odd")
    bad.add(".hidden", "y", "odd")
    bad.add("fine/one", "see mem:core\n", "odd")
    found["apply/bad-names"] = record(apply_plan(store, bad))
    for budget in (600, 120, 80, 20):
        found[f"section/{budget}"] = section_text(store, budget)
    return found


def test_an_empty_project_exports_the_recorded_section(store: MemoryStore) -> None:
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    assert section_text(store) == recorded["section/empty"]
    store.write("core", "# core\n")
    assert section_text(store) == recorded["section/core-only"]


def test_the_plans_are_the_recorded_ones(tmp_path: Path) -> None:
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    for key, value in plans(tmp_path).items():
        assert value == recorded[key], key


def test_writing_them_gives_the_recorded_results(store: MemoryStore, tmp_path: Path) -> None:
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    for key, value in results(store, tmp_path / "base").items():
        assert value == recorded[key], key
