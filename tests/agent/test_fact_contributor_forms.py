"""What contributors of real projects run, offered on the fact sheet: CI steps that read the
workflow's ``env:`` or run in a member's folder, per-crate and per-feature cargo steps past
a count cap, workspace members' scripts, Rake's default and namespaced tasks, tox
environments and nox sessions by what they run, and how to run one test file.

The fixtures are short excerpts of public repositories' files (ripgrep, serde, sinatra,
click, chi, clap, httpx, vue, inline-snapshot), cut down to the lines that matter."""

from __future__ import annotations

from pathlib import Path

from fact_support import project

# BurntSushi/ripgrep .github/workflows/ci.yml (cut)
RIPGREP_CI = """\
name: ci
on:
  pull_request:
  push:
    branches:
    - master
jobs:
  test:
    name: test
    env:
      CARGO: cargo
      TARGET_FLAGS:
      TARGET_DIR: ./target
    runs-on: ${{ matrix.os }}
    steps:
    - name: Build ripgrep and all crates
      run: ${{ env.CARGO }} build --verbose --workspace ${{ env.TARGET_FLAGS }}
    - name: Run tests with PCRE2 (sans cross)
      run: ${{ env.CARGO }} test --verbose --workspace --features pcre2 ${{ env.TARGET_FLAGS }}
  docs:
    name: Docs
    runs-on: ubuntu-latest
    steps:
      - name: Check documentation
        env:
          RUSTDOCFLAGS: -D warnings
        run: cargo doc --no-deps --document-private-items --workspace
"""


def test_ci_steps_read_the_workflows_env(tmp_path: Path) -> None:
    sheet = project(
        tmp_path, {"Cargo.toml": "[package]\nname = 'x'\n", ".github/workflows/ci.yml": RIPGREP_CI}
    )
    assert "cargo test --verbose --workspace --features pcre2" in sheet.commands["test"]
    assert "cargo build --verbose --workspace" in sheet.commands["build"]
    assert "cargo doc --no-deps --document-private-items --workspace" in sheet.commands["build"]


# sinatra/sinatra .github/workflows/test.yml and Rakefile (cut)
SINATRA_CI = """\
name: Testing
on: [push, pull_request]
jobs:
  rack-protection:
    name: rack-protection
    runs-on: ubuntu-latest
    steps:
    - uses: actions/checkout@v6
    - name: Run rack-protection tests
      working-directory: rack-protection
      run: |
        bundle exec rake
  test:
    name: test
    runs-on: ubuntu-latest
    steps:
    - name: Run sinatra-contrib tests
      working-directory: sinatra-contrib
      run: |
        bundle install --jobs=3 --retry=3
        bundle exec rake
"""
SINATRA_RAKEFILE = """\
require 'rake/clean'
require 'minitest/test_task'

task default: :test

Minitest::TestTask.create # Default `test` task

namespace :test do
  desc 'Measures test coverage'
  task :coverage do
    rm_f 'coverage'
    ENV['COVERAGE'] = '1'
    Rake::Task['test'].invoke
  end
end

namespace :release do
  task :all do
    sh 'gem push'
  end
end
"""


def test_ruby_default_task_namespaces_and_members_folders(tmp_path: Path) -> None:
    sheet = project(
        tmp_path,
        {
            "Gemfile": "source 'https://rubygems.org'\n",
            "Rakefile": SINATRA_RAKEFILE,
            ".github/workflows/test.yml": SINATRA_CI,
        },
    )
    tests = sheet.commands["test"]
    assert tests[:2] == ["bundle exec rake", "bundle exec rake test"]
    assert "bundle exec rake test:coverage" in tests
    assert "cd rack-protection && bundle exec rake" in tests
    assert "cd sinatra-contrib && bundle exec rake" in tests
    assert not any("release" in command for command in sheet.offered())


# serde-rs/serde .github/workflows/ci.yml (cut): every step in a crate's folder
SERDE_CI = """\
name: CI
on:
  push:
  pull_request:
jobs:
  stable:
    name: Rust stable
    runs-on: ubuntu-latest
    steps:
      - run: cd serde && cargo build
      - run: cd serde && cargo build --no-default-features
      - run: cd serde && cargo build --no-default-features --features alloc
      - run: cd serde && cargo build --no-default-features --features rc,alloc
      - run: cd serde_core && cargo test --features rc,unstable
      - run: cd serde && cargo check --no-default-features
      - run: cd serde && cargo check
      - run: cd serde_derive && cargo check
  clippy:
    name: Clippy
    runs-on: ubuntu-latest
    steps:
      - run: cd serde && cargo clippy --features rc,unstable -- -Dclippy::all -Dclippy::pedantic
      - run: cd serde_core && cargo clippy --features rc,unstable -- -Dclippy::all
      - run: cd serde_derive && cargo clippy -- -Dclippy::all -Dclippy::pedantic
      - run: cd test_suite && cargo clippy --tests --features unstable -- -Dclippy::all
"""


