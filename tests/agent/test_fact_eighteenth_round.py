"""The eighteenth facts round's rules: pre-commit's taplo hooks offered as a person runs
taplo, the ``actions-rs/cargo`` action's ``command`` and ``args`` read as the cargo
command it runs, ...

The fixtures are short files written in the shape of public projects' (a pytest plugin
tested through tox, a Rust command-line program with a website), cut down to the lines
that matter."""

from __future__ import annotations

from pathlib import Path

from fact_support import checked_out, project

from serena_memory.agent.project_facts.commands import classify_command
from serena_memory.agent.project_facts.justfile import just_tasks

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


CONTRIBUTING_TIPS = """\
============
Contributing
============

Development
===========

When you're done making changes run all the checks and docs builder with one command::

    tox

Tips
----

To run a subset of tests::

    tox -e envname -- pytest -k test_myfeature

To run all the test environments in *parallel*::

    tox -p auto
"""


def test_a_guides_parallel_tox_and_its_subset_of_tests(tmp_path: Path) -> None:
    """``tox -p auto`` runs the default environments side by side, and an environment of
    no known name handed ``pytest -k`` after ``--`` runs that subset of the tests."""
    sheet = project(
        tmp_path,
        {
            "pyproject.toml": PYPROJECT,
            "tox.ini": TOX_COVERAGE_STEPS,
            "CONTRIBUTING.rst": CONTRIBUTING_TIPS,
        },
    )
    assert "tox -p auto" in sheet.commands["test"]
    assert "tox -e envname -- pytest -k test_myfeature" in sheet.commands["test"]


def test_tox_options_and_handed_commands_keep_their_limits() -> None:
    """Options of how the defaults run are tests; others (``--notest``, ``--version``) run
    none; a release environment handed an upload is no everyday command."""
    assert classify_command("tox -r") == "test"
    assert classify_command("tox -p 4") == "test"
    assert classify_command("tox --notest") is None
    assert classify_command("tox --version") is None
    assert classify_command("tox -e envname") is None
    assert classify_command("tox -e release -- twine upload dist/*") is None
    assert classify_command("tox -p auto -e lint") == "lint"


CONTRIBUTING_ENV = """\
# Contributing

Check if the tests pass:

```sh
cargo test
```

If you changed snapshot tests (i.e. `expect_test`), update snapshots:

```sh
env UPDATE_EXPECT=1 cargo test
```
"""


def test_env_sets_the_environment_of_the_command_it_runs(tmp_path: Path) -> None:
    """``env UPDATE_EXPECT=1 cargo test`` is the tests run with a variable set, as
    ``UPDATE_EXPECT=1 cargo test`` is; ``env`` alone prints the environment."""
    sheet = project(tmp_path, {"Cargo.toml": CARGO_TOML, "CONTRIBUTING.md": CONTRIBUTING_ENV})
    assert "env UPDATE_EXPECT=1 cargo test" in sheet.commands["test"]
    assert classify_command("env") is None


TOX_TOML = """\
env_list = ["3.14", "3.13", "coverage", "type"]

[env_run_base]
commands = [["pytest", "tests"]]

[env.coverage]
commands = [["coverage", "combine"], ["coverage", "report"]]

[env.type]
commands = [["ty", "check", "--output-format", "concise", "--error-on-warning", "."]]
"""

CHECK_WORKFLOW = """\
name: check
on:
  pull_request:
  push:
    branches: [main]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v5
      - name: Setup test suite
        run: tox run -vv --notest --skip-missing-interpreters false -e type
      - name: Run test suite
        run: tox run --skip-pkg-install -e type
  coverage:
    runs-on: ubuntu-latest
    steps:
      - name: Setup coverage tool
        run: tox -e coverage --notest
      - name: Generate coverage report
        run: tox -e coverage --skip-pkg-install
"""


def test_ty_configured_is_ty_check(tmp_path: Path) -> None:
    """``[tool.ty]`` configures ty: ``ty check`` checks the project's types."""
    pyproject = PYPROJECT + "\n[tool.ty]\nenvironment.python-version = '3.14'\n"
    sheet = project(tmp_path, {"pyproject.toml": pyproject})
    assert "ty check" in sheet.commands["typecheck"]
    assert "ty check" not in project(tmp_path / "plain", {"pyproject.toml": PYPROJECT}).offered()


def test_tox_runs_that_only_make_environments_are_cis(tmp_path: Path) -> None:
    """CI's ``tox ... --notest`` makes the environments a later step runs with
    ``--skip-pkg-install``: the first runs nothing, the second is the environment offered
    already (``tox run -e type``)."""
    sheet = project(
        tmp_path,
        {
            "pyproject.toml": PYPROJECT,
            "tox.toml": TOX_TOML,
            ".github/workflows/check.yaml": CHECK_WORKFLOW,
        },
    )
    offered = sheet.offered()
    assert not any("--notest" in command for command in offered)
    assert not any("--skip-pkg-install" in command for command in offered)
    assert any(command.endswith("-e type") for command in sheet.commands["typecheck"])


