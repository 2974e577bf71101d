"""A sync is one operation: it reads the settings of the operation that runs it, once,
however many of its steps ask (the remote, the team's repository, the history's folders).
Real git remotes in tmp folders."""

from __future__ import annotations

import shutil
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from cli_support import git
from conftest import write_config

import serena_memory.sync.auto
import serena_memory.sync.team
import serena_memory.sync.transport  # noqa: F401 - imported before their loaders are counted
from serena_memory.core import config, operation
from serena_memory.core.store import MemoryStore
from serena_memory.sync.team import sync_everything

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="sync needs git")

LOADERS = ("load_settings", "load_sync_config", "load_global_config", "load_project_config")


def _counting_loads(
    monkeypatch: pytest.MonkeyPatch, every: Counter[str] | None = None
) -> Counter[str]:
    """How often each settings loader is called from outside the loaders, wherever the
    library imported it (a loader calling another counts once); ``every`` counts each call,
    the loaders' own included."""
    counts: Counter[str] = Counter()
    depth = [0]
    for name in LOADERS:
        real = getattr(config, name)

        def counted(*args: Any, _real: Any = real, _name: str = name, **kwargs: Any) -> Any:
            if depth[0] == 0:
                counts[_name] += 1
            if every is not None:
                every[_name] += 1
            depth[0] += 1
            try:
                return _real(*args, **kwargs)
            finally:
                depth[0] -= 1

        for module in list(sys.modules.values()):
            if module.__name__.startswith("serena_memory") and getattr(module, name, None) is real:
                monkeypatch.setattr(module, name, counted)
    return counts


def _team_repository(root: Path) -> Path:
    bare, work = root / "team.git", root / "lead"
    git("init", "--quiet", "--bare", "--initial-branch=main", str(bare))
    git("init", "--quiet", "--initial-branch=main", str(work))
    (work / "conventions.md").write_text("# Conventions\n\nsnake_case\n", encoding="utf-8")
    git("add", "--all", cwd=work)
    git("commit", "--quiet", "-m", "conventions", cwd=work)
    git("push", "--quiet", str(bare), "main", cwd=work)
    return bare


def test_one_sync_loads_the_settings_once(
    store: MemoryStore, serena_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    remote = tmp_path / "personal.git"
    git("init", "--quiet", "--bare", "--initial-branch=main", str(remote))
    team = _team_repository(tmp_path / "team")
    write_config(
        serena_home / "serena_config.yml",
        f"memory_sync_remote: {remote}\nmemory_sync_team_remote: {team}\n",
    )
    store.write("global/habits", "tabs, never spaces\n")
    every: Counter[str] = Counter()
    loads = _counting_loads(monkeypatch, every)
    for _ in range(2):  # the first sync pushes and pulls the team; the second has nothing new
        with operation.operation():
            results = sync_everything(store, "global")
        assert [r.scope for r in results] == ["global", "team"]
        assert loads == {"load_settings": 1, "load_sync_config": 1}
        assert every["load_sync_config"] == 1  # the settings take the sync file already read
        loads.clear()
        every.clear()
    assert store.read("global/team/conventions") == "# Conventions\n\nsnake_case\n"
    # outside any operation, each step reads them afresh, as before
    sync_everything(store, "global")
    assert loads["load_sync_config"] > 1