def test_per_crate_and_per_feature_steps_fill_the_kinds_room(tmp_path: Path) -> None:
    sheet = project(
        tmp_path,
        {"Cargo.toml": "[workspace]\nmembers = ['serde']\n", ".github/workflows/ci.yml": SERDE_CI},
    )
    assert "cd serde && cargo check" in sheet.commands["typecheck"]
    assert "cd serde && cargo check --no-default-features" in sheet.commands["typecheck"]
    assert len([c for c in sheet.commands["build"] if c.startswith("cd serde &&")]) == 4
    assert (
        "cd test_suite && cargo clippy --tests --features unstable -- -Dclippy::all"
        in (sheet.commands["lint"])
    )


def test_workspace_members_scripts_from_ci(tmp_path: Path) -> None:
    steps = """\
name: CI
on: [push, pull_request]
jobs:
  a11y:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pnpm install
      - run: pnpm --filter @unspent/web build
      - run: pnpm --filter @unspent/web test:a11y
      - run: yarn workspace @app/api lint
      - run: node --test tests/
"""
    sheet = project(
        tmp_path,
        {
            "package.json": '{"private": true}',
            "pnpm-lock.yaml": "",
            ".github/workflows/a.yml": steps,
        },
    )
    assert "pnpm --filter @unspent/web test:a11y" in sheet.commands["test"]
    assert "pnpm --filter @unspent/web build" in sheet.commands["build"]
    assert "yarn workspace @app/api lint" in sheet.commands["lint"]
    assert "node --test tests/" in sheet.commands["test"]


# pallets/click pyproject.toml (cut)
CLICK_PYPROJECT = """\
[project]
name = "click"

[tool.pytest.ini_options]
testpaths = ["tests"]

[tool.tox]
env_list = [
    "py3.14", "py3.13",
    "stress-py3.14", "stress-py3.14t",
    "style",
    "typing",
]

[tool.tox.env.stress]
description = "high-iteration stress tests for race conditions"
commands = [[
    "pytest", "-v", "--tb=short", "-x", "-m", "stress",
    {replace = "posargs", default = [], extend = true},
]]

[tool.tox.env.typing]
description = "run static type checkers"
commands = [
    ["mypy"],
    ["pyright", "--ignoreexternal", "--verifytypes", "click"],
]
"""


def test_tox_environments_by_what_they_run_and_one_test_file(tmp_path: Path) -> None:
    sheet = project(
        tmp_path,
        {"pyproject.toml": CLICK_PYPROJECT, "uv.lock": "", "tests/test_arguments.py": ""},
    )
    assert "tox -e stress" in sheet.commands["test"]
    assert "tox -e typing" in sheet.commands["typecheck"]
    # one test file, through the runner the project uses
    assert "uv run pytest tests/test_arguments.py" in sheet.commands["test"]


TOX_INI = """\
[tox]
envlist = py312, checks

[testenv]
commands = pytest {posargs}

[testenv:checks]
commands =
    ruff check src
    mypy src
"""


def test_a_tox_environment_of_several_tools_is_split(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"tox.ini": TOX_INI})
    assert sheet.commands["lint"][:2] == ["tox -e checks", "ruff check src"]
    assert "mypy src" in sheet.commands["typecheck"]
    # Textualize/rich tox.ini (cut): a formatter's check and a type check are a lint
    rich = "[tox]\nenvlist = lint\n\n[testenv:lint]\ncommands =\n"
    rich += "    make format-check\n    make typecheck\n"
    checks = project(tmp_path / "rich", {"tox.ini": rich})
    assert checks.commands["lint"] == ["tox -e lint"]
    assert checks.commands["format"] == ["make format-check"]


# 15r10nk/inline-snapshot noxfile.py (cut)
NOXFILE = """\
import nox
from nox_poetry import session


@session(python="python3.10")
def coverage(session):
    session.install("coverage[toml]")
    session.run("coverage", "html")
    session.run("coverage", "report", "--fail-under", "100")


@session(python=python_versions)
def mypy(session):
    session.install("mypy", "pytest", "hypothesis", ".")
    session.run("mypy", "inline_snapshot", "tests")


@session(python=python_versions)
def test(session):
    session.run(
        "coverage",
        "run",
        "-m",
        "pytest",
        *args,
    )


@session(python="python3.10")
def docs(session):
    session.run("mkdocs", "serve", *session.posargs)
"""


def test_nox_sessions_by_what_they_run(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"noxfile.py": NOXFILE})
    assert "nox -s test" in sheet.commands["test"]
    # the report of the coverage the tests left, shown to the person who ran them
    assert "nox -s coverage" in sheet.commands["test"]
    assert "nox -s docs" in sheet.commands["run"]  # it serves the docs


