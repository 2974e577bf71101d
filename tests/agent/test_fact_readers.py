"""Each task runner reader of the fact sheet, on real files in a temporary project."""

from __future__ import annotations

import json
import os
from pathlib import Path

from fact_support import project

from serena_memory.agent.project_facts import detect_facts
from serena_memory.agent.project_facts.sheet import FactSheet


def offered(sheet: FactSheet) -> set[str]:
    return sheet.offered()


JUSTFILE = """\
set shell := ["bash", "-c"]
alias t := test
log := "warn"
export RUST_LOG := log

# run the tests
test *args:
  cargo test {{args}}

@lint:
  cargo clippy --all-targets

[group: 'check']
fmt:
  cargo fmt --all

[private]
helper:
  echo hidden

_internal:
  echo hidden

filter PATTERN:
  cargo test {{PATTERN}}

watch +args='check':
  cargo watch --exec '{{args}}'

publish:
  cargo publish

update-changelog:
  git log >> CHANGELOG.md
"""


def test_a_justfile_with_a_capital_j_is_read(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"Justfile": JUSTFILE})
    # a recipe taking one argument and running the tests is the single-test form
    assert sheet.commands["test"] == ["just test", "just filter PATTERN"]
    assert sheet.commands["lint"] == ["just lint"]
    assert sheet.commands["format"] == ["just fmt"]
    assert sheet.commands["run"] == ["just watch"]
    shown = sheet.to_markdown()
    for hidden in ("helper", "_internal", "publish", "changelog", "alias", "log"):
        assert f"just {hidden}" not in shown
    assert "`just filter`" not in shown
    assert ("Justfile", "just") in sheet.build_files


def test_a_lowercase_justfile_too(tmp_path: Path) -> None:
    assert "just test" in offered(project(tmp_path, {"justfile": "test:\n  pytest\n"}))


def test_a_private_recipe_is_not_offered_even_when_its_name_says_lint(tmp_path: Path) -> None:
    text = "[private]\nlint:\n  ruff check .\n\n# formats\n[private]\n\nfmt:\n  ruff format\n"
    text += "check:\n  ruff check --fix .\n"
    assert offered(project(tmp_path, {"justfile": text})) == {"just check"}


MAKEFILE = """\
.DEFAULT_GOAL := all
SOURCES := $(shell find . -name '*.py')
PREFIX ?= /usr/local
CFLAGS = -O2 -Wall:x

.PHONY: all install test lint fmt vet
all: lint test

install:
\tuv sync --frozen

test: install
\tpytest -q

lint fmt-check: install
\truff check

vet::
\tgo vet ./...

typecheck:
\tmypy src

%.o: %.c
\tcc -c $<
build/out.txt: src
\tcp -r src build
$(BIN): main.go
\tgo build
release: test
\ttwine upload dist/*
docs:
\tmkdocs build
"""


def test_makefile_targets_by_what_their_names_say(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"Makefile": MAKEFILE, "pyproject.toml": "[project]\n"})
    assert sheet.commands["setup"][0] == "make install"  # a Python project's install
    # `make` alone runs `all`, which runs the lint and the tests
    assert sheet.commands["test"] == ["make", "make test"]
    # `fmt-check` runs `ruff check`, a linter, whatever its name says
    assert sheet.commands["lint"] == ["make lint", "make fmt-check"]
    assert sheet.commands["format"] == []
    assert sheet.commands["typecheck"] == ["make typecheck"]
    shown = sheet.to_markdown()
    assert sheet.commands["build"] == ["make docs"]
    for never in ("make release", "make all", "make vet", "SOURCES", "PREFIX"):
        assert never not in shown


def test_a_compiled_projects_make_install_is_not_a_setup(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"Makefile": "install:\n\tinstall -m755 fd /usr/bin\n", "go.mod": ""})
    assert "make install" not in offered(sheet)


