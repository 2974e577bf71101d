"""The example project `examples/demo` (what `scripts/start.sh` serves and the conformance
script copies): its memories are true of its code, so a person trying the project is not
told that the example itself mentions missing code."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest
from conftest import REPO_ROOT, run_cli

DEMO = REPO_ROOT / "examples" / "demo"
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]


def _copy(tmp_path: Path, where: str) -> Path:
    """The demo as a plain folder, as a git repository of its own, or where it is: a folder
    of this repository's work tree (read only), as `scripts/start.sh` serves it."""
    if where == "in-this-repository":
        return DEMO
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root, ignore=shutil.ignore_patterns(".*_cache", "__pycache__"))
    if where == "git-repository":
        for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "demo"]):
            subprocess.run([*GIT, *args], cwd=root, check=True, capture_output=True)
    return root


def _memories(root: Path) -> dict[str, str]:
    folder = root / ".serena" / "memories"
    return {
        p.relative_to(folder).with_suffix("").as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(folder.rglob("*.md"))
    }


@pytest.mark.parametrize("where", ["folder", "git-repository", "in-this-repository"])
def test_check_code_finds_every_path_and_symbol_the_demo_memories_name(
    tmp_path: Path, where: str
) -> None:
    root = _copy(tmp_path, where)
    done = run_cli("memories", "check", str(root), "--code", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["code"] == []
    assert report["stale_references"] == []


def test_a_newcomer_s_first_check_of_the_demo_is_clean(tmp_path: Path) -> None:
    """It listed two stale references that no page explained: a broken install, it seemed."""
    done = run_cli("memories", "check", str(_copy(tmp_path, "folder")), "--strict")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Stale references" not in done.stdout and "stale" not in done.stderr.lower()


def test_the_agent_serving_the_demo_is_told_of_no_drifted_memory(
    tmp_path: Path, serena_home: Path
) -> None:
    from mcp_support import in_memory, ok, text_read

    from serena_memory.integrity.code_drift.drifted_memories import drift_summary
    from serena_memory.wiring import build_store

    root = _copy(tmp_path, "folder")
    memories = _memories(root)
    assert len(memories) > 40
    assert drift_summary(build_store(root, home=serena_home)) == ""

    async def go() -> tuple[str, dict[str, str]]:
        async with in_memory(root) as client:
            read = {
                name: text_read(await ok(client, "read_memory", memory_name=name))
                for name in memories
            }
            return client.instructions or "", read

    instructions, read = anyio.run(go)
    assert "Active project" in instructions
    assert "missing or moved" not in instructions
    # a memory naming missing code would end with a note naming it
    assert read == memories
