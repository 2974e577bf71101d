"""Kinds of command the fact sheet missed on a fourth blind set of real projects: a
workspace's script called with the package manager's options first, a script named like
one of the manager's own commands, the docs' way of typing scripts, installing the tool
that runs the project's tasks, a contributor guide deep in the docs, the tasks a Rakefile
gets from a library, and a recipe wrapped in a shell.

The fixtures are short excerpts of public repositories' files (vitest, svelte, pip,
jupyter_server, packaging, factory_bot, zoxide, pydantic), cut down to the lines that
matter."""

from __future__ import annotations

import json
from pathlib import Path

from fact_support import project

from serena_memory.agent.project_facts import detect_facts
from serena_memory.agent.project_facts.sheet import FactSheet

# vitest-dev/vitest package.json and CONTRIBUTING.md (cut)
VITEST_SCRIPTS = {
    "ci": "pnpm typecheck && pnpm lint && pnpm build && pnpm test:ci",
    "build": "pnpm -r --filter @vitest/ui --filter='./packages/**' run build",
    "knip": "knip --cache --treat-config-hints-as-errors",
    "lint": "eslint --cache .",
    "test:ci": "CI=true pnpm -r --reporter-hide-prefix --stream --sequential"
    " --filter '@vitest/test-*' --filter !test-browser run test",
    "typecheck": "tsc -p tsconfig.check.json --noEmit",
    "ui:build": "vite build packages/ui",
}
VITEST_CONTRIBUTING = """\
## Set up

1. Run `pnpm i` in the root folder
2. Run `pnpm run build` to build all monorepo packages
3. Run the tests:
   - `pnpm run test` to run core tests
"""


def vitest(root: Path) -> FactSheet:
    package = {"name": "@vitest/monorepo", "private": True, "scripts": VITEST_SCRIPTS}
    tree = {"package.json": json.dumps(package), "pnpm-lock.yaml": "lockfileVersion: '9.0'\n"}
    tree["CONTRIBUTING.md"] = VITEST_CONTRIBUTING
    return project(root, tree)


def test_a_script_run_with_the_managers_options_first_is_of_its_scripts_kind(
    tmp_path: Path,
) -> None:
    sheet = vitest(tmp_path)
    # `pnpm -r --stream ... run test` runs the members' tests: no `run` task
    assert "pnpm run test:ci" in sheet.commands["test"]
    assert not any("test:ci" in command for command in sheet.commands["run"])
    assert "pnpm run knip" in sheet.commands["lint"]


def test_a_script_named_like_a_managers_command_is_typed_with_run(tmp_path: Path) -> None:
    sheet = vitest(tmp_path)
    # `pnpm ci` is pnpm's own command; the script runs type check, lint, build and tests
    assert "pnpm run ci" in sheet.commands["test"]
    assert "pnpm ci" not in sheet.offered()


def test_scripts_are_typed_as_the_contributor_docs_type_them(tmp_path: Path) -> None:
    sheet = vitest(tmp_path)
    assert "pnpm run ui:build" in sheet.commands["build"]
    assert "pnpm run typecheck" in sheet.commands["typecheck"]
    assert not {"pnpm build", "pnpm ui:build", "pnpm lint"} & sheet.offered()
    # without such docs, pnpm's short form stays
    (tmp_path / "CONTRIBUTING.md").unlink()
    sheet = detect_facts(tmp_path)
    assert "pnpm ui:build" in sheet.commands["build"]


def test_installing_the_browsers_of_playwright_sets_up(tmp_path: Path) -> None:
    # sveltejs/svelte CONTRIBUTING.md (cut)
    guide = "## Testing\n\n> PREREQUISITE: Install chromium via playwright by running"
    guide += " `pnpm playwright install chromium`\n\n```sh\npnpm test\n```\n"
    package = {"name": "svelte-monorepo", "scripts": {"test": "vitest run"}}
    tree = {"package.json": json.dumps(package), "pnpm-lock.yaml": "", "CONTRIBUTING.md": guide}
    sheet = project(tmp_path, tree)
    assert "pnpm playwright install chromium" in sheet.commands["setup"]


