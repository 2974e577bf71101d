"""Shared fixtures: every test gets its own SERENA_HOME and project folder."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from cli_support import SERENA, run_cli, run_cli_process

from serena_memory.core.store import Context, MemoryStore
from serena_memory.wiring import build_store

REPO_ROOT = Path(__file__).resolve().parent.parent


def load_script(rel: str) -> ModuleType:
    """A script of the repository (a benchmark, a generator) loaded as a module, by its
    path below the repository's root: scripts are not a package."""
    path = REPO_ROOT / rel
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


__all__ = ["SERENA", "REPO_ROOT", "run_cli", "run_cli_process"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test driving the headless browser is slow by its nature, wherever it is."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def serena_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Never touch the real ~/.serena: each test has its own home."""
    home = tmp_path / "serena-home"
    home.mkdir()
    monkeypatch.setenv("SERENA_HOME", str(home))
    monkeypatch.delenv("SERENA_MCP_TOKEN", raising=False)  # the stored token, unless a test sets it
    return home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.fixture
def store(project: Path, serena_home: Path) -> MemoryStore:
    return build_store(project, home=serena_home, context=Context.HUMAN)


@pytest.fixture
def agent_store(project: Path, serena_home: Path) -> MemoryStore:
    return build_store(project, home=serena_home, context=Context.AGENT)


def write_config(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def damage_schema_name(path: Path, table: str) -> None:
    """Give ``table`` of the SQLite file at ``path`` a schema name that is not UTF-8, as a
    damaged cache file may have."""
    import sqlite3

    conn = sqlite3.connect(path)
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute(
        "UPDATE sqlite_master SET name = CAST(X'C3FF' || name AS TEXT) WHERE name = ?", (table,)
    )
    conn.commit()
    conn.close()
