"""A project that runs check-manifest fails it once the memories are committed: the sheet
says so, wherever the check runs, unless the project already leaves `.serena` out of it."""

from __future__ import annotations

from pathlib import Path

import pytest
from fact_support import project

TOX = "[testenv:check-manifest]\ndeps = check-manifest\ncommands = check-manifest\n"
CI = "jobs:\n  lint:\n    steps:\n      - run: pipx run check-manifest\n"
PRE_COMMIT = (
    "repos:\n  - repo: https://github.com/mgedmin/check-manifest\n"
    "    hooks:\n      - id: check-manifest\n"
)


@pytest.mark.parametrize(
    ("rel", "text"),
    [("tox.ini", TOX), (".github/workflows/ci.yml", CI), (".pre-commit-config.yaml", PRE_COMMIT)],
)
def test_the_sheet_warns_where_check_manifest_runs(tmp_path: Path, rel: str, text: str) -> None:
    sheet = project(tmp_path, {"pyproject.toml": "[project]\nname = 'x'\n", rel: text})
    told = sheet.to_markdown()
    assert f"`{rel}` runs check-manifest" in told
    assert '`[tool.check-manifest] ignore = [".serena/**"]`' in told


@pytest.mark.parametrize(
    ("rel", "text"),
    [
        ("pyproject.toml", '[tool.check-manifest]\nignore = [".serena/**"]\n'),
        ("MANIFEST.in", "recursive-include .serena *.md\n"),
    ],
)
def test_a_project_that_leaves_serena_out_is_not_told(tmp_path: Path, rel: str, text: str) -> None:
    sheet = project(tmp_path, {"tox.ini": TOX, rel: text})
    assert "runs check-manifest" not in sheet.to_markdown()


def test_a_project_without_the_check_is_not_told(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"tox.ini": "[testenv]\ncommands = pytest\n"})
    assert "runs check-manifest" not in sheet.to_markdown()