# pypa/pip docs/html/development/getting-started.rst (cut)
PIP_GETTING_STARTED = """\
Running Tests
=============

To run tests without parallelization, run:

.. code-block:: console

    $ nox -s test-3.10

Building Documentation
======================

.. code-block:: console

    $ nox -s docs
"""


def test_the_getting_started_page_of_the_docs_for_developers_is_read(tmp_path: Path) -> None:
    tree = {"pyproject.toml": '[project]\nname = "pip"\n', "noxfile.py": "import nox\n"}
    tree["docs/html/development/getting-started.rst"] = PIP_GETTING_STARTED
    # a page of the same name for users is not the contributor's guide
    tree["docs/html/user/getting-started.rst"] = ".. code-block:: console\n\n    $ tox\n"
    sheet = project(tmp_path, tree)
    assert "nox -s test-3.10" in sheet.commands["test"]
    assert "nox -s docs" in sheet.commands["build"]
    assert "tox" not in sheet.offered()


# thoughtbot/factory_bot Rakefile (cut)
FACTORY_BOT_RAKEFILE = """\
require "rspec/core/rake_task"
require "cucumber/rake/task"
require "standard/rake"

desc "Default: run all specs and standard"
task default: %w[all_specs standard]

namespace :spec do
  desc "Run unit specs"
  RSpec::Core::RakeTask.new("unit") do |t|
    t.pattern = "spec/{*_spec.rb,factory_bot/**/*_spec.rb}"
  end
end

Cucumber::Rake::Task.new(:features) do |t|
  t.fork = true
end

YARD::Rake::YardocTask.new do |t|
end
"""


def test_the_tasks_a_rakefile_gets_from_a_library_are_offered_by_what_they_run(
    tmp_path: Path,
) -> None:
    tree = {"Gemfile": "source 'https://rubygems.org'\ngemspec\n"}
    tree["Rakefile"] = FACTORY_BOT_RAKEFILE
    sheet = project(tmp_path, tree)
    assert "bundle exec rake" in sheet.commands["test"]
    assert {"bundle exec rake features", "bundle exec rake spec:unit"} <= set(
        sheet.commands["test"]
    )
    assert "bundle exec rake standard" in sheet.commands["lint"]
    assert "bundle exec rake standard:fix" in sheet.commands["format"]
    assert "bundle exec rake yard" in sheet.commands["build"]
    assert "bundle exec rake do" not in sheet.offered()


# ajeetdsouza/zoxide justfile (cut)
ZOXIDE_JUSTFILE = """\
default:
    @just --list

[unix]
lint:
    nix-shell --cores 0 --pure --run 'cargo-fmt --all --check'
    nix-shell --cores 0 --pure --run 'cargo clippy --all-features --all-targets -- -Dwarnings'
    nix-shell --cores 0 --pure --run 'shellcheck --enable all *.sh'

[windows]
lint:
    cargo +nightly fmt --all --check
    cargo +stable clippy --all-features --all-targets -- -Dwarnings
"""


def test_a_recipe_for_each_system_and_its_commands_run_in_a_shell_are_offered(
    tmp_path: Path,
) -> None:
    tree = {"Cargo.toml": '[package]\nname = "zoxide"\n', "justfile": ZOXIDE_JUSTFILE}
    sheet = project(tmp_path, tree)
    assert "just lint" in sheet.commands["lint"]
    # the commands the shell runs, not the shell
    assert "cargo clippy --all-features --all-targets -- -Dwarnings" in sheet.commands["lint"]
    assert "shellcheck --enable all *.sh" in sheet.commands["lint"]
    assert "cargo-fmt --all --check" in sheet.commands["format"]
    assert not any(command.startswith("nix-shell") for command in sheet.offered())
    # the Unix recipe is read as well as the Windows one defined after it
    assert "cargo +nightly fmt --all --check" in sheet.commands["format"]


# jupyter-server/jupyter_server .github/workflows/python-tests.yml (cut)
JUPYTER_CI = """\
name: Python Tests
on: [push, pull_request]
jobs:
  test_lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v6
      - name: Run Linters
        run: |
          pipx run interrogate -v .
          pipx run doc8 --max-line-length=200  --ignore-path=docs/source/other/full-config.rst
          npm install -g eslint
"""


