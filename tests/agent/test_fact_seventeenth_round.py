"""The seventeenth facts round's rules, kinds that recur across the labelled sets: tox's
``{[testenv:x]commands}`` reference read as that environment's commands, the contributor
guide's tox spelling deciding over CI's, and an environment that only checks the package's
metadata (``twine check``) offered as a lint.

The fixtures are short files written in the shape of public projects' (Python libraries
tested through tox), cut down to the lines that matter."""

from __future__ import annotations

from pathlib import Path

from fact_support import project

from serena_memory.agent.project_facts.commands import classify_command
from serena_memory.agent.project_facts.names import is_never
from serena_memory.agent.project_facts.workspace_scripts import delegated_script

PYPROJECT = '[project]\nname = "x"\n'

TOX_REFERENCES = """\
[tox]
envlist = py312, linters

[testenv]
deps = pytest
commands = pytest {posargs}

[testenv:flake8]
deps = flake8
commands = flake8 src tests

[testenv:mypy]
deps = mypy
commands = mypy src

[testenv:linters]
deps =
    {[testenv:flake8]deps}
    {[testenv:mypy]deps}
commands =
    {[testenv:flake8]commands}
    {[testenv:mypy]commands}
"""


def test_a_tox_reference_runs_the_named_environments_commands(tmp_path: Path) -> None:
    """``[testenv:linters]`` runs flake8's and mypy's commands through references: it lints,
    and each tool is offered as the reference's section runs it."""
    sheet = project(tmp_path, {"pyproject.toml": PYPROJECT, "tox.ini": TOX_REFERENCES})
    offered = sheet.offered()
    assert "tox -e linters" in offered
    assert "flake8 src tests" in offered
    assert "mypy src" in offered


def test_a_reference_to_itself_ends(tmp_path: Path) -> None:
    """A section referring to itself is read a bounded number of times, no recursion error."""
    tox = "[testenv:loop]\ncommands =\n    {[testenv:loop]commands}\n    ruff check .\n"
    sheet = project(tmp_path, {"tox.ini": tox})
    assert "tox -e loop" in sheet.offered()


TOX_PLAIN = """\
[tox]
envlist = py312, lint

[testenv]
commands = pytest {posargs}

[testenv:lint]
deps = ruff
commands = ruff check .
"""

CONTRIBUTING_TOX_E = """\
# Contributing

Run the tests with `tox`, and the linters with:

    tox -e lint
"""

CI_TOX_RUN = """\
name: CI
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: pip install tox
      - run: tox run -e py312
      - run: tox run -e lint
"""


def test_the_guides_tox_spelling_decides_over_cis(tmp_path: Path) -> None:
    """CI types ``tox run -e`` three times, the guide ``tox -e`` once: a person copies the
    guide, so the sheet spells every environment ``tox -e``."""
    tree = {
        "pyproject.toml": PYPROJECT,
        "tox.ini": TOX_PLAIN,
        "CONTRIBUTING.md": CONTRIBUTING_TOX_E,
        ".github/workflows/ci.yml": CI_TOX_RUN,
    }
    offered = project(tmp_path, tree).offered()
    assert "tox -e py312" in offered
    assert not [c for c in offered if c.startswith("tox run")]


def test_without_a_guides_tox_ci_spelling_counts(tmp_path: Path) -> None:
    tree = {"tox.ini": TOX_PLAIN, ".github/workflows/ci.yml": CI_TOX_RUN}
    assert "tox run -e lint" in project(tmp_path, tree).offered()


TOX_METADATA = """\
[tox]
envlist = py312, package

[testenv]
commands = pytest {posargs}

[testenv:package]
skip_install = true
deps =
    build
    twine
commands =
    python -m build
    twine check dist/*
"""

TOX_SETUP_CHECK = """\
[tox]
envlist = py312, check

[testenv]
commands = pytest {posargs}

[testenv:check]
skip_install = true
deps = docutils
commands = python setup.py check -r -s -m
"""


def test_an_environment_checking_the_packages_metadata_lints(tmp_path: Path) -> None:
    """``python -m build`` then ``twine check dist/*`` builds only to check the package's
    description: a lint a contributor runs, not a release."""
    sheet = project(tmp_path, {"pyproject.toml": PYPROJECT, "tox.ini": TOX_METADATA})
    assert "tox -e package" in sheet.commands["lint"]