def test_taskfile_tasks_but_not_internal_ones(tmp_path: Path) -> None:
    taskfile = """\
version: '3'
tasks:
  default:
    cmds: [{task: test}]
  test:
    desc: Runs the tests
    cmds: [go test ./...]
  lint:fix:
    cmds: [golangci-lint run --fix]
  tools:install:
    internal: true
    cmds: [go install tool]
  release:
    cmds: [goreleaser release]
"""
    sheet = project(tmp_path, {"Taskfile.yaml": taskfile})
    # the default only runs the tests: `task` alone is them, as `make` is for `default: test`
    assert sheet.commands["test"] == ["task"]
    # read by what it runs: a linter's fixing mode is the linter
    assert sheet.commands["lint"] == ["task lint:fix"]
    assert not {"task tools:install", "task release", "task default"} & offered(sheet)


def test_package_json_scripts_run_with_the_declared_package_manager(tmp_path: Path) -> None:
    scripts = {"test": "vitest", "pretest": "x", "prebuild": "y", "build": "tsc",
               "precommit": "lint-staged", "format:check": "prettier -c .", "version": "x",
               "publish:jsr": "jsr publish"}  # fmt: skip
    sheet = project(
        tmp_path,
        {
            "package.json": json.dumps({"packageManager": "yarn@4.1.0", "scripts": scripts}),
            "package-lock.json": "{}",
        },
    )
    assert sheet.commands["setup"] == ["yarn install"]  # packageManager wins over the lock
    assert sheet.commands["test"] == ["yarn test"]
    assert sheet.commands["build"] == ["yarn build"]
    assert sheet.commands["format"] == ["yarn format:check"]
    assert "yarn precommit" in offered(sheet)  # not the pre-script of a `commit` script
    assert not {"yarn pretest", "yarn prebuild", "yarn version", "yarn publish:jsr"} & offered(
        sheet
    )


def test_the_lock_file_names_the_package_manager(tmp_path: Path) -> None:
    for lock, setup, test in (
        ("bun.lockb", "bun install", "bun run test"),
        ("yarn.lock", "yarn install", "yarn test"),
        ("package-lock.json", "npm install", "npm test"),
    ):
        root = tmp_path / lock
        sheet = project(root, {"package.json": '{"scripts": {"test": "x"}}', lock: ""})
        assert sheet.commands["setup"] == [setup] and sheet.commands["test"] == [test]


TOX_INI = """\
[tox]
envlist =
    lint-{ruff,pre-commit},
    py3{10-12}-tests,
    typing
    docs

[testenv]
commands = pytest {posargs}

[testenv:typing]
commands = mypy src

[testenv:format]
commands = ruff format

[testenv:release]
commands = twine upload dist/*
"""


def test_tox_environments(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"tox.ini": TOX_INI})
    # with no default Python named, the newest version's tests are the quick run
    assert sheet.commands["test"] == ["tox", "tox -e py312-tests"]
    assert sheet.commands["lint"] == ["tox -e lint-ruff", "tox -e lint-pre-commit"]
    assert sheet.commands["typecheck"] == ["tox -e typing"]
    assert sheet.commands["format"] == ["tox -e format"]
    assert "tox -e release" not in offered(sheet) and "tox -e py310-tests" not in offered(sheet)


def test_tox_in_pyproject_native_and_legacy(tmp_path: Path) -> None:
    native = '[tool.tox]\nenv_list = ["py3.12", "style"]\n[tool.tox.env.typing]\ncommands = []\n'
    sheet = project(tmp_path / "native", {"pyproject.toml": native})
    assert {"tox", "tox -e style", "tox -e typing"} <= offered(sheet)
    legacy = '[tool.tox]\nlegacy_tox_ini = """\n[tox]\nenvlist = py312, lint\n"""\n'
    sheet = project(tmp_path / "legacy", {"pyproject.toml": legacy})
    assert {"tox", "tox -e lint"} <= offered(sheet)


NOXFILE = """\
import nox

nox.options.sessions = ["lint"]


@nox.session(python=["3.11", "3.12"])
def tests(session: nox.Session) -> None:
    session.run("pytest")


@nox.session(
    name="type-check",
    python="3.12",
)
def mypy(session):
    session.run("mypy")


@nox.session
def lint(session):
    session.run("pre-commit", "run")


@nox.session(name="upload-release")
def upload(session):
    session.run("twine", "upload")


def helper():
    pass
"""


