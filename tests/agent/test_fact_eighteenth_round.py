"""The eighteenth facts round's rules: pre-commit's taplo hooks offered as a person runs
taplo, ...

The fixtures are short files written in the shape of public projects' (a pytest plugin
tested through tox, a Rust command-line program with a website), cut down to the lines
that matter."""

from __future__ import annotations

from pathlib import Path

from fact_support import project

PYPROJECT = '[project]\nname = "x"\n'

PRE_COMMIT_TAPLO = """\
repos:
  - repo: https://github.com/astral-sh/ruff-pre-commit
    rev: v0.12.12
    hooks:
      - id: ruff
        args: [--fix, --exit-non-zero-on-fix]
      - id: ruff-format
  - repo: https://github.com/ComPWA/taplo-pre-commit
    rev: v0.9.3
    hooks:
      - id: taplo-format
      - id: taplo-lint
"""


def test_pre_commits_taplo_hooks_are_taplos_commands(tmp_path: Path) -> None:
    """The taplo hooks format and lint the TOML files as ``taplo format`` and ``taplo lint``
    do by hand, beside ruff's."""
    sheet = project(
        tmp_path,
        {
            "pyproject.toml": PYPROJECT,
            ".pre-commit-config.yaml": PRE_COMMIT_TAPLO,
            ".taplo.toml": "[formatting]\nindent_string = '    '\n",
        },
    )
    assert "taplo format" in sheet.commands["format"]
    assert "taplo lint" in sheet.commands["lint"]
    assert "ruff format" in sheet.commands["format"]


def test_no_taplo_without_its_hooks(tmp_path: Path) -> None:
    """A taplo configuration alone, no hook or task running it, offers nothing."""
    sheet = project(tmp_path, {"pyproject.toml": PYPROJECT, ".taplo.toml": "[formatting]\n"})
    assert not any("taplo" in command for command in sheet.offered())
