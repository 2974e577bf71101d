"""What the fact sheet missed on set18 (labelled after the twelfth round), and on the sets
read before it: a path given to a tool read as a release step (`isort twine/ tests/`, a
`tests/test_upload.py`), tox's own Python (`{envpython} -m doc8`), check-manifest and
karma known by their commands, a Makefile's literal variable written out (`ruff check
$(sources)`), a Go Makefile's `linters-install`, a line run by `cross-env`, cargo's short
names (`cargo c`), tombi and publint.

The fixtures are short excerpts written in the shape of public projects' files (twine,
faker, dayjs, pydantic-settings, validator, gitui), cut down to the lines that matter."""

from __future__ import annotations

import json
from pathlib import Path

from fact_support import project

from serena_memory.agent.project_facts.commands import classify_command, is_never_line
from serena_memory.agent.project_facts.makefile import literal_variables
from serena_memory.agent.project_facts.tox import without_tox_paths

TWINE_TOX = """\
[tox]
envlist = lint,types,py{310,311,312,313,314}

[testenv]
deps = pytest
commands =
    python -m coverage run -m pytest {posargs}

[testenv:format]
skip_install = True
deps =
    isort
    black
commands =
    isort twine/ tests/
    black twine/ tests/

[testenv:lint]
skip_install = True
deps =
    {[testenv:format]deps}
    flake8
commands =
    isort --check-only --diff twine/ tests/
    black --check --diff twine/ tests/
    flake8 twine/ tests/
"""


def test_a_folder_named_like_a_release_tool_is_a_tools_argument(tmp_path: Path) -> None:
    """twine's own sources live in `twine/`: formatting them releases nothing."""
    sheet = project(tmp_path, {"pyproject.toml": "", "tox.ini": TWINE_TOX})
    assert "isort twine/ tests/" in sheet.commands["format"]
    assert "black --check --diff twine/ tests/" in sheet.commands["format"]
    assert "flake8 twine/ tests/" in sheet.commands["lint"]


def test_a_path_given_says_nothing_a_script_run_or_a_module_does() -> None:
    assert classify_command("pytest tests/test_upload.py") == "test"
    assert not is_never_line("python -m pytest tests/test_release.py")
    assert is_never_line("bash scripts/release.sh")
    assert is_never_line("./scripts/deploy.sh")
    assert is_never_line("python -m twine upload dist/*")
    assert is_never_line("go install github.com/goreleaser/goreleaser@latest")


FAKER_TOX = """\
[tox]
envlist=py{310,311,312,313,314},flake8,checkmanifest,isort,doc8

[testenv]
deps = pytest
commands =
    coverage run --source=faker -m pytest {posargs}

[testenv:checkmanifest]
basepython = python
deps =
    check-manifest
commands =
    check-manifest

[testenv:isort]
deps =
    isort
commands =
    {envpython} -m isort --check-only --diff .

[testenv:doc8]
deps = doc8
commands =
    {envpython} -m doc8
"""


def test_toxs_own_python_and_the_manifests_check(tmp_path: Path) -> None:
    """faker's `doc8` environment runs `{envpython} -m doc8`: the environment's Python."""
    sheet = project(tmp_path, {"setup.py": "", "tox.ini": FAKER_TOX})
    assert "tox -e doc8" in sheet.commands["lint"]
    assert "tox -e checkmanifest" in sheet.commands["lint"]
    assert without_tox_paths("{envbindir}/pytest -x") == "pytest -x"
    assert without_tox_paths("{env_python} -m mypy src") == "python -m mypy src"


def test_karma_runs_tests(tmp_path: Path) -> None:
    """dayjs runs its browser tests with `karma start` (on Sauce Labs' browsers)."""
    scripts = {
        "test": "jest --coverage",
        "sauce": "npx karma start karma.sauce.conf.js",
        "lint": "eslint src/*",
    }
    sheet = project(tmp_path, {"package.json": json.dumps({"scripts": scripts})})
    assert "npm run sauce" in sheet.commands["test"]
    assert classify_command("karma init") is None