JUSTFILE_COG = """\
# Run tests and linters
@default: test lint

# Run pytest with supplied options
@test *options:
  uv run pytest {{options}}

# Run linters
@lint:
  echo "Linters..."
  uv run cog --check \\
    -p "import sys, os; sys._called_from_test=True" \\
    README.md docs/*.md
  uv run ruff check .

# Rebuild docs with cog
@cog:
  uv run cog -r -p "import sys, os; sys._called_from_test=True; LONG" DOCS
""".replace("LONG", "os.environ['LLM_USER_PATH'] = '/tmp'").replace(
    "DOCS", "docs/**/*.md docs/*.md README.md"
)


def test_a_recipes_long_line_says_its_kind(tmp_path: Path) -> None:
    """``cog -r`` over the docs rebuilds them: ``just cog`` is a build, though its line is
    longer than a command a person types (the recipe's name is what is typed)."""
    sheet = project(tmp_path, {"pyproject.toml": PYPROJECT, "Justfile": JUSTFILE_COG})
    assert "just cog" in sheet.commands["build"]
    long_line = next(line for line in JUSTFILE_COG.splitlines() if "cog -r" in line)
    assert classify_command(long_line.strip()) is None  # typed, it is too long to offer


def test_a_justfile_line_continued_is_one_command(tmp_path: Path) -> None:
    """``uv run cog --check \\`` and its next lines are one command: never offered cut at
    the backslash."""
    sheet = project(tmp_path, {"pyproject.toml": PYPROJECT, "Justfile": JUSTFILE_COG})
    assert not any(command.endswith("\\") for command in sheet.offered())
    joined = (
        'uv run cog --check -p "import sys, os; sys._called_from_test=True" README.md docs/*.md'
    )
    assert joined in just_tasks(JUSTFILE_COG)[0]["lint"].lines


DEPLOY_WEBSITE = """\
name: Deploy website

on:
  push:
    branches: [main]
    tags: ["v*.*.*"]
  pull_request:
    branches: [main]

jobs:
  test-deploy:
    name: Test deployment
    if: ${{ !startsWith(github.ref, 'refs/tags/v') }}
    runs-on: ubuntu-22.04
    steps:
      - name: Checkout
        uses: actions/checkout@v6
      - name: Install dependencies
        working-directory: ./website
        run: yarn install --frozen-lockfile --non-interactive
      - name: Build
        working-directory: ./website
        run: yarn build
  deploy:
    name: Deploy website
    if: ${{ startsWith(github.ref, 'refs/tags/v') }}
    runs-on: ubuntu-22.04
    steps:
      - name: Build
        working-directory: ./website
        run: yarn build
      - name: Deploy to GitHub Pages
        run: yarn deploy
"""

WEBSITE_PACKAGE = """\
{
  "name": "website",
  "private": true,
  "scripts": {
    "start": "docusaurus start",
    "build": "docusaurus build",
    "deploy": "docusaurus deploy",
    "typecheck": "tsc"
  }
}
"""


def test_a_deploy_workflows_test_of_the_deployment_checks_the_code(tmp_path: Path) -> None:
    """The ``Test deployment`` job builds on pull requests the site a tag deploys: its build
    is offered in its folder, and the website's own scripts with it; the deploy job's
    ``yarn deploy`` never."""
    sheet = project(
        tmp_path,
        {
            "Cargo.toml": CARGO_TOML,
            ".github/workflows/website.yml": DEPLOY_WEBSITE,
            "website/package.json": WEBSITE_PACKAGE,
            "website/yarn.lock": "",
        },
    )
    assert "cd website && yarn build" in sheet.commands["build"]
    assert "cd website && yarn typecheck" in sheet.commands["typecheck"]
    assert not any("deploy" in command for command in sheet.offered())


def test_a_deploy_job_of_no_test_stays_out(tmp_path: Path) -> None:
    """Without the job testing the deployment, the deploy workflow offers nothing."""
    workflow = DEPLOY_WEBSITE.replace("test-deploy:", "build-site:").replace(
        "name: Test deployment", "name: Build site"
    )
    sheet = project(
        tmp_path,
        {
            "Cargo.toml": CARGO_TOML,
            ".github/workflows/website.yml": workflow,
            "website/package.json": WEBSITE_PACKAGE,
        },
    )
    assert not any(command.startswith("cd website") for command in sheet.offered())


CIRCLECI_FETCHED = """\
version: 2
jobs:
  build:
    machine:
      image: ubuntu-2004:202010-01
    steps:
      - run: curl -sfL -o ~/bin/golangci-lint.sh https://install.goreleaser.com/golangci-lint.sh
      - run: chmod +x ~/bin/golangci-lint.sh
      - run: golangci-lint.sh -b ~/bin v1.37.0
      - checkout
      - run: golangci-lint run
      - run: lint.sh
"""