def test_setup_pys_check_environment_lints(tmp_path: Path) -> None:
    setup = "from setuptools import setup\nsetup()\n"
    sheet = project(tmp_path, {"setup.py": setup, "tox.ini": TOX_SETUP_CHECK})
    assert "tox -e check" in sheet.commands["lint"]


TOX_DESCRIPTION = """\
[tox]
envlist = py312, pypi-description, packaging, release

[testenv]
commands = pytest {posargs}

[testenv:pypi-description]
skip_install = true
deps = twine
commands =
    pip wheel -w {envtmpdir}/build --no-deps .
    twine check {envtmpdir}/build/*

[testenv:packaging]
skip_install = true
commands =
    python -m build
    twine check --strict dist/*

[testenv:release]
skip_install = true
commands =
    python -m build
    twine check dist/*
    twine upload dist/*
"""


def test_an_environment_named_for_a_maintainer_that_ships_nothing_is_read_by_its_lines(
    tmp_path: Path,
) -> None:
    """``pypi-description`` and ``packaging`` are a maintainer's words, but the first only
    renders the description (a lint) and the second builds and checks (a build);
    ``release`` uploads and stays a maintainer's."""
    sheet = project(tmp_path, {"pyproject.toml": PYPROJECT, "tox.ini": TOX_DESCRIPTION})
    assert "tox -e pypi-description" in sheet.commands["lint"]
    assert "tox -e packaging" in sheet.commands["build"]
    assert "tox -e release" not in sheet.offered()


ROOT_PACKAGE = """\
{
  "name": "monorepo",
  "private": true,
  "scripts": {
    "build": "turbo build",
    "visual": "turbo visual",
    "package-check": "turbo run package-check",
    "release": "turbo build && changeset publish"
  }
}
"""
MEMBER_PACKAGE = """\
{
  "name": "@scope/core",
  "scripts": {
    "build": "rollup -c",
    "visual": "playwright test ./test/functional",
    "package-check": "publint && attw --pack ."
  }
}
"""


def test_a_script_handed_to_the_members_is_read_by_their_scripts(tmp_path: Path) -> None:
    """``turbo visual`` names no kind; each member's ``visual`` runs Playwright's tests, so the
    root's ``pnpm visual`` tests, and ``package-check`` (publint, attw) lints."""
    tree = {
        "package.json": ROOT_PACKAGE,
        "pnpm-lock.yaml": "",
        "pnpm-workspace.yaml": "packages:\n  - packages/*\n",
        "packages/core/package.json": MEMBER_PACKAGE,
    }
    sheet = project(tmp_path, tree)
    assert "pnpm visual" in sheet.commands["test"]
    assert "pnpm package-check" in sheet.commands["lint"]
    assert "playwright test ./test/functional" not in sheet.offered()  # the member's folder
    assert "pnpm release" not in sheet.offered()


def test_without_members_a_handed_script_says_nothing(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"package.json": ROOT_PACKAGE})
    assert "npm run visual" not in sheet.offered()


def test_the_script_a_runner_hands_to_the_members() -> None:
    assert delegated_script("turbo run build --filter=web") == "build"
    assert delegated_script("turbo playwright -- -u") == "playwright"
    assert delegated_script("lerna run test --stream") == "test"
    assert delegated_script("nx run-many --target=lint --all") == "lint"
    assert delegated_script("pnpm -r --filter ./packages run check") == "check"
    assert delegated_script("pnpm run check") is None  # the root's own script
    assert delegated_script("vitest run") is None


def test_a_name_closed_by_a_test_word_may_name_the_tests_data() -> None:
    """``snapshot-tests`` runs the snapshot tests (insta's, jest's): no release snapshot."""
    assert not is_never("snapshot-tests")
    assert not is_never("update-snapshot-specs")
    assert is_never("snapshot")
    assert is_never("release-tests-publish")


def test_a_make_target_for_the_snapshot_tests_is_offered(tmp_path: Path) -> None:
    makefile = "snapshot-tests:\n\t@cd core; cargo insta test --all-features --review\n"
    sheet = project(tmp_path, {"Makefile": makefile})
    assert "make snapshot-tests" in sheet.commands["test"]


