"""What the fact sheet missed on set19 (labelled after the thirteenth round), and on the
sets read before it: a guide's chain of commands (`tox && tox -e lint,docs`), a tox run
of several environments of one check, a test target running one test command with other
options, a recipe's guarded line (`if ...; then cd exp/simd && go test ./; fi`) running in
a folder of its own, tox's environment of one version with a factor no other version has
(`py310-pytestmain`), `cargo run` and `uv format`.

The fixtures are short excerpts written in the shape of public projects' files (arrow,
insta, lo, pluggy, python-dotenv), cut down to the lines that matter."""

from __future__ import annotations

from pathlib import Path

from fact_support import project

from serena_memory.agent.project_facts.commands import classify_command
from serena_memory.agent.project_facts.recipes import clean_line
from serena_memory.agent.project_facts.tox import alone_in_group

ARROW_README = """\
Arrow: Better dates & times for Python
======================================

Contributing
------------

#. Run the entire test suite and linting checks: ``tox && tox -e lint,docs``.
"""

ARROW_TOX = """\
[tox]
envlist = py{39,310,311,312,313,314}

[testenv]
deps = pytest
commands = pytest {posargs}

[testenv:lint]
deps = pre-commit
commands = pre-commit run --all-files {posargs}

[testenv:docs]
deps = -r requirements/requirements-docs.txt
commands = doc8 index.rst ../README.rst --extension .rst --ignore D001
"""


def test_a_guides_chain_of_commands_gives_each_command(tmp_path: Path) -> None:
    """README: ``tox && tox -e lint,docs``: the tests, then the checks and the docs."""
    sheet = project(
        tmp_path, {"pyproject.toml": "", "tox.ini": ARROW_TOX, "README.rst": ARROW_README}
    )
    assert "tox -e lint,docs" in sheet.commands["lint"]
    assert "tox" in sheet.commands["test"]


def test_a_chain_with_a_step_of_no_known_kind_is_not_cut() -> None:
    from serena_memory.agent.project_facts.docs import _each_chained

    found = [line for _, line in _each_chained("`git fetch origin && tox`\n")]
    assert found == ["git fetch origin && tox"]


def test_several_environments_of_one_check_and_the_docs_check() -> None:
    """`tox -e lint,docs` checks; `tox -e lint,typing` runs two kinds: none is said."""
    assert classify_command("tox -e lint,docs") == "lint"
    assert classify_command("tox -e py312,docs") == "test"
    assert classify_command("tox -e lint,typing") is None
    assert classify_command("tox && tox -e lint,docs") == "test"


INSTA_MAKEFILE = """\
all: test

test: cargotest

cargotest:
\t@echo "CARGO TESTS"
\t@cargo test -p insta --locked
\t@cargo test -p insta --all-features --locked
\t@cargo test -p insta --no-default-features --locked
\t@cargo test -p cargo-insta --locked

lint:
\t@cargo clippy --all-targets --all-features -- --deny warnings
"""

CARGO_WORKSPACE = '[workspace]\nmembers = ["insta", "cargo-insta"]\n'


def test_a_test_target_running_one_command_with_other_options_gives_each_run(
    tmp_path: Path,
) -> None:
    sheet = project(tmp_path, {"Cargo.toml": CARGO_WORKSPACE, "Makefile": INSTA_MAKEFILE})
    tests = sheet.commands["test"]
    assert "make cargotest" in tests
    assert "cargo test -p insta --all-features --locked" in tests
    assert "cargo test -p insta --no-default-features --locked" in tests
    assert "cargo test -p cargo-insta --locked" in tests


def test_a_test_target_of_one_line_gives_no_part(tmp_path: Path) -> None:
    makefile = "test:\n\tcargo test --all-features\n"
    sheet = project(tmp_path, {"Cargo.toml": '[package]\nname = "x"\n', "Makefile": makefile})
    assert "cargo test --all-features" not in sheet.commands["test"]