def test_nox_sessions_read_without_importing_the_noxfile(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"noxfile.py": NOXFILE + "\nraise SystemExit('imported!')\n"})
    assert sheet.commands["test"] == ["nox -s tests"]
    assert sheet.commands["typecheck"] == ["nox -s type-check"]
    assert sheet.commands["lint"] == ["nox -s lint"]
    assert "nox -s upload-release" not in offered(sheet) and "nox -s helper" not in offered(sheet)


def test_hatch_scripts_in_pyproject_and_hatch_toml(tmp_path: Path) -> None:
    sheet = project(
        tmp_path / "a",
        {"pyproject.toml": '[tool.hatch.envs.lint.scripts]\nstyle = "ruff check"\n'
         'fmt = "ruff format"\n[tool.hatch.envs.default.scripts]\ncov = "pytest --cov"\n'},
    )  # fmt: skip
    assert sheet.commands["lint"] == ["hatch run lint:style"]
    assert sheet.commands["format"] == ["hatch run lint:fmt"]
    assert sheet.commands["test"] == ["hatch run cov"]
    sheet = project(tmp_path / "b", {"hatch.toml": '[envs.types.scripts]\ncheck = "mypy"\n'})
    assert "hatch run types:check" in offered(sheet)


def test_pre_commit_lints_and_formats_or_type_checks_when_its_hooks_do(tmp_path: Path) -> None:
    config = """\
repos:
  - repo: https://github.com/astral-sh/ruff-pre-commit
    rev: v0.6.0
    hooks:
      - id: ruff
      - id: ruff-format
  - repo: https://github.com/pre-commit/mirrors-mypy
    rev: v1.11.0
    hooks:
      - id: mypy
"""
    sheet = project(tmp_path / "full", {".pre-commit-config.yaml": config})
    for kind in ("lint", "format", "typecheck"):
        assert sheet.commands[kind][0] == "pre-commit run --all-files"
    plain = "repos:\n  - repo: local\n    hooks:\n      - id: codespell\n"
    sheet = project(tmp_path / "plain", {".pre-commit-config.yaml": plain})
    assert sheet.commands["lint"] == ["pre-commit run --all-files", "codespell"]
    assert not sheet.commands["format"] and not sheet.commands["typecheck"]


RAKEFILE = """\
require "bundler/gem_tasks"
require "rake/testtask"
require "rubocop/rake_task"

task default: :test

Rake::TestTask.new(:test) do |t|
  t.libs << "test"
end

RuboCop::RakeTask.new

desc "Make an official release"
task :officialrelease do
  sh "gem push"
end

task "spec:unit" => :environment

namespace :docs do
  task :build do
  end
end
"""


def test_rake_tasks_through_bundler(tmp_path: Path) -> None:
    sheet = project(
        tmp_path, {"Rakefile": RAKEFILE, "Gemfile": "source 'https://rubygems.org'\n",
                   ".rubocop.yml": "AllCops: {}\n"},
    )  # fmt: skip
    assert sheet.commands["setup"] == ["bundle install"]
    # bare `rake` runs the default task, the tests
    assert sheet.commands["test"] == [
        "bundle exec rake", "bundle exec rake test", "bundle exec rake spec:unit"
    ]  # fmt: skip
    assert sheet.commands["lint"] == ["bundle exec rake rubocop", "bundle exec rubocop"]
    assert "bundle exec rake officialrelease" not in offered(sheet)
    assert "bundle exec rake build" not in offered(sheet)  # a namespace's task is not top level


def test_rubocop_configured_without_a_rake_task(tmp_path: Path) -> None:
    sheet = project(tmp_path, {".rubocop.yml": "AllCops: {}\n"})
    assert sheet.commands["lint"] == ["rubocop"]