def test_a_script_ci_fetched_onto_its_path_is_no_command(tmp_path: Path) -> None:
    """``golangci-lint.sh`` is the linter's installer CI downloaded: never offered; the
    project's own ``lint.sh`` run by its bare name is still read."""
    sheet = project(
        tmp_path,
        {
            "go.mod": "module example.com/x\n\ngo 1.22\n",
            ".circleci/config.yml": CIRCLECI_FETCHED,
            "lint.sh": "#!/bin/sh\ngolangci-lint run\n",
        },
    )
    offered = sheet.offered()
    assert not any(command.startswith("golangci-lint.sh") for command in offered)
    assert "golangci-lint run" in sheet.commands["lint"]
    assert any(command.split()[-1] == "lint.sh" for command in sheet.commands["lint"])


PACKAGE_ROLLUP = """\
{
  "name": "x",
  "scripts": {
    "rollup": "rm -rf bundle && rollup -c",
    "build": "rm -rf dist && tsc",
    "test": "mocha"
  }
}
"""


def test_a_bundlers_script_builds(tmp_path: Path) -> None:
    """``rollup -c`` bundles the sources: its script is a build; ``webpack serve`` serves."""
    sheet = project(tmp_path, {"package.json": PACKAGE_ROLLUP, "package-lock.json": "{}"})
    assert "npm run rollup" in sheet.commands["build"]
    assert classify_command("webpack serve --open") == "run"
    assert classify_command("taplo fmt") == "format"


PACKAGE_OLD_NODE = """\
{
  "name": "x",
  "scripts": {
    "unit": "uvu -r ts-node/register/transpile-only test",
    "old": "node --require ./test/old-node.js ./node_modules/uvu/bin.js -r module test",
    "tool": "node ./node_modules/@scope/tool/cli.js run"
  }
}
"""


def test_a_dependencys_program_run_by_node_is_that_program(tmp_path: Path) -> None:
    """``node ... ./node_modules/uvu/bin.js`` runs uvu, the tests on an old Node: ``pnpm run
    old`` (``pnpm old``) tests; a scoped package's program (its own name unknown) says nothing."""
    sheet = project(tmp_path, {"package.json": PACKAGE_OLD_NODE, "pnpm-lock.yaml": ""})
    assert "pnpm old" in sheet.commands["test"]
    assert not any("tool" in command for command in sheet.offered())
    assert classify_command("node node_modules/typescript/bin/tsc") == "typecheck"


def test_a_folder_with_its_own_lock_file_is_installed_in_it(tmp_path: Path) -> None:
    """The website CI builds has its own ``yarn.lock``: ``cd website && yarn install`` sets
    it up before its scripts run; without a lock file of its own, no such install."""
    tree = {
        "Cargo.toml": CARGO_TOML,
        ".github/workflows/website.yml": DEPLOY_WEBSITE,
        "website/package.json": WEBSITE_PACKAGE,
    }
    sheet = project(tmp_path / "locked", {**tree, "website/yarn.lock": ""})
    assert "cd website && yarn install" in sheet.commands["setup"]
    unlocked = project(tmp_path / "unlocked", tree)
    assert "cd website && yarn install" not in unlocked.offered()


APT_DEPS = """\
#!/bin/sh
#
sudo apt-get update -qq
sudo apt-get install --assume-yes libcurl4-openssl-dev
"""

RUBY_WORKFLOW = """\
name: Test
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v5
      - run: ./script/install-apt-deps.sh
      - run: bundle install
      - run: bundle exec rake test
"""


def test_a_script_installing_the_systems_packages_is_cis_chore(tmp_path: Path) -> None:
    """``script/install-apt-deps.sh`` (apt-get only) sets CI's machine up: neither the
    scripts folder nor CI offers it; a bootstrap that also installs the gems is offered."""
    bootstrap = APT_DEPS + "bundle install\n"
    sheet = checked_out(
        tmp_path,
        {
            "Gemfile": "source 'https://rubygems.org'\n",
            "script/install-apt-deps.sh": APT_DEPS,
            "script/bootstrap": bootstrap,
            ".github/workflows/test.yml": RUBY_WORKFLOW,
        },
    )
    offered = sheet.offered()
    assert not any("install-apt-deps" in command for command in offered)
    assert "script/bootstrap" in sheet.commands["setup"]


README_MY_LIB = """\
# env_logger

## Testing

Run the tests:

```console
$ cargo test
```

Assuming the module under test is called `my_lib`, running the tests with the
`RUST_LOG` filtering to info messages from this module looks like:

```console
$ RUST_LOG=my_lib=info cargo test
```
"""


def test_a_line_naming_the_readers_own_project_is_an_example(tmp_path: Path) -> None:
    """``my_lib`` stands for the reader's crate: the line is how a user of the library tests
    theirs, not the project's; a folder the project has by such a name is its own."""
    sheet = project(tmp_path / "lib", {"Cargo.toml": CARGO_TOML, "README.md": README_MY_LIB})
    assert not any("my_lib" in command for command in sheet.offered())
    assert "cargo test" in sheet.commands["test"]
    guide = "# Contributing\n\n```sh\ncd my-app && npm test\n```\n"
    tree = {"package.json": '{"name": "x"}', "my-app/package.json": "{}", "CONTRIBUTING.md": guide}
    assert "cd my-app && npm test" in project(tmp_path / "app", tree).offered()
