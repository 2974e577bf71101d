"""The eighteenth facts round's rules: pre-commit's taplo hooks offered as a person runs
taplo, the ``actions-rs/cargo`` action's ``command`` and ``args`` read as the cargo
command it runs, ...

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


CARGO_TOML = '[package]\nname = "x"\nversion = "0.1.0"\n'

WORKFLOW_ACTIONS_RS = """\
name: Continuous Integration
on:
  pull_request:
  push:
    branches: [main]
jobs:
  check:
    name: Check
    runs-on: ubuntu-22.04
    steps:
      - name: Checkout
        uses: actions/checkout@v6
      - name: Check
        uses: actions-rs/cargo@v1.0.3
        with:
          command: check
          args: --locked --verbose
      - name: Check without default features
        uses: actions-rs/cargo@v1.0.3
        with:
          command: check
          args: --locked --no-default-features --verbose
  doctest:
    name: Doctests
    runs-on: ubuntu-22.04
    steps:
      - name: Run the doctests
        uses: actions-rs/cargo@v1.0.3
        with:
          command: test
          args: --doc
"""


def test_the_actions_rs_cargo_action_is_the_cargo_command_it_runs(tmp_path: Path) -> None:
    """``uses: actions-rs/cargo`` with ``command: check`` and ``args: --locked`` runs
    ``cargo check --locked``: offered as CI's step, each of its forms."""
    sheet = project(
        tmp_path, {"Cargo.toml": CARGO_TOML, ".github/workflows/ci.yml": WORKFLOW_ACTIONS_RS}
    )
    assert "cargo check --locked --verbose" in sheet.commands["typecheck"]
    assert "cargo check --locked --no-default-features --verbose" in sheet.commands["typecheck"]
    assert "cargo test --doc" in sheet.commands["test"]


def test_an_actions_rs_step_without_a_command_runs_nothing(tmp_path: Path) -> None:
    """A cargo action given no ``command`` (or a toolchain's action) is no command."""
    workflow = WORKFLOW_ACTIONS_RS.replace("command: test\n", "")
    sheet = project(tmp_path, {"Cargo.toml": CARGO_TOML, ".github/workflows/ci.yml": workflow})
    assert "cargo test --doc" not in sheet.offered()
    assert not any(command.startswith("cargo --doc") for command in sheet.offered())


TOX_COVERAGE_STEPS = """\
[tox]
envlist =
    clean,
    check,
    {py39,py313}-{pytest84},
    report

[testenv]
deps = pytest
commands =
    {posargs:pytest -vv}

[testenv:check]
deps = ruff
skip_install = true
commands =
    ruff check

[testenv:report]
deps = coverage
skip_install = true
commands =
    coverage report
    coverage html

[testenv:clean]
commands = coverage erase
skip_install = true
deps = coverage
"""


def test_tox_environments_of_coverage_steps_are_tests(tmp_path: Path) -> None:
    """``clean`` (``coverage erase``) and ``report`` (``coverage report``) bracket the
    tests of the env_list: each is a step of testing a person runs with ``tox -e``."""
    sheet = project(tmp_path, {"pyproject.toml": PYPROJECT, "tox.ini": TOX_COVERAGE_STEPS})
    assert "tox -e report" in sheet.commands["test"]
    assert "tox -e clean" in sheet.commands["test"]
    assert "tox -e check" in sheet.commands["lint"]


def test_a_clean_target_that_also_removes_files_is_no_test(tmp_path: Path) -> None:
    """A Makefile's ``clean`` that erases the coverage among other files cleans up: no
    test, as before."""
    makefile = "clean:\n\trm -rf build dist\n\tcoverage erase\n\ntest:\n\tpytest\n"
    sheet = project(tmp_path, {"pyproject.toml": PYPROJECT, "Makefile": makefile})
    assert "make test" in sheet.commands["test"]
    assert "make clean" not in sheet.commands["test"]