def test_the_projects_scripts_folder(tmp_path: Path) -> None:
    sheet = project(
        tmp_path,
        {"pyproject.toml": "[project]\n", "scripts/install": "#!/bin/sh\n",
         "scripts/test": "#!/bin/sh\n", "scripts/lint.sh": "ruff check\n",
         "scripts/publish": "#!/bin/sh\n", "scripts/sync-version": "#!/bin/sh\n",
         "scripts/gen_docs.py": "", "scripts/.hidden": ""},
    )  # fmt: skip
    for name in ("install", "test", "publish", "sync-version"):
        os.chmod(tmp_path / "scripts" / name, 0o755)
    sheet = detect_facts(tmp_path)
    assert sheet.commands["setup"][0] == "scripts/install"
    assert sheet.commands["test"] == ["scripts/test"]
    assert sheet.commands["lint"] == ["bash scripts/lint.sh"]  # not executable: through bash
    assert not {"scripts/publish", "scripts/sync-version"} & offered(sheet)


def test_gradle_through_its_wrapper_with_spotless(tmp_path: Path) -> None:
    sheet = project(
        tmp_path,
        {"gradlew": "#!/bin/sh\n", "build.gradle.kts": 'plugins { id("com.diffplug.spotless") }\n'},
    )
    assert sheet.commands["build"] == ["./gradlew build"]
    assert sheet.commands["test"] == ["./gradlew test"]
    assert sheet.commands["lint"] == ["./gradlew check", "./gradlew spotlessCheck"]
    assert sheet.commands["format"] == ["./gradlew spotlessApply"]


def test_maven_with_spotless(tmp_path: Path) -> None:
    pom = "<project><build><plugins><plugin><artifactId>spotless-maven-plugin</artifactId>"
    sheet = project(tmp_path, {"pom.xml": pom + "</plugin></plugins></build></project>"})
    assert sheet.commands["test"] == ["mvn test"]
    assert sheet.commands["format"] == ["mvn spotless:apply"]
    assert "mvn spotless:check" in sheet.commands["lint"]


def test_go_with_golangci_and_rust_standalone(tmp_path: Path) -> None:
    sheet = project(tmp_path / "go", {"go.mod": "module x\n", ".golangci.yml": "linters: {}\n"})
    assert sheet.commands["lint"] == ["golangci-lint run", "go vet ./..."]
    assert sheet.commands["format"] == ["go fmt ./..."]
    sheet = project(tmp_path / "rs", {"Cargo.toml": '[package]\nname = "x"\n', "src/lib.rs": ""})
    assert sheet.commands["test"] == ["cargo test"] and not sheet.commands["run"]
    assert sheet.commands["format"] == ["cargo fmt --check", "cargo fmt"]


def test_cis_form_of_a_build_tools_command_is_preferred(tmp_path: Path) -> None:
    workflow = """\
on: [pull_request]
jobs:
  lint:
    steps:
      - run: cargo clippy --all-targets -- -D warnings
      - run: cargo test --locked --test integration -- --ignored
"""
    sheet = project(
        tmp_path, {"Cargo.toml": '[package]\nname = "x"\n', ".github/workflows/ci.yml": workflow}
    )
    assert sheet.commands["lint"] == ["cargo clippy --all-targets -- -D warnings"]
    # a narrower form (one test target) does not stand for the usual command
    assert sheet.commands["test"] == ["cargo test --locked --test integration -- --ignored",
                                      "cargo test"]  # fmt: skip


def test_a_task_is_read_by_what_it_runs(tmp_path: Path) -> None:
    """A coverage report named for it is part of testing, a fixer formats, an aggregate's
    checks are a lint whose tools are each offered under their own kind."""
    scripts = {
        "scripts/coverage": "#!/bin/sh -e\n${PREFIX}coverage report --fail-under=100\n",
        "scripts/lint": "#!/bin/sh -e\n${PREFIX}ruff format src\n${PREFIX}ruff check --fix src\n",
        "scripts/check": "#!/bin/sh -e\n${PREFIX}ruff format --check src\n${PREFIX}mypy src\n",
        "scripts/test": '#!/bin/sh\n${PREFIX}pytest "$@"\n',
        "pyproject.toml": "[project]\n",
    }
    sheet = project(tmp_path, scripts)
    shown = offered(sheet)
    assert "coverage report --fail-under=100" not in shown  # the script's line: its own
    assert sheet.commands["test"] == ["bash scripts/test", "bash scripts/coverage"]
    assert "bash scripts/lint" in sheet.commands["format"]
    assert "bash scripts/check" in sheet.commands["lint"]
    assert "mypy src" in sheet.commands["typecheck"]


