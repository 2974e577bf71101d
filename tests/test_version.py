"""The version: pyproject's ``version`` is the one place it is written."""

from __future__ import annotations

import tomllib
from pathlib import Path

from conftest import run_cli

import serena_memory

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def pyproject_version() -> str:
    return tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["version"]


def test_serena_version_prints_pyprojects_version() -> None:
    result = run_cli("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["serena,", "version", pyproject_version()]


def test_the_package_and_the_mcp_server_report_pyprojects_version() -> None:
    import anyio
    from mcp import Client

    from serena_memory.mcp.server import create_server

    assert serena_memory.__version__ == pyproject_version()

    async def server_version() -> str | None:
        _state, server = create_server(None, (), use_default_project=False)
        async with Client(server) as client:
            return client.server_info.version if client.server_info else None

    assert anyio.run(server_version) == pyproject_version()
