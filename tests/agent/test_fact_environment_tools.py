"""Tools the project installs in its own environment are shown through its runner: after
``uv sync`` or ``npm install`` a bare ``mypy`` or ``ava`` is not on the PATH. And the
hooks are installed with the options the project's own set-up gives them.

The fixtures are short excerpts written in the shape of public repositories' files
(itsdangerous, ky, rich), cut down to the lines that matter."""

from __future__ import annotations

from pathlib import Path

from fact_support import project

from serena_memory.agent.project_facts.environment_tools import python_packages

ITSDANGEROUS_PYPROJECT = """\
[project]
name = "itsdangerous"
requires-python = ">=3.10"

[dependency-groups]
dev = ["ruff", "tox", "tox-uv"]
pre-commit = ["pre-commit", "pre-commit-uv"]
tests = ["freezegun", "pytest"]
typing = ["mypy", "pyright", "pytest"]

[tool.uv]
default-groups = ["dev", "pre-commit", "tests", "typing"]

[tool.pytest.ini_options]
testpaths = ["tests"]

[tool.mypy]
files = ["src"]

[tool.pyright]
include = ["src"]

[tool.ruff]
src = ["src"]

[tool.tox]
env_list = ["py3.13", "py3.12", "style", "typing", "docs"]

[tool.tox.env_run_base]
dependency_groups = ["tests"]
commands = [["pytest", "-v", "--tb=short"]]

[tool.tox.env.style]
dependency_groups = ["pre-commit"]
skip_install = true
commands = [["pre-commit", "run", "--all-files"]]

[tool.tox.env.typing]
dependency_groups = ["typing"]
commands = [
    ["mypy"],
    ["pyright"],
    ["pyright", "--verifytypes", "itsdangerous", "--ignoreexternal"],
]

[tool.tox.env.docs]
dependency_groups = ["docs"]
commands = [["sphinx-build", "-E", "-W", "-b", "dirhtml", "docs", "docs/_build/dirhtml"]]
"""
ITSDANGEROUS_CI = """\
name: Tests
on: [push]
jobs:
  typing:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: astral-sh/setup-uv@v6
      - run: uv run --locked tox run -e typing
"""
PRE_COMMIT = """\
repos:
  - repo: https://github.com/astral-sh/ruff-pre-commit
    rev: v0.11.11
    hooks:
      - id: ruff
      - id: ruff-format
"""
ON_CREATE = """\
#!/bin/bash
set -e
uv sync
echo "Installing pre-commit hooks..."
pre-commit install --install-hooks
"""


def itsdangerous(root: Path) -> dict[str, str]:
    return {
        "pyproject.toml": ITSDANGEROUS_PYPROJECT,
        "uv.lock": "version = 1\n",
        ".github/workflows/tests.yaml": ITSDANGEROUS_CI,
        ".pre-commit-config.yaml": PRE_COMMIT,
        ".devcontainer/on-create-command.sh": ON_CREATE,
        "src/itsdangerous/__init__.py": "",
        "tests/test_itsdangerous/test_encoding.py": "def test_x():\n    pass\n",
    }


def test_every_installed_tool_of_a_uv_project_runs_through_uv_run(tmp_path: Path) -> None:
    sheet = project(tmp_path, itsdangerous(tmp_path))
    shown = sheet.offered()
    assert "uv run tox run -e typing" in sheet.commands["typecheck"]
    assert "uv run mypy" in sheet.commands["typecheck"]
    assert "uv run pyright" in sheet.commands["typecheck"]
    assert "uv run ruff check" in sheet.commands["lint"]
    assert "uv run pre-commit run --all-files" in sheet.commands["lint"]
    assert "uv run tox run" in sheet.commands["test"]  # tox 4's `run`, as for the rest
    for bare in ("tox", "mypy", "pyright", "ruff check", "tox run -e typing"):
        assert bare not in shown


def test_the_hooks_are_installed_with_the_options_of_the_projects_own_set_up(
    tmp_path: Path,
) -> None:
    sheet = project(tmp_path, itsdangerous(tmp_path))
    assert "uv run pre-commit install --install-hooks" in sheet.commands["setup"]
    assert "uv run pre-commit install" not in sheet.commands["setup"]