def test_a_tool_run_through_pipx_or_uvx_is_read_as_the_tool(tmp_path: Path) -> None:
    tree = {"pyproject.toml": '[project]\nname = "jupyter_server"\n'}
    tree[".github/workflows/python-tests.yml"] = JUPYTER_CI
    tree["CONTRIBUTING.md"] = "## Testing\n\n```sh\nuvx nox -s tests\n```\n"
    sheet = project(tmp_path, tree)
    assert "pipx run interrogate -v ." in sheet.commands["lint"]
    assert any(command.startswith("pipx run doc8") for command in sheet.commands["lint"])
    assert "uvx nox -s tests" in sheet.commands["test"]
    assert "npm install -g eslint" not in sheet.offered()


# sharkdp/fd .github/workflows/CICD.yml (cut)
FD_CICD = """\
name: CICD
env:
  MSRV_FEATURES: "--all-features"
on:
  pull_request:
  push:
jobs:
  min_version:
    name: Minimum supported rust version
    runs-on: ubuntu-22.04
    steps:
    - name: Checkout source code
      uses: actions/checkout@v4
    - name: Run tests
      run: cargo test --locked "${MSRV_FEATURES}"
  bump_version:
    name: Bump the version
    runs-on: ubuntu-22.04
    steps:
    - run: cargo set-version --bump patch && cargo check
"""


def test_a_job_on_the_oldest_supported_toolchain_checks_the_code(tmp_path: Path) -> None:
    tree = {"Cargo.toml": '[package]\nname = "fd-find"\n', ".github/workflows/CICD.yml": FD_CICD}
    sheet = project(tmp_path, tree)
    # its quoted variable filled in as the shell passes it
    assert "cargo test --locked --all-features" in sheet.commands["test"]
    assert not any("set-version" in command for command in sheet.offered())


def test_the_docs_running_the_projects_own_program_run_it(tmp_path: Path) -> None:
    # simonw/sqlite-utils docs/contributing.rst and Textualize/textual CONTRIBUTING.md (cut)
    pyproject = '[project]\nname = "sqlite-utils"\n\n[project.scripts]\n'
    pyproject += 'sqlite-utils = "sqlite_utils.cli:cli"\njupyter-server = "x:main"\n'
    guide = "Contributing\n============\n\nTry it::\n\n    uv run sqlite-utils --help\n\n"
    guide += "Or::\n\n    python -m sqlite_utils\n    jupyter server\n    python -m other\n"
    guide += "    sqlite-utils insert data.db dogs dogs.json\n"
    sheet = project(tmp_path, {"pyproject.toml": pyproject, "docs/contributing.rst": guide})
    assert "uv run sqlite-utils --help" in sheet.commands["run"]
    assert "python -m sqlite_utils" in sheet.commands["run"]
    assert "jupyter server" in sheet.commands["run"]  # the launcher's `jupyter-server`
    assert "python -m other" not in sheet.offered()
    # giving it work is using it, as its users do
    assert not any("insert" in command for command in sheet.offered())


def test_a_task_led_by_a_test_word_may_update_the_tests_own_data(tmp_path: Path) -> None:
    # Textualize/textual Makefile (cut)
    makefile = "run := poetry run\n\n.PHONY: test-snapshot-update\ntest-snapshot-update:\n"
    makefile += "\t$(run) pytest tests/ --snapshot-update -n 16\n\n.PHONY: release-snapshot\n"
    makefile += "release-snapshot:\n\tgoreleaser release --snapshot --clean\n\n"
    makefile += "update-version:\n\tpoetry version patch\n"
    sheet = project(tmp_path, {"pyproject.toml": '[project]\nname = "t"\n', "Makefile": makefile})
    assert "make test-snapshot-update" in sheet.commands["test"]
    assert not {"make release-snapshot", "make update-version"} & sheet.offered()


# vitejs/vite .github/workflows/ci.yml (cut)
VITE_CI = """\
name: CI
on:
  push:
  pull_request:
jobs:
  test:
    runs-on: ${{ matrix.os }}
    strategy:
      matrix:
        os: [ubuntu-latest]
        node_version: [20, 22]
    name: "Build&Test: node-${{ matrix.node_version }}, ${{ matrix.os }}"
    steps:
      - name: Checkout
        uses: actions/checkout@v4
      - name: Install deps
        run: pnpm install
      - name: Install Playwright
        run: pnpm playwright install chromium
      - name: Test unit
        run: pnpm run test-unit
      - name: Install the bundler test's deps
        run: cd test/bundler && npm install
"""


