"""Kinds of command the fact sheet missed on a third blind set of real projects: a Ruby
gem's ``bin/`` tools, a Makefile task beside its check-only twin, a Python package
manager's own build (and not when CI builds only to publish), and a documented file that
is no command.

The fixtures are short excerpts of public repositories' files (faraday, gin, uvicorn,
packaging, flask), cut down to the lines that matter."""

from __future__ import annotations

from pathlib import Path

from fact_support import checked_out as project

# lostisland/faraday bin/ (cut)
FARADAY = {
    "Gemfile": "source 'https://rubygems.org'\ngemspec\ngem 'rspec'\ngem 'rubocop'\n",
    "faraday.gemspec": "Gem::Specification.new do |spec|\n  spec.name = 'faraday'\nend\n",
    "lib/faraday.rb": "module Faraday\nend\n",
    "bin/setup": "#!/usr/bin/env bash\nset -euo pipefail\n"
    "gem install bundler\nbundle install --jobs 4\n",
    "bin/test": "#!/usr/bin/env bash\nset -euo pipefail\n"
    "bundle exec rubocop -a --format progress\nbundle exec rspec\n",
    "bin/console": "#!/usr/bin/env ruby\nrequire 'bundler/setup'\nrequire 'faraday'\n"
    "require 'irb'\nIRB.start(__FILE__)\n",
}


def test_a_gems_bin_tools_are_offered_by_what_they_do(tmp_path: Path) -> None:
    sheet = project(tmp_path / "faraday", FARADAY)
    assert "bin/setup" in sheet.commands["setup"]
    assert "bin/test" in sheet.commands["test"]
    assert "bundle exec rubocop -a --format progress" in sheet.commands["lint"]
    assert "bin/console" in sheet.commands["run"]
    # outside a Ruby project `bin/` holds what is shipped: junegunn/fzf's preview script
    tree = {"go.mod": "module github.com/junegunn/fzf\n\ngo 1.23\n", "main.go": "package main\n"}
    tree["bin/fzf-preview.sh"] = '#!/usr/bin/env bash\nbat --style=numbers "$1"\n'
    sheet = project(tmp_path / "fzf", tree)
    assert all("bin/" not in command for command in sheet.offered())


# gin-gonic/gin Makefile (cut)
GIN_MAKEFILE = """\
GOFILES := $(shell find . -name "*.go")

.PHONY: misspell
misspell:
\t@hash misspell > /dev/null 2>&1; if [ $$? -ne 0 ]; then \\
\t\t$(GO) get -u github.com/client9/misspell/cmd/misspell; \\
\tfi
\tmisspell -w $(GOFILES)

.PHONY: misspell-check
misspell-check:
\t@hash misspell > /dev/null 2>&1; if [ $$? -ne 0 ]; then \\
\t\t$(GO) get -u github.com/client9/misspell/cmd/misspell; \\
\tfi
\tmisspell -error $(GOFILES)
"""


def test_a_task_beside_its_check_only_twin_is_of_the_twins_kind(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"go.mod": "module example.com/gin\n", "Makefile": GIN_MAKEFILE})
    assert "make misspell-check" in sheet.commands["lint"]
    assert "make misspell" in sheet.commands["lint"]


def test_a_documented_file_is_no_command(tmp_path: Path) -> None:
    # gin's CONTRIBUTING.md: "document it in [`docs/doc.md`](docs/doc.md)"
    guide = "- If your pull request introduces a new feature, document it in `docs/doc.md`.\n"
    tree = {
        "go.mod": "module example.com/gin\n",
        "CONTRIBUTING.md": guide,
        "docs/doc.md": "# Doc\n",
        # sharkdp/bat's CONTRIBUTING.md names its tests' file
        "README.md": "## Development\n\nSee `tests/integration_tests.rs`.\n",
        "tests/integration_tests.rs": "fn main() {}\n",
    }
    sheet = project(tmp_path, tree)
    assert {"docs/doc.md", "tests/integration_tests.rs"}.isdisjoint(sheet.offered())


PYPROJECT = '[project]\nname = "uvicorn"\nversion = "1"\n'
# pypa/packaging .github/workflows/lint.yml (cut)
PACKAGING_LINT = """\
name: Linting
on:
  pull_request:
  push:
    branches: [main]
jobs:
  build:
    name: Build sdist and wheel
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v7
      - name: Build
        run: uv build
"""
# pallets/flask .github/workflows/publish.yaml (cut)
FLASK_PUBLISH = """\
name: Publish
on:
  push:
    tags: ['*']
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v7
      - run: uv build
"""


def test_the_lock_files_tool_builds_the_package_unless_ci_only_publishes(
    tmp_path: Path,
) -> None:
    tree = {"pyproject.toml": PYPROJECT, "uv.lock": "version = 1\n"}
    assert "uv build" in project(tmp_path / "uvicorn", tree).commands["build"]
    tree[".github/workflows/publish.yaml"] = FLASK_PUBLISH
    assert "uv build" not in project(tmp_path / "flask", tree).offered()


def test_cis_package_build_is_offered(tmp_path: Path) -> None:
    tree = {"pyproject.toml": PYPROJECT, ".github/workflows/lint.yml": PACKAGING_LINT}
    assert "uv build" in project(tmp_path, tree).commands["build"]


