"""`serena memories facts`: a person reads the fact sheet onboarding gives the agent, from
the command line, without writing anything into the project."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "demo"\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
        "[tool.ruff]\nline-length = 100\n",
        encoding="utf-8",
    )
    (root / "demo.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    (root / "tests" / "test_demo.py").write_text("def test_f():\n    pass\n", encoding="utf-8")
    return root


def test_facts_prints_the_commands_by_kind_and_writes_nothing(tmp_path: Path) -> None:
    root = _project(tmp_path)
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    done = run_cli("memories", "facts", str(root), check=True)
    assert "- Test: `pytest`" in done.stdout
    assert "`ruff check`" in done.stdout
    assert "Python (2); 2 source files." in done.stdout
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before


def test_facts_as_json_for_scripts(tmp_path: Path) -> None:
    done = run_cli("memories", "facts", str(_project(tmp_path)), "--json", check=True)
    sheet = json.loads(done.stdout)
    assert "pytest" in sheet["commands"]["test"]
    assert sheet["languages"] == [{"language": "Python", "files": 2}]


def test_facts_of_a_folder_that_is_missing_is_one_sentence(tmp_path: Path) -> None:
    done = run_cli("memories", "facts", str(tmp_path / "nowhere"))
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_facts_never_pass_a_projects_control_characters_to_the_terminal(tmp_path: Path) -> None:
    """The sheet quotes the project's own files: a hostile guide can't steer the terminal."""
    root = _project(tmp_path)
    (root / "CONTRIBUTING.md").write_text(
        "# Contributing\n\n```shell\n$ pytest -k \x1b]0;owned\x07tests\n"
        "$ ruff check\x1b[2J .\n```\n",
        encoding="utf-8",
    )
    done = run_cli("memories", "facts", str(root), check=True)
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    data = run_cli("memories", "facts", str(root), "--json", check=True).stdout
    assert "\x1b" not in data