POE_HARNESS = """\
[project]
name = "x"

[tool.poe.tasks.zsh-harness]
help = "Run the zsh completion script through a harness"
script = "harness:task_zsh_harness(path)"
env.PYTHONPATH = "tests/completion"

[tool.poe.tasks.evals]
script = "tests.evals.run:main"

[tool.poe.tasks.schema]
script = "tools.schema:main"
"""


def test_a_poe_script_of_the_tests_code_tests(tmp_path: Path) -> None:
    """A ``script`` task calling a function the tests' folder holds (its module under
    ``tests``, or its ``PYTHONPATH`` there) runs like the tests; another says nothing."""
    sheet = project(tmp_path, {"pyproject.toml": POE_HARNESS})
    assert "poe zsh-harness" in sheet.commands["test"]
    assert "poe evals" in sheet.commands["test"]
    assert "poe schema" not in sheet.offered()


def test_more_tools_kinds() -> None:
    """Tools a task's body runs, each by what it does."""
    assert classify_command("sphinx-apidoc -o docs/api -f -E mypackage") == "build"
    assert classify_command("sphinx-autobuild docs docs/_build/html") == "run"
    assert classify_command("typedoc --out docs src/index.ts") == "build"
    assert classify_command("next build") == "build"
    assert classify_command("storybook dev -p 6006") == "run"
    assert classify_command("cargo bench") == "test"
    assert classify_command("mix deps.compile") == "setup"
    modernize = "go run golang.org/x/tools/go/analysis/passes/modernize/cmd/modernize@latest"
    assert classify_command(f"{modernize} -fix -test ./...") == "lint"


def test_a_task_running_go_modernize_lints(tmp_path: Path) -> None:
    taskfile = (
        'version: "3"\ntasks:\n  modernize:\n    cmds:\n'
        "      - go run golang.org/x/tools/go/analysis/passes/modernize/cmd/modernize@latest"
        " -fix -test ./...\n"
    )
    sheet = project(tmp_path, {"go.mod": "module example.com/x\n", "Taskfile.yaml": taskfile})
    assert "task modernize" in sheet.commands["lint"]


READTHEDOCS_COMMANDS = """\
version: 2
build:
  os: ubuntu-24.04
  tools:
    python: "3.13"
  commands:
    - pip install --upgrade pip
    - pip install tox
    - tox -e docs
    - mkdir -p $READTHEDOCS_OUTPUT/html
"""
READTHEDOCS_PYTHON = """\
version: 2
build:
  os: ubuntu-24.04
  jobs:
    install:
      - pip install . --group docs
    post_install:
      - uv tool install tox --with tox-uv --python "3.13" --managed-python
python:
  install:
    - requirements: docs/requirements.txt
"""


def test_read_the_docs_installs_set_the_docs_build_up(tmp_path: Path) -> None:
    """How Read the Docs installs before building is how a contributor sets up to build
    the docs; pip's own upgrade, moving the output and the machine's interpreter are its
    plumbing."""
    tree = {"tox.ini": TOX_PLAIN, ".readthedocs.yml": READTHEDOCS_COMMANDS}
    sheet = project(tmp_path / "commands", tree)
    assert "pip install tox" in sheet.commands["setup"]
    assert "pip install --upgrade pip" not in sheet.offered()
    assert not [c for c in sheet.offered() if c.startswith("mkdir")]
    tree = {"pyproject.toml": PYPROJECT, ".readthedocs.yaml": READTHEDOCS_PYTHON}
    sheet = project(tmp_path / "python", tree)
    assert "pip install . --group docs" in sheet.commands["setup"]
    assert "pip install -r docs/requirements.txt" in sheet.commands["setup"]
    assert not [c for c in sheet.offered() if "managed-python" in c]


GO_WORKFLOW = """\
name: build
on: [push, pull_request]
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: go mod tidy
      - run: git diff --exit-code
      - run: go test ./...
      - run: git diff --exit-code
"""


def test_a_rewrite_then_a_diff_check_in_ci_lints(tmp_path: Path) -> None:
    """CI's ``go mod tidy`` followed by ``git diff --exit-code`` checks that the module
    files are tidy: offered as one lint; a diff check after the tests checks nothing of
    theirs."""
    tree = {"go.mod": "module example.com/x\n", ".github/workflows/build.yml": GO_WORKFLOW}
    sheet = project(tmp_path, tree)
    assert "go mod tidy && git diff --exit-code" in sheet.commands["lint"]
    assert "go test ./... && git diff --exit-code" not in sheet.offered()