def test_a_docs_script_that_serves_is_run_not_build(tmp_path: Path) -> None:
    # encode/httpx scripts/docs
    script = '#!/bin/sh -e\n\nexport PREFIX=""\nset -x\n\n${PREFIX}mkdocs serve\n'
    sheet = project(tmp_path, {"scripts/docs": script, "pyproject.toml": "[project]\n"})
    assert [c for c in sheet.commands["run"] if c.endswith("scripts/docs")]
    assert not [c for c in sheet.commands["build"] if c.endswith("scripts/docs")]


def test_docs_placeholders_and_single_test_forms(tmp_path: Path) -> None:
    # clap-rs/clap CONTRIBUTING.md and go-chi/chi CONTRIBUTING.md (cut)
    guide = (
        "```console\n$ cargo test --features debug\n\n# Or for individual tests\n"
        "$ cargo test --test <test_name> --features debug\n```\n\n"
        "6. Run `goimports -w .`, to ensure the new code conforms to Go formatting guideline.\n"
    )
    sheet = project(tmp_path, {"CONTRIBUTING.md": guide, "Cargo.toml": "[package]\n"})
    assert "cargo test --test <test_name> --features debug" in sheet.commands["test"]
    assert "goimports -w ." in sheet.commands["format"]
    # a single-test form is shown: none is added
    assert not any(c.startswith("cargo test") and "tests/" in c for c in sheet.offered())


def test_one_go_test_by_name(tmp_path: Path) -> None:
    # go-chi/chi mux_test.go (cut)
    test = 'package chi\n\nimport "testing"\n\nfunc TestMuxBasic(t *testing.T) {\n}\n'
    sheet = project(tmp_path, {"go.mod": "module github.com/go-chi/chi/v5\n", "mux_test.go": test})
    assert "go test -run TestMuxBasic ./..." in sheet.commands["test"]  # the root: any package


def test_one_vitest_file_through_the_test_script(tmp_path: Path) -> None:
    # vuejs/core package.json (cut): the script is the runner alone, so the file goes
    # through it and runs with the project's own options
    package = (
        '{"private": true, "scripts": {"test": "vitest"}, "devDependencies": {"vitest": "^3"}}'
    )
    sheet = project(
        tmp_path,
        {
            "package.json": package,
            "pnpm-lock.yaml": "",
            "packages/compiler-core/__tests__/codegen.spec.ts": "",
        },
    )
    assert "pnpm test packages/compiler-core/__tests__/codegen.spec.ts" in sheet.commands["test"]


def test_one_spec_file_through_npm_and_the_runner_where_the_script_names_a_folder(
    tmp_path: Path,
) -> None:
    # Leaflet/Leaflet: `vitest --project=chromium`, its specs named `XSpec.js`
    leaflet = (
        '{"scripts": {"test": "vitest --project=chromium"}, "devDependencies": {"vitest": "^3"}}'
    )
    sheet = project(
        tmp_path / "leaflet",
        {"package.json": leaflet, "spec/suites/control/AttributionControlSpec.js": ""},
    )
    assert "npm test -- spec/suites/control/AttributionControlSpec.js" in sheet.commands["test"]
    # expressjs/body-parser: the script names the test folder, so a file given to it would
    # run with the whole folder: the runner is given the file alone
    body_parser = (
        '{"scripts": {"test": "mocha --reporter spec --check-leaks test/"},'
        ' "devDependencies": {"mocha": "^10"}}'
    )
    sheet = project(tmp_path / "bp", {"package.json": body_parser, "test/body-parser.js": ""})
    assert "npx mocha test/body-parser.js" in sheet.commands["test"]


def test_one_phpunit_file_where_composer_installs_phpunit(tmp_path: Path) -> None:
    # ramsey/uuid (cut)
    composer = '{"require-dev": {"phpunit/phpunit": "^9"}, "scripts": {"phpunit": "phpunit"}}'
    sheet = project(
        tmp_path, {"composer.json": composer, "tests/Builder/FallbackBuilderTest.php": ""}
    )
    assert "vendor/bin/phpunit tests/Builder/FallbackBuilderTest.php" in sheet.commands["test"]


def test_one_rspec_file_and_one_cargo_test(tmp_path: Path) -> None:
    ruby = project(tmp_path / "rb", {"Gemfile": "", ".rspec": "", "spec/parser_spec.rb": ""})
    assert "bundle exec rspec spec/parser_spec.rb" in ruby.commands["test"]
    rust = "#[test]\nfn parses_flags() {\n}\n"
    crate = project(tmp_path / "rs", {"Cargo.toml": "[package]\n", "tests/flags.rs": rust})
    assert "cargo test parses_flags" in crate.commands["test"]

    hatch = '[project]\nname = "x"\n[tool.hatch.envs.hatch-test]\ndefault-args = ["tests"]\n'
    hatched = project(tmp_path / "hatch", {"pyproject.toml": hatch, "tests/test_cli.py": ""})
    assert "hatch test tests/test_cli.py" in hatched.commands["test"]
    # nothing for a runner the project does not configure
    bare = project(tmp_path / "py", {"pyproject.toml": "[project]\n", "tests/test_x.py": ""})
    assert not any("tests/test_x.py" in command for command in bare.offered())