LO_MAKEFILE = """\
GO_SIMD_SUPPORT := $(shell go version | grep -q go1.26 && echo yes)

test:
\tgo test -race ./...
\t@if [ -n "$(GO_SIMD_SUPPORT)" ]; then cd ./exp/simd && GOEXPERIMENT=simd go test -race ./; fi

lint:
\tgolangci-lint run --timeout 60s ./...
\t@if [ -n "$(GO_SIMD_SUPPORT)" ]; then cd ./exp/simd && golangci-lint run --timeout 60s ./; fi
"""


def test_a_guarded_recipe_line_runs_its_command() -> None:
    line = '@if [ -n "$(GO_SIMD_SUPPORT)" ]; then cd ./exp/simd && go test -race ./; fi'
    assert clean_line(line) == "cd ./exp/simd && go test -race ./"
    assert clean_line("if [ -d x ]; then make a; else make b; fi").startswith("if ")


def test_a_tasks_run_in_a_folder_of_its_own_is_offered(tmp_path: Path) -> None:
    """lo: `make test` tests the module, then the `exp/simd` module in its folder."""
    tree = {
        "go.mod": "module github.com/samber/lo\n\ngo 1.18\n",
        "exp/simd/go.mod": "module github.com/samber/lo/exp/simd\n\ngo 1.26\n",
        "Makefile": LO_MAKEFILE,
    }
    sheet = project(tmp_path, tree)
    assert "cd ./exp/simd && GOEXPERIMENT=simd go test -race ./" in sheet.commands["test"]
    assert "cd ./exp/simd && golangci-lint run --timeout 60s ./" in sheet.commands["lint"]


PLUGGY_TOX = """\
[tox]
envlist=docs,py{310,311,312,313,314,py3},py{310}-pytestmain

[testenv]
commands = pytest {posargs}
deps =
  pytestmain: git+https://github.com/pytest-dev/pytest.git@main
"""


def test_an_environment_of_one_version_with_a_factor_of_its_own_is_a_run_of_its_own(
    tmp_path: Path,
) -> None:
    sheet = project(tmp_path, {"pyproject.toml": "", "tox.ini": PLUGGY_TOX})
    tests = sheet.commands["test"]
    assert any(command.endswith("-e py310-pytestmain") for command in tests)
    assert not any(command.endswith("-e py310") for command in tests)


def test_a_factor_every_version_has_is_a_matrix() -> None:
    names = ["py310-django52", "py311-django52", "py312-djangomain", "py310-lower-bounds"]
    assert alone_in_group(names) == {"py312-djangomain", "py310-lower-bounds"}
    assert alone_in_group(["py310", "py311", "lint"]) == set()
    # trio's `[testenv:py39-cython2,py39-cython,py311-cython2]`: a section of several
    assert alone_in_group(["py39-cython2,py39-cython,py311-cython2"]) == set()


DOTENV_CONTRIBUTING = """\
# Contributing

Run the formatter with:

    $ uv format .

Run the tests with:

    $ uv run pytest
"""

INSTA_CONTRIBUTING = """\
To run the version of `cargo-insta` in the working directory, run:

```sh
cargo run -p cargo-insta -- test # (or `review` or whatever command you want to run)
```
"""


def test_uvs_formatter_and_cargos_run_are_known(tmp_path: Path) -> None:
    assert classify_command("uv format .") == "format"
    assert classify_command("cargo run -p cargo-insta -- test") == "run"
    sheet = project(
        tmp_path / "dotenv", {"pyproject.toml": "", "CONTRIBUTING.md": DOTENV_CONTRIBUTING}
    )
    assert "uv format ." in sheet.commands["format"]
    sheet = project(
        tmp_path / "insta", {"Cargo.toml": CARGO_WORKSPACE, "CONTRIBUTING.md": INSTA_CONTRIBUTING}
    )
    assert "cargo run -p cargo-insta -- test" in sheet.commands["run"]


DELTA_CI = """\
name: CI
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: Run the binary
        run: cargo run --release -- < /dev/null
"""