def test_an_npm_test_that_chains_tools_gives_each_its_kind(tmp_path: Path) -> None:
    package = '{"scripts": {"test": "xo && tsc --noEmit && NODE_OPTIONS=\'--x\' ava",'
    package += ' "build": "del-cli dist && tsc"}}'
    sheet = project(tmp_path, {"package.json": package})
    assert sheet.commands["test"] == ["npm test", "NODE_OPTIONS='--x' ava"]
    assert sheet.commands["lint"] == ["xo"]
    assert sheet.commands["typecheck"] == ["tsc --noEmit"]
    assert sheet.commands["build"] == ["npm run build"]  # a build's `tsc` is no type check


def test_the_default_goal_and_targets_by_their_recipes(tmp_path: Path) -> None:
    makefile = (
        "default: all\nall: fmt test\nfmt:\n\tgofmt -l .\ntest: deps\n\tgo test ./...\n"
        "richtest: deps\n\trichgo test ./...\ndeps:\n\tgo get ./...\n"
        "bench:\n\tgo test -bench .\ntest-other:\n\tgit clone https://x/y\n"
    )
    sheet = project(tmp_path, {"Makefile": makefile, "go.mod": "module x\n"})
    assert sheet.commands["test"][:3] == ["make", "make test", "make richtest"]
    assert "make deps" in sheet.commands["setup"]  # `go get`, though Go's `install` is not
    shown = offered(sheet)
    assert not {"make all", "make default", "make test-other"} & shown
    assert "make bench" in sheet.commands["test"]  # a benchmark: `go test -bench .`


def test_a_justfile_recipe_runs_through_uv(tmp_path: Path) -> None:
    justfile = "@default: test lint\n\n@test:\n  uv run pytest\n\n@lint:\n  uv run flake8\n"
    justfile += "  uv run mypy src\n  uv run black . --check\n"
    sheet = project(tmp_path, {"Justfile": justfile, "pyproject.toml": "[project]\n"})
    assert sheet.commands["setup"] == ["uv sync"]  # its tasks run through uv
    assert sheet.commands["test"] == ["just", "just test"]
    assert sheet.commands["lint"] == ["just lint", "uv run flake8"]
    assert sheet.commands["typecheck"] == ["uv run mypy src"]
    assert sheet.commands["format"] == ["uv run black . --check", "uv run black ."]


def test_the_contributor_docs_commands(tmp_path: Path) -> None:
    readme = (
        "# x\n\n## Installation\n\n```\n$ cargo install x\n$ npm install x\n```\n\n"
        "## Building\n\n```\n$ cargo build --release\n$ cd x\n```\n\nRun `cargo test --all`.\n"
    )
    guide = "Set up with::\n\n    uv sync\n\nSee `flake8 <https://flake8.org/>`__.\n"
    sheet = project(tmp_path, {"README.md": readme, "CONTRIBUTING.rst": guide})
    assert sheet.commands["setup"] == ["uv sync"]
    assert sheet.commands["build"] == ["cargo build --release"]
    assert sheet.commands["test"] == ["cargo test --all"]
    shown = offered(sheet)
    assert not any("install x" in command or "<" in command for command in shown)


def test_a_workspace_members_ci_steps_keep_their_folder(tmp_path: Path) -> None:
    workflow = "on: push\njobs:\n  t:\n    steps:\n"
    workflow += "      - run: cd core && cargo test --features rc\n"
    workflow += "      - run: cd core && cargo check\n      - run: cd /tmp && cargo build\n"
    sheet = project(tmp_path, {".github/workflows/ci.yml": workflow})
    assert sheet.commands["test"] == ["cd core && cargo test --features rc"]
    assert sheet.commands["typecheck"] == ["cd core && cargo check"]
    assert not sheet.commands["build"]