def test_a_tool_the_project_does_not_install_stays_bare(tmp_path: Path) -> None:
    tree = itsdangerous(tmp_path)
    tree["pyproject.toml"] = tree["pyproject.toml"].replace('"ruff", ', "")
    tree[".devcontainer/on-create-command.sh"] = "uv sync\n"
    sheet = project(tmp_path, tree)
    assert "ruff check" in sheet.commands["lint"]  # pre-commit's own, or `uv tool install`
    assert "uv run pre-commit install" in sheet.commands["setup"]


def test_docs_working_in_the_entered_environment_keep_their_bare_spelling(
    tmp_path: Path,
) -> None:
    tree = {
        "pyproject.toml": '[tool.poetry]\nname = "rich"\n\n[tool.poetry.dev-dependencies]\n'
        'pytest = "^7"\nblack = "^22"\nmypy = "^1"\npre-commit = "^2"\n\n[tool.black]\n',
        "poetry.lock": "",
        ".pre-commit-config.yaml": PRE_COMMIT,
        "CONTRIBUTING.md": "Run `poetry shell`, then:\n\n```\npytest\nmypy -p rich\nblack .\n```\n",
    }
    sheet = project(tmp_path, tree)
    assert "pre-commit install" in sheet.commands["setup"]
    assert "poetry run pre-commit install" not in sheet.commands["setup"]


def test_declared_packages_are_read_from_every_table() -> None:
    data = {
        "project": {"dependencies": ["Click>=8"], "optional-dependencies": {"t": ["pytest-cov"]}},
        "dependency-groups": {"dev": ["ruff==0.5", {"include-group": "t"}]},
        "tool": {
            "uv": {"dev-dependencies": ["Sphinx_RTD.theme"]},
            "poetry": {"group": {"lint": {"dependencies": {"mypy": "*"}}}},
            "pdm": {"dev-dependencies": {"lint": ["flake8"]}},
        },
    }
    assert python_packages(data) == {
        "click", "pytest-cov", "ruff", "sphinx-rtd-theme", "mypy", "flake8",
    }  # fmt: skip


KY_PACKAGE = """\
{
  "name": "ky",
  "scripts": {
    "test": "xo && npm run build && ava",
    "build": "del-cli distribution && tsc --project tsconfig.dist.json"
  },
  "devDependencies": {"ava": "^6", "del-cli": "^6", "typescript": "^5", "xo": "^1"}
}
"""


def test_a_js_tool_outside_its_script_runs_through_npx(tmp_path: Path) -> None:
    sheet = project(
        tmp_path,
        {"package.json": KY_PACKAGE, "test/base-url.ts": "", "source/index.ts": ""},
    )
    assert "npx xo" in sheet.commands["lint"]
    assert "npx ava" in sheet.commands["test"]
    assert "npm test" in sheet.commands["test"]
    assert "xo" not in sheet.offered() and "ava" not in sheet.offered()


def test_pnpm_runs_a_local_tool_by_its_name(tmp_path: Path) -> None:
    # pnpm runs a dependency's program as `pnpm xo` when no script or command of its own
    # is named so (what contributors type: `pnpm eslint .`, `pnpm vitest run`)
    package = KY_PACKAGE.replace('"name": "ky",', '"name": "ky", "packageManager": "pnpm@9.0.0",')
    sheet = project(tmp_path, {"package.json": package, "test/base-url.ts": ""})
    assert "pnpm xo" in sheet.commands["lint"]
    assert "pnpm ava" in sheet.commands["test"]


def test_pnpm_takes_exec_where_a_script_has_the_name(tmp_path: Path) -> None:
    # `pnpm ava` would run the script named `ava`, not the program
    package = KY_PACKAGE.replace('"name": "ky",', '"name": "ky", "packageManager": "pnpm@9.0.0",')
    package = package.replace('"scripts": {', '"scripts": {"ava": "ava --watch", ', 1)
    sheet = project(tmp_path, {"package.json": package, "test/base-url.ts": ""})
    assert "pnpm exec ava" in sheet.commands["test"]
    assert "pnpm xo" in sheet.commands["lint"]