def test_a_job_named_with_a_matrix_value_and_its_tools_set_up_are_read(
    tmp_path: Path,
) -> None:
    package = {"name": "vite-monorepo", "scripts": {"build": "pnpm -r build"}}
    tree = {"package.json": json.dumps(package), "pnpm-lock.yaml": ""}
    tree[".github/workflows/ci.yml"] = VITE_CI
    sheet = project(tmp_path, tree)
    # `node_version` in the job's name says nothing of a version bump
    assert "pnpm run test-unit" in sheet.commands["test"]
    # a tool's own set-up beside the project's install; another install of packages is not
    assert sheet.commands["setup"] == ["pnpm install", "pnpm playwright install chromium"]


def test_a_file_a_command_is_given_says_nothing_of_what_it_does(tmp_path: Path) -> None:
    # Textualize/textual CONTRIBUTING.md (cut)
    guide = "## Snapshot testing\n\nWhen you create a new snapshot test, run it with "
    guide += "`pytest -vv tests/snapshot_tests/test_snapshots.py`.\n"
    guide += "Then `goreleaser release --snapshot` and `./scripts/update-version.sh`.\n"
    tree = {"pyproject.toml": '[project]\nname = "textual"\n', "CONTRIBUTING.md": guide}
    tree["scripts/update-version.sh"] = "#!/bin/sh\npoetry version patch\n"
    sheet = project(tmp_path, tree)
    assert "pytest -vv tests/snapshot_tests/test_snapshots.py" in sheet.commands["test"]
    assert not any("release" in c or "version" in c for c in sheet.offered())


# jupyter-server/jupyter_server CONTRIBUTING.rst and Kludex/uvicorn docs/contributing.md (cut)
JUPYTER_GUIDE = """\
Building the Docs
~~~~~~~~~~~~~~~~~

Once you have installed the required packages, you can build the docs with::

    cd docs
    make html

You can also drop into a shell in the docs environment by running::

    hatch -e docs shell
"""
UVICORN_GUIDE = """\
```shell
$ git clone https://github.com/YOUR-USERNAME/uvicorn
```

You can now install the project and its dependencies using:

```shell
$ cd uvicorn
$ scripts/install
```
"""


def test_a_documented_block_runs_its_commands_in_the_folder_it_enters(tmp_path: Path) -> None:
    tree = {"pyproject.toml": '[project]\nname = "uvicorn"\n', "uvicorn/__init__.py": ""}
    tree["docs/Makefile"] = "html:\n\tsphinx-build -b html . build\n"
    tree["CONTRIBUTING.rst"] = JUPYTER_GUIDE
    tree["docs/contributing.md"] = UVICORN_GUIDE
    tree["scripts/install"] = "#!/bin/sh\npip install -e .\n"
    sheet = project(tmp_path, tree)
    assert "cd docs && make html" in sheet.commands["build"]
    assert "make html" not in sheet.offered()
    # the block after a clone enters the clone: the project's root, whatever its folders
    assert "scripts/install" in sheet.commands["setup"]
    assert not any(command.startswith("cd uvicorn") for command in sheet.offered())
    # a heading's `~~~` underline opens no code block: the prose after it is no command
    assert not any("Once you have" in command for command in sheet.offered())


def test_a_check_environments_script_named_for_something_generic_is_a_check(
    tmp_path: Path,
) -> None:
    # jupyter-server/jupyter_server CONTRIBUTING.rst (cut)
    guide = "Code Styling\n------------\n\nThere are three hatch scripts that can be run "
    guide += "locally as well:\n``hatch run lint:build`` will enforce styling.  "
    guide += "``hatch run typing:test`` will\nrun the type checker.\n"
    tree = {"pyproject.toml": '[project]\nname = "jupyter_server"\n', "CONTRIBUTING.rst": guide}
    sheet = project(tmp_path, tree)
    assert "hatch run lint:build" in sheet.commands["lint"]
    assert "hatch run typing:test" in sheet.commands["typecheck"]
    assert not {"hatch run lint:build", "hatch run typing:test"} & set(
        sheet.commands["build"] + sheet.commands["test"]
    )