def test_a_script_s_shell_variables_are_dropped_not_cut(tmp_path: Path) -> None:
    check = '#!/bin/sh -e\nexport SOURCE_FILES="pkg tests"\n${PREFIX}ruff check $SOURCE_FILES\n'
    check += '${PREFIX}mypy "$SOURCE_FILES"\n'
    check += '${PREFIX}coverage run -m pytest "$@"\n'
    sheet = project(tmp_path, {"scripts/check": check})
    # the script's own SOURCE_FILES is filled in; CI's PREFIX, unknown, is dropped
    assert {"ruff check pkg tests", 'mypy "pkg tests"', "coverage run -m pytest"} <= offered(sheet)
    assert not any("$" in c or c.endswith(" S") for c in offered(sheet))


HATCH_TOML = """\
[envs.hatch-test]
extra-args = ["--dist", "worksteal"]
[envs.hatch-static-analysis]
config-path = "ruff_defaults.toml"
[envs.coverage.scripts]
combine = "coverage combine {args}"
generate-summary = "python scripts/generate_coverage_summary.py"
[envs.types.scripts]
check = "mypy --install-types {args:src tests}"
[envs.docs.scripts]
build = "mkdocs build --clean --strict {args}"
ci-build = "mike deploy --update-aliases {args}"
"""
HATCH_CI = """\
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: hatch run coverage:combine
      - run: hatch run coverage:generate-summary
      - run: hatch -v run docs:ci-build dev
"""


def test_hatch_commands_and_scripts_are_read_by_what_they_run(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"hatch.toml": HATCH_TOML, ".github/workflows/ci.yml": HATCH_CI})
    assert sheet.commands["setup"] == ["hatch env create"]
    # the coverage combined for the person who ran the tests; the summary is CI's
    assert sheet.commands["test"] == ["hatch test", "hatch run coverage:combine"]
    assert sheet.commands["format"] == ["hatch fmt"]
    assert sheet.commands["lint"] == ["hatch fmt --check"]
    assert sheet.commands["typecheck"] == ["hatch run types:check"]
    assert sheet.commands["build"] == ["hatch run docs:build", "hatch build"]
    shown = sheet.to_markdown()
    assert "coverage:generate-summary" not in shown and "ci-build" not in shown


def test_a_contributing_guide_in_a_folder_of_the_docs_is_read(tmp_path: Path) -> None:
    guide = "# Contributing\n\nRun the tests with `tox -e py312`.\n"
    sheet = project(tmp_path, {"docs/community/contributing.md": guide, "setup.py": ""})
    assert "tox -e py312" in offered(sheet)


def test_a_recipe_with_nested_make_variables_is_read_by_its_tool(tmp_path: Path) -> None:
    makefile = "check-wasm:\n\tcargo check ${_FEATURES_${@:check-%=%}} ${ARGS}\n"
    sheet = project(tmp_path, {"Makefile": makefile, "Cargo.toml": "[package]\n"})
    assert "make check-wasm" in sheet.commands["typecheck"]


def test_a_check_script_at_the_root_is_offered_by_what_it_runs(tmp_path: Path) -> None:
    check = "#!/bin/bash\nset -e\ngofmt -l .\nstaticcheck ./...\ngo test -failfast ./...\n"
    sheet = project(
        tmp_path,
        {"check.sh": check, "build-docs.sh": "#!/bin/bash\nmkdocs build\n", "go.mod": "module x\n"},
    )
    os.chmod(tmp_path / "check.sh", 0o755)
    sheet = detect_facts(tmp_path)
    assert sheet.commands["test"][0] == "./check.sh"
    assert "build-docs" not in sheet.to_markdown()


MAGEFILE = """\
//go:build mage

package main

// Build the binary
func Hugo() error { return nil }

// Run tests and linters
func Check() {}

// Clean Go's test cache.
func CleanTest() error { return nil }

func TestRace(ctx context.Context) error { return nil }

// Run gofmt linter
func Fmt() error { return nil }

// Build the Docker image
func Docker() error { return nil }

func helper() {}
"""


def test_mage_targets_are_read_by_their_comment_else_their_name(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"magefile.go": MAGEFILE, "go.mod": "module x\n"})
    assert sheet.commands["test"][:2] == ["mage check", "mage testRace"]
    assert sheet.commands["format"][0] == "mage fmt"
    assert "mage hugo" in sheet.commands["build"]
    shown = sheet.to_markdown()
    assert "cleanTest" not in shown and "mage docker" not in shown and "helper" not in shown
