"""Tasks read by what they run on small real trees: a Makefile whose default goal runs
targets a catch-all rule makes."""

from __future__ import annotations

from pathlib import Path

from fact_support import project

CATCH_ALL = """\
GO_RUN_BUILD := go run scripts/build.go

.PHONY: all
all: generate vet test check-binary-size gfmrun

%:
\t$(GO_RUN_BUILD) $(GFLAGS) $* $(FLAGS)

.PHONY: docs
docs:
\tmkdocs build
"""


def test_make_alone_runs_the_tests_a_catch_all_rule_makes(tmp_path: Path) -> None:
    sheet = project(
        tmp_path,
        {"go.mod": "module example.com/cli\n", "cli.go": "package cli\n", "Makefile": CATCH_ALL},
    )
    assert sheet.commands["test"][0] == "make"
    assert "make docs" in sheet.commands["build"]


PINO_SCRIPTS = """\
{"scripts": {
  "borp": "borp --timeout 60000 --coverage --check-coverage --lines 95",
  "lint": "eslint .",
  "test": "npm run lint && npm run transpile && npm run borp && jest test/jest \
&& npm run test-types",
  "test-ci": "npm run lint && npm run transpile && npm run borp && npm run test-types",
  "test-types": "tsc && tstyche && ts-node test/types/pino.ts && attw --pack .",
  "transpile": "node ./test/fixtures/ts/transpile.cjs",
  "bench": "node benchmarks/utils/runbench all"
}}
"""


def test_an_npm_aggregate_is_read_through_the_scripts_it_runs(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"package.json": PINO_SCRIPTS, "pino.js": ""})
    # borp is a test runner: the scripts running it test
    for script in ("npm test", "npm run test-ci", "npm run borp"):
        assert script in sheet.commands["test"]
    # checks of several kinds, named for one of them
    assert "npm run test-types" in sheet.commands["typecheck"]
    # each tool of the aggregate under its own kind
    assert {"tsc", "tstyche"} <= set(sheet.commands["typecheck"])
    assert "npm run transpile" in sheet.commands["build"]
    # the benchmark is run like the tests, to see what a change costs
    assert "npm run bench" in sheet.commands["test"]


HATCH_MATRIX = """\
on: [push, pull_request]
jobs:
  run:
    strategy:
      matrix:
        python-version: ['3.10', '3.11', '3.12', '3.13', '3.14']
    runs-on: ubuntu-latest
    steps:
      - run: hatch test --python ${{ matrix.python-version }} --cover-quiet --randomize
"""


def test_a_matrix_of_python_versions_gives_one_command(tmp_path: Path) -> None:
    sheet = project(
        tmp_path,
        {"pyproject.toml": "[project]\nname = 'x'\n", ".github/workflows/ci.yml": HATCH_MATRIX},
    )
    runs = [c for c in sheet.commands["test"] if c.startswith("hatch test --python")]
    assert runs == ["hatch test --python 3.10 --cover-quiet --randomize"]


def test_a_script_of_the_tests_folder_is_read_with_its_folders(tmp_path: Path) -> None:
    contributing = (
        "# Contributing\n\n## Regression tests\n\nThe syntax test script "
        "(`tests/syntax-tests/update.sh`) regenerates the highlighted output files.\n"
    )
    sheet = project(
        tmp_path,
        {
            "Cargo.toml": '[package]\nname = "bat"\n',
            "src/main.rs": "",
            "CONTRIBUTING.md": contributing,
            "tests/syntax-tests/update.sh": "#!/usr/bin/env bash\n",
        },
    )
    assert "tests/syntax-tests/update.sh" in sheet.commands["test"]


SPHINX_MAKEFILE = """\
SPHINXOPTS    =
SPHINXBUILD   = sphinx-build
SOURCEDIR     = .
BUILDDIR      = _build

%: Makefile
\t@$(SPHINXBUILD) -M $@ "$(SOURCEDIR)" "$(BUILDDIR)" $(SPHINXOPTS) $(O)
"""


