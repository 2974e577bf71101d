"""An import of an old copy never brings a deprecated memory's old text back as current:
neither over it nor beside it (where the agent would find it as a memory of its own)."""

from __future__ import annotations

from pathlib import Path

from conftest import run_cli

from serena_memory.core.store import MemoryStore
from serena_memory.transfer.export import export_bundle
from serena_memory.transfer.formats import plan_import
from serena_memory.transfer.plan import apply_plan

OLD = "# Deploy\n\nRun `make deploy` from the root.\n"
DEPRECATED = "---\nstatus: deprecated\nsuperseded_by: release\n---\n# Deploy\n\nSee the release.\n"


def test_an_old_bundle_leaves_a_deprecated_memory_deprecated(
    store: MemoryStore, tmp_path: Path
) -> None:
    store.write("deploy", OLD)
    store.write("core", "# Core\n")
    old_copy = tmp_path / "old.json"
    export_bundle(store, old_copy)
    store.write("deploy", DEPRECATED)
    store.write("release", "# Release\n")
    before = sorted(store.scan().files)
    result = apply_plan(store, plan_import("bundle", old_copy))
    assert store.read("deploy") == DEPRECATED
    assert sorted(store.scan().files) == before  # nothing beside it either
    [(name, why)] = result.skipped
    assert name == "deploy" and "deprecated" in why
    assert "core" in result.unchanged


def test_the_command_line_says_why_it_was_skipped(store: MemoryStore, tmp_path: Path) -> None:
    store.write("deploy", OLD)
    old_copy = tmp_path / "old.json"
    export_bundle(store, old_copy)
    store.write("deploy", DEPRECATED)
    done = run_cli(
        "memories", "import", "bundle", str(old_copy), "-p", str(store.layout.project_root)
    )
    assert done.returncode == 0, done.stderr
    assert "skipped deploy: the memory of that name is deprecated" in done.stdout
    assert store.read("deploy") == DEPRECATED
