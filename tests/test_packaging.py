"""The built wheel (what `pipx install` and `uv tool install` install) is whole."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow  # builds a wheel with pip
def test_wheel_carries_templates_static_files_and_the_serena_command(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(tmp_path), "."],
        cwd=REPO_ROOT,
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("serena_memory-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "serena_memory/agent/templates/memory_maintenance.md",
        "serena_memory/dashboard/static/app.js",
        "serena_memory/dashboard/static/index.html",
        "serena_memory/cli/__main__.py",
    ):
        assert needed in names, needed
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "serena = serena_memory.cli:main" in text


def test_every_library_the_code_imports_is_a_declared_dependency() -> None:
    """What the code imports itself is declared, with its bounds, not left to arrive as some
    other library's dependency (which may drop it in any release)."""
    import ast
    import importlib.metadata as metadata
    import re
    import tomllib

    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    declared = {
        re.split(r"[<>=!~; \[]", spec, maxsplit=1)[0].lower().replace("_", "-")
        for spec in project["project"]["dependencies"]
    }
    owners = metadata.packages_distributions()
    imported: set[str] = set()
    for path in (REPO_ROOT / "src").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                imported.add(node.module.split(".")[0])
    undeclared = {}
    for top in sorted(imported - set(sys.stdlib_module_names) - {"serena_memory"}):
        dists = {d.lower().replace("_", "-") for d in owners.get(top, [])}
        if not dists & declared:
            undeclared[top] = sorted(dists)
    assert undeclared == {}