MAKEFILE = """\
.DEFAULT_GOAL := all
sources = pydantic_settings tests
ifeq ($(OS),Windows_NT)
EXE = .exe
endif
PYTHON ?= $(shell which python3)

.PHONY: format
format:
\tuv run ruff check --fix $(sources)
\tuv run ruff format $(sources)

.PHONY: lint
lint:
\tuv run ruff check $(sources)
\tuv run ruff format --check ${sources}

.PHONY: mypy
mypy:
\tuv run mypy pydantic_settings $(EXE)
"""


def test_a_makefiles_literal_variable_is_written_out(tmp_path: Path) -> None:
    """pydantic-settings' `lint` checks `$(sources)`: the folders the Makefile names."""
    sheet = project(tmp_path, {"pyproject.toml": "", "Makefile": MAKEFILE})
    assert "uv run ruff check pydantic_settings tests" in sheet.commands["lint"]
    assert "uv run ruff format --check pydantic_settings tests" in sheet.commands["format"]
    assert "uv run ruff format pydantic_settings tests" in sheet.commands["format"]
    # set under a condition, or by a function: left out as before
    assert literal_variables(MAKEFILE) == {"sources": "pydantic_settings tests"}


VALIDATOR_MAKEFILE = """\
GOCMD=go

linters-install:
\t@golangci-lint --version >/dev/null 2>&1 || { \\
\t\techo "installing linting tools..."; \\
\t\tcurl -sfL https://raw.githubusercontent.com/golangci/golangci-lint/HEAD/install.sh| sh; \\
\t}

lint: linters-install
\tgolangci-lint run

test:
\t$(GOCMD) test -cover -race ./...

install:
\tgo install ./cmd/validator

.PHONY: test lint linters-install install
"""


def test_a_go_makefiles_install_of_its_linters_sets_up(tmp_path: Path) -> None:
    """validator's `linters-install` installs golangci-lint; `install` puts the program on
    the system, and sets nothing up."""
    sheet = project(tmp_path, {"go.mod": "module example.com/v\n", "Makefile": VALIDATOR_MAKEFILE})
    assert "make linters-install" in sheet.commands["setup"]
    assert "make install" not in sheet.commands["setup"]


def test_cross_env_runs_the_rest_of_its_line(tmp_path: Path) -> None:
    """dayjs's `babel` script compiles its sources under `cross-env BABEL_ENV=build`."""
    scripts = {
        "test": "cross-env TZ=Pacific/Auckland jest test/timezone.test",
        "babel": "cross-env BABEL_ENV=build babel src --out-dir esm --copy-files",
    }
    sheet = project(tmp_path, {"package.json": json.dumps({"scripts": scripts})})
    assert "npm run babel" in sheet.commands["build"]
    assert "npm test" in sheet.commands["test"]
    assert classify_command("cross-env NODE_ENV=test jest") == "test"
    assert classify_command("npm clean-install") == "setup"


GITUI_MAKEFILE = """\
.PHONY: check sort clippy-nightly

check: fmt clippy sort

sort:
\ttombi format --check

clippy-nightly:
\tcargo +nightly c
"""


def test_cargos_short_names_and_tombi(tmp_path: Path) -> None:
    """gitui's `sort` checks the TOML files' format with tombi; `cargo +nightly c` checks."""
    sheet = project(
        tmp_path,
        {
            "Cargo.toml": '[package]\nname = "gitui"\n',
            "src/main.rs": "",
            "Makefile": GITUI_MAKEFILE,
        },
    )
    assert "make sort" in sheet.commands["format"]
    assert "make clippy-nightly" in sheet.commands["typecheck"]
    assert classify_command("cargo t --workspace") == "test"
    assert classify_command("cargo b --release") == "build"
    assert classify_command("tombi lint") == "lint"


def test_publint_lints_the_package_as_published() -> None:
    """uuid's CI runs `npx -y publint --strict`; msw's scripts `pnpm publint`."""
    assert classify_command("npx -y publint --strict") == "lint"
    assert classify_command("pnpm publint") == "lint"