def test_a_release_run_in_ci_keeps_the_everyday_run(tmp_path: Path) -> None:
    """delta: CI runs the optimized binary; a contributor's run is the debug `cargo run`."""
    tree = {
        "Cargo.toml": '[package]\nname = "git-delta"\n',
        "src/main.rs": "fn main() {}\n",
        ".github/workflows/ci.yml": DELTA_CI,
    }
    sheet = project(tmp_path, tree)
    assert "cargo run" in sheet.commands["run"]


GUZZLE_MAKEFILE = """\
static: static-phpstan static-psalm

static-psalm:
\tcomposer install
\tcomposer bin psalm update
\tvendor/bin/psalm.phar $(PSALM_PARAMS)

static-phpstan:
\tcomposer install
\tcomposer bin phpstan update
\tvendor/bin/phpstan analyze $(PHPSTAN_PARAMS)
"""


def test_a_check_that_installs_its_tool_first_is_the_check(tmp_path: Path) -> None:
    """guzzle: `composer bin psalm update` installs Psalm in `vendor-bin/psalm`, then the
    target type checks: no set-up on the sheet."""
    assert classify_command("composer bin phpstan update --no-interaction") == "setup"
    assert classify_command("vendor/bin/psalm.phar --no-progress") == "typecheck"
    composer = '{"name": "guzzlehttp/guzzle", "require-dev": {"phpunit/phpunit": "^9.6"}}'
    tree = {"composer.json": composer, "Makefile": GUZZLE_MAKEFILE}
    sheet = project(tmp_path, tree)
    assert "make static-psalm" in sheet.commands["typecheck"]
    assert "make static-phpstan" in sheet.commands["typecheck"]
    assert "make static-psalm" not in sheet.commands["setup"]
    assert "make" in sheet.commands["typecheck"]  # `static`, the first target


def test_mixs_check_of_unused_locked_dependencies_lints() -> None:
    """ecto's CI: `mix deps.unlock --check-unused`; `mix deps.unlock plug` changes the lock."""
    assert classify_command("mix deps.unlock --check-unused") == "lint"
    assert classify_command("mix deps.unlock plug") is None


DRF_TOX = """\
[tox]
envlist =
       {py312}-{django52,django60,djangomain}
       {py314}-{django52,django60,djangomain}
       base
       docs

[testenv]
commands = pytest --cov --cov-report xml {posargs}
dependency_groups =
       test
       django52: django52
       django60: django60
       djangomain: djangomain

[testenv:base]
; Ensure optional dependencies are not required
dependency_groups =
       test

[testenv:docs]
commands = mkdocs build
"""


def test_a_dependencys_versions_are_one_task_and_a_section_without_commands_runs_the_base(
    tmp_path: Path,
) -> None:
    """django-rest-framework: `py314-django52`, `-django60`, `-djangomain` test against
    each Django; `[testenv:base]` only changes the dependencies: it runs `pytest`."""
    sheet = project(tmp_path, {"pyproject.toml": "", "tox.ini": DRF_TOX})
    tests = sheet.commands["test"]
    assert "tox -e py314-django52" in tests
    assert "tox -e py314-django60" not in tests
    assert "tox -e py314-djangomain" not in tests
    assert "tox -e base" in tests


def test_tools_named_alike_are_no_dependencys_versions() -> None:
    from serena_memory.agent.project_facts.tox import one_per_dependency

    names = ["typing-pyright", "typing-pyrefly", "pipsupported", "piplowest", "pipmain"]
    assert one_per_dependency(names) == ["typing-pyright", "typing-pyrefly", "pipsupported"]


REQUESTS_TOX = """\
[tox]
envlist = py{310,311,312,313,314}-{default, use_chardet_on_py3}

[testenv]
commands =
    pytest {posargs:tests}

[testenv:default]

[testenv:use_chardet_on_py3]
extras =
    use_chardet_on_py3
"""


def test_a_section_named_for_a_factor_sets_the_factor_up() -> None:
    """requests: `[testenv:default]` configures `py310-default`...: no `default` env."""
    from serena_memory.agent.project_facts.tox import ini_environments

    found = ini_environments(REQUESTS_TOX)
    assert "default" not in found
    assert "use_chardet_on_py3" not in found
    assert "py314-default" in found