# sharkdp/bat .github/workflows/CICD.yml (cut)
BAT_CI = """\
name: CICD
on:
  pull_request:
  push:
    branches: [master]
jobs:
  build:
    name: ${{ matrix.job.target }} (${{ matrix.job.os }})
    runs-on: ${{ matrix.job.os }}
    strategy:
      matrix:
        job:
          - { target: aarch64-unknown-linux-gnu, os: ubuntu-latest, use-cross: true }
          - { target: x86_64-apple-darwin, os: macos-latest }
    env:
      BUILD_CMD: cargo
    steps:
    - name: "Feature check: regex-onig"
      shell: bash
      run: $BUILD_CMD check --locked --target=${{ matrix.job.target }} --verbose --lib \
--no-default-features --features regex-onig
"""


def test_a_ci_step_through_a_plain_shell_variable_for_the_own_machine(tmp_path: Path) -> None:
    tree = {"Cargo.toml": '[package]\nname = "bat"\n', ".github/workflows/CICD.yml": BAT_CI}
    sheet = project(tmp_path, tree)
    check = "cargo check --locked --verbose --lib --no-default-features --features regex-onig"
    assert check in sheet.commands["typecheck"]


# tokio-rs/axum .github/workflows/CI.yml (cut)
AXUM_CI = """\
name: CI
on:
  push:
    branches: [main]
  pull_request: {}
jobs:
  cargo-hack:
    runs-on: ubuntu-24.04
    steps:
      - name: cargo hack check
        run: cargo hack check --each-feature --no-dev-deps --all
"""


def test_cargo_hack_runs_the_cargo_command_it_names(tmp_path: Path) -> None:
    tree = {"Cargo.toml": "[workspace]\nmembers = ['axum']\n", ".github/workflows/CI.yml": AXUM_CI}
    sheet = project(tmp_path, tree)
    assert "cargo hack check --each-feature --no-dev-deps --all" in sheet.commands["typecheck"]


# gin-gonic/gin .github/workflows/gin.yml (cut)
GIN_CI = """\
name: Run Tests
on:
  push:
    branches: [master]
  pull_request:
jobs:
  test:
    strategy:
      matrix:
        go: ["1.25", "1.26"]
        test-tags: ["", "-tags nomsgpack", '--ldflags="-checklinkname=0" -tags sonic', "-race"]
    env:
      TESTTAGS: ${{ matrix.test-tags }}
    steps:
      - name: Run Tests
        run: make test
"""


def test_a_make_step_given_a_matrix_value_through_env_is_spelled_per_value(
    tmp_path: Path,
) -> None:
    makefile = 'TESTTAGS ?= ""\n\ntest:\n\tgo test $(TESTTAGS) ./...\n'
    tree = {"go.mod": "module example.com/gin\n", "Makefile": makefile}
    tree[".github/workflows/gin.yml"] = GIN_CI
    tests = project(tmp_path, tree).commands["test"]
    assert 'make test TESTTAGS="-tags nomsgpack"' in tests
    assert 'make test TESTTAGS="-race"' in tests


def test_a_long_ci_step_of_a_matrix_is_still_offered(tmp_path: Path) -> None:
    # tokio-rs/axum .github/workflows/CI.yml (cut): the examples' workspace, 114 characters
    workflow = AXUM_CI.replace(
        "run: cargo hack check --each-feature --no-dev-deps --all",
        "run: cargo clippy --locked --manifest-path ${{ matrix.workspace }}/Cargo.toml"
        " --workspace --all-targets --all-features -- -D warnings",
    ).replace(
        "runs-on: ubuntu-24.04",
        'runs-on: ubuntu-24.04\n    strategy:\n      matrix:\n        workspace: [".", examples]',
    )
    tree = {"Cargo.toml": "[workspace]\nmembers = ['axum']\n", ".github/workflows/CI.yml": workflow}
    clippy = (
        "cargo clippy --locked --manifest-path examples/Cargo.toml --workspace --all-targets"
        " --all-features -- -D warnings"
    )
    assert clippy in project(tmp_path, tree).commands["lint"]


# lostisland/faraday .github/workflows/ci.yml (cut)
FARADAY_CI = """\
name: CI
on:
  pull_request:
  push:
    branches: [main]
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - name: RSpec
        run: bundle exec rake
      - name: Test External Adapters
        run: bundle exec bake test:external
"""


def test_a_step_testing_the_projects_external_adapters_is_offered(tmp_path: Path) -> None:
    tree = {**FARADAY, ".github/workflows/ci.yml": FARADAY_CI}
    assert "bundle exec bake test:external" in project(tmp_path, tree).commands["test"]


def test_a_scripts_own_variables_are_filled_in(tmp_path: Path) -> None:
    # Kludex/uvicorn scripts/check (cut)
    check = (
        '#!/bin/sh -e\n\nexport SOURCE_FILES="uvicorn tests"\n\nset -x\n\n'
        "uv run ruff format --check --diff $SOURCE_FILES\nuv run mypy $SOURCE_FILES\n"
    )
    tree = {"pyproject.toml": PYPROJECT, "uv.lock": "version = 1\n", "scripts/check": check}
    sheet = project(tmp_path, tree)
    assert "uv run ruff format --check --diff uvicorn tests" in sheet.commands["format"]
    assert "uv run mypy uvicorn tests" in sheet.commands["typecheck"]