def test_sphinx_makefile_in_the_docs_builds_them_unless_a_docs_build_is_shown(
    tmp_path: Path,
) -> None:
    tree = {"pyproject.toml": "[project]\nname = 'x'\n", "docs/Makefile": SPHINX_MAKEFILE}
    sheet = project(tmp_path / "plain", tree)
    assert "cd docs && make html" in sheet.commands["build"]
    tox = "[tox]\nenv_list = docs\n[testenv:docs]\ncommands = sphinx-build -W docs docs/_build\n"
    with_tox = project(tmp_path / "tox", {**tree, "tox.ini": tox})
    assert "cd docs && make html" not in with_tox.offered()


def test_checkers_and_runners_have_their_kinds() -> None:
    from serena_memory.agent.project_facts.commands import classify_command

    kinds = {
        "cd tracing && wasm-pack test --node": "test",
        "pnpm manypkg check": "lint",
        "cargo msrv verify": "lint",
        "check-jsonschema --check-metaschema schema.json": "lint",
        "poetry check --lock": "lint",
        "cargo-sort --workspace --grouped --check": "lint",
        "gotestsum ./...": "test",
        "go install gotest.tools/gotestsum@latest": "setup",
        "go install ./cmd/task": "build",
        "cargo install --path .": None,
        "uv run zensical build": "build",
        "towncrier build --yes": None,
        "nix build -L ./#trycmd-local": None,
        "hatch -e test shell": None,
        'python -m pip install -e ".[docs]"': "setup",
    }
    assert {line: classify_command(line) for line in kinds} == kinds


def test_a_fallback_after_a_ci_step_is_not_part_of_it() -> None:
    from serena_memory.agent.project_facts.ci import script_lines

    script = "hatch run cov:test --cov-fail-under 75 || hatch -v run test:test --lf"
    assert list(script_lines(script)) == ["hatch run cov:test --cov-fail-under 75"]


def test_the_targets_of_an_included_makefile_are_its_own(tmp_path: Path) -> None:
    sheet = project(
        tmp_path,
        {
            "go.mod": "module example.com/x\n",
            "Makefile": "include make/test.mk\n-include $(HOME)/.local.mk\n\n"
            "build:\n\tgo build ./...\n",
            "make/test.mk": "test-race:\n\tgo test -race ./...\n\nlint:\n\tgolangci-lint run\n",
        },
    )
    assert "make test-race" in sheet.commands["test"]
    assert "make lint" in sheet.commands["lint"]


def test_noise_seen_on_other_repositories_stays_off_the_sheet(tmp_path: Path) -> None:
    makefile = "clean: ## Remove all build artifacts\n\t@cargo clean\n\ntest:\n\tcargo test\n"
    bootstrap = (
        "#!/bin/sh\nset -e\nbundle install -j8 > /dev/null || bundle install > /dev/null\n"
        "bundle exec rspec\n"
    )
    agents = "# Agents\n\n- `test-browser` includes `clean build`; check `tests/strategies.py`.\n"
    sheet = project(
        tmp_path,
        {
            "Cargo.toml": '[package]\nname = "x"\n',
            "Makefile": makefile,
            "script/bootstrap": bootstrap,
            "AGENTS.md": agents,
            "tests/strategies.py": "",
        },
    )
    shown = sheet.offered()
    # a comment after the colon names no prerequisite: `clean` builds nothing
    assert "make clean" not in shown
    # a script's redirected or fallback line is its plumbing
    assert not any("/dev/null" in command for command in shown)
    # a script name and a test module named in prose are not commands
    assert not {"clean build", "build", "tests/strategies.py"} & shown


def test_a_members_script_parts_are_not_offered_as_if_run_at_the_root(tmp_path: Path) -> None:
    import json

    workflow = "on: [push]\njobs:\n  docs:\n    steps:\n      - run: cd docs && npm run build\n"
    sheet = project(
        tmp_path,
        {
            "package.json": json.dumps({"scripts": {"test": "mocha"}}),
            "docs/package.json": json.dumps({"scripts": {"build": "astro check && astro build"}}),
            ".github/workflows/ci.yml": workflow,
        },
    )
    assert "cd docs && npm run build" in sheet.commands["build"]
    assert "astro build" not in sheet.offered()
