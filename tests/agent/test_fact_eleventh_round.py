"""Kinds of command the fact sheet missed on three sets of real projects (set13 to
set15): a script's variable given a value only when a virtualenv is there, a just recipe
whose default argument has spaces, just's `--set NAME VALUE`, Python's short options run
together (`python -Im pytest`), tox's development environment, a reStructuredText link
read as a command, a script filed under a kind's folder of `scripts/`, the lines of a
script CI runs with an argument, a coverage report sent to a hosted service, Yarn's own
commands, Travis's `install:` lines, and a guide's many forms of one command.

The fixtures are short excerpts written in the shape of public projects' files (httpcore,
cattrs, scrapy, date-fns, bytes, node-fetch, webpack, pflag), cut down to the lines that
matter."""

from __future__ import annotations

import json
from pathlib import Path

from fact_support import checked_out, project

from serena_memory.agent.project_facts.commands import canonical, classify_command
from serena_memory.agent.project_facts.docs import is_command

PYPROJECT = '[project]\nname = "demo"\n'

# httpcore's scripts: `${PREFIX}` is `venv/bin/` only when a `venv` folder is there
CHECK = """\
#!/bin/sh -e

export PREFIX=""
if [ -d 'venv' ] ; then
    export PREFIX="venv/bin/"
fi
export SOURCE_FILES="demo tests"

set -x

${PREFIX}ruff format $SOURCE_FILES --diff
${PREFIX}mypy $SOURCE_FILES
${PREFIX}ruff check $SOURCE_FILES
"""


def test_a_variable_a_script_sets_only_for_a_virtualenv_is_left_out(tmp_path: Path) -> None:
    sheet = checked_out(tmp_path, {"pyproject.toml": PYPROJECT, "scripts/check": CHECK})
    assert "scripts/check" in sheet.commands["lint"]
    assert "mypy demo tests" in sheet.commands["typecheck"]
    assert "ruff format demo tests --diff" in sheet.commands["format"]
    assert "venv/bin/" not in sheet.to_markdown()


JUSTFILE = """\
python := ""

lint:
\tuv run ruff check src

test *args="-x --ff -n auto tests":
    uv run pytest {{args}}

cov *args="-x --ff -n auto tests":
    uv run coverage run -m pytest {{args}}
"""


def test_a_recipe_whose_default_argument_has_spaces_takes_none(tmp_path: Path) -> None:
    """cattrs' `cov *args="-x --ff -n auto tests":` needs no argument: `just cov` runs."""
    sheet = project(tmp_path, {"pyproject.toml": PYPROJECT, "Justfile": JUSTFILE})
    assert "just test" in sheet.commands["test"]
    assert "just cov" in sheet.commands["test"]


def test_justs_set_option_takes_a_name_and_a_value(tmp_path: Path) -> None:
    guide = "# Contributing\n\n```console\n$ just --set python python3.10 test\n```\n"
    sheet = project(
        tmp_path, {"pyproject.toml": PYPROJECT, "Justfile": JUSTFILE, "CONTRIBUTING.md": guide}
    )
    assert "just --set python python3.10 test" in sheet.commands["test"]


def test_pythons_short_options_run_together() -> None:
    """stamina's guide types `python -Im pytest`, pre-commit's CI `python -mpip install`."""
    assert classify_command("python -Im pytest") == "test"
    assert canonical("python -Im pytest") == "pytest"
    assert classify_command("python -mpip install -e . -r requirements-dev.txt") == "setup"
    assert classify_command("python -Ic 'import demo'") is None


def test_toxs_development_environment_sets_up() -> None:
    assert classify_command("tox --devenv venv") == "setup"
    assert classify_command("tox devenv") == "setup"
    assert classify_command("tox -e py") == "test"


SCRAPY_GUIDE = """\
Tests
=====

Running tests requires :doc:`tox <tox:index>`.

To run all tests::

    tox

To run a specific test (say ``tests/test_loader.py``) use:

    ``tox -- tests/test_loader.py``

To run the tests on a specific :doc:`tox <tox:index>` environment, use::

    tox -e py310
"""


def test_a_restructuredtext_link_is_no_command(tmp_path: Path) -> None:
    tox = "[tox]\nenvlist = py\n\n[testenv]\ncommands = pytest {posargs}\n"
    sheet = project(
        tmp_path,
        {"pyproject.toml": PYPROJECT, "tox.ini": tox, "docs/contributing.rst": SCRAPY_GUIDE},
    )
    assert not any("<tox:index>" in c for c in sheet.offered())
    # a paragraph of one literal, indented: the command it shows
    assert "tox -- tests/test_loader.py" in sheet.commands["test"]
    assert "tox -e py310" in sheet.commands["test"]


DATE_FNS_CI = """\
name: Node tests
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: ./scripts/test/tz.sh
"""


def test_a_script_filed_under_a_kinds_folder_is_of_that_kind(tmp_path: Path) -> None:
    """date-fns' `scripts/test/tz.sh` (CI) and `scripts/build/package.sh` (its guide)."""
    guide = "# Contributing\n\nTo test the build, run:\n\n```sh\n./scripts/build/package.sh\n```\n"
    sheet = checked_out(
        tmp_path,
        {
            "package.json": '{"name": "demo", "scripts": {"test": "vitest run"}}',
            "CONTRIBUTING.md": guide,
            ".github/workflows/node_tests.yaml": DATE_FNS_CI,
            "scripts/test/tz.sh": "#!/bin/bash\nenv TZ=Asia/Kolkata pnpm tsx ./test/india.ts\n",
            "scripts/build/package.sh": "#!/bin/bash\nrm -rf lib\ntsc --build\n",
        },
    )
    assert "./scripts/test/tz.sh" in sheet.commands["test"]
    assert "./scripts/build/package.sh" in sheet.commands["build"]


BYTES_CI = """\
name: CI
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: ci/test-stable.sh test
      - run: ci/panic-abort.sh
"""
TEST_STABLE = """\
#!/bin/bash

set -ex

cmd="${1:-test}"

# Run with each feature
cargo hack "${cmd}" --each-feature --optional-deps
# Run with all features
cargo "${cmd}" --all-features

if [[ "${RUST_VERSION}" == "nightly"* ]]; then
    # Check benchmarks
    cargo check --benches
fi
"""
PANIC_ABORT = """\
#!/bin/bash

set -ex
RUSTFLAGS="$RUSTFLAGS -Cpanic=abort -Zpanic-abort-tests" cargo test --all-features --test '*'
"""


def test_the_lines_of_a_script_ci_runs_with_an_argument(tmp_path: Path) -> None:
    """bytes' CI runs `ci/test-stable.sh test`: `cargo "${cmd}" --all-features` with
    `cmd="${1:-test}"` is `cargo test --all-features`, and the script's check of the
    benchmarks is offered as its own line."""
    sheet = checked_out(
        tmp_path,
        {
            "Cargo.toml": '[package]\nname = "demo"\n',
            ".github/workflows/ci.yml": BYTES_CI,
            "ci/test-stable.sh": TEST_STABLE,
            "ci/panic-abort.sh": PANIC_ABORT,
        },
    )
    assert "ci/test-stable.sh test" in sheet.commands["test"]
    assert "cargo test --all-features" in sheet.commands["test"]
    assert "cargo hack test --each-feature --optional-deps" in sheet.commands["test"]
    assert "cargo check --benches" in sheet.commands["typecheck"]
    # a line whose environment passes CI's variables on still says what the script runs
    assert "ci/panic-abort.sh" in sheet.commands["test"]


def test_a_coverage_report_sent_to_a_hosted_service_is_not_offered(tmp_path: Path) -> None:
    scripts = {
        "test": "mocha",
        "coverage": "c8 report --reporter=text-lcov | coveralls",
        "coverage:html": "c8 report --reporter=html",
    }

    manifest = json.dumps({"name": "demo", "scripts": scripts})
    sheet = project(tmp_path, {"package.json": manifest, "package-lock.json": "{}"})
    assert "npm run coverage" not in sheet.offered()
    assert "npm run coverage:html" in sheet.commands["test"]


def test_the_names_of_security_scans_and_author_lists_are_not_everyday(tmp_path: Path) -> None:
    makefile = (
        "test:\n\tgo test ./...\n\nvulncheck:\n\t$(GOVULNCHECK) ./...\n\n"
        "verify:\n\t./hack/verify.sh\n\ncheck-authors:\n\tgo run ./internal/authors -check\n"
    )
    sheet = project(tmp_path, {"go.mod": "module example.com/demo\n", "Makefile": makefile})
    assert "make vulncheck" not in sheet.offered()
    assert "make check-authors" not in sheet.offered()  # jquery's `authors:check`
    assert "make verify" in sheet.commands["lint"]


def test_yarns_own_commands_are_not_pnpms(tmp_path: Path) -> None:
    """Yarn has no `setup` of its own: webpack's script is typed `yarn setup`."""

    manifest = json.dumps({"name": "demo", "scripts": {"setup": "node setup.js", "test": "jest"}})
    sheet = project(tmp_path, {"package.json": manifest, "yarn.lock": ""})
    assert "yarn setup" in sheet.commands["setup"]
    other = project(tmp_path / "p", {"package.json": manifest, "pnpm-lock.yaml": ""})
    assert "pnpm run setup" in other.commands["setup"]


def test_a_line_with_parts_left_out_is_no_command(tmp_path: Path) -> None:
    guide = (
        "# Agents\n\nFilter with `yarn test:base \u2026 | grep \u2026`, or run `yarn test:unit`.\n"
    )

    manifest = json.dumps({"name": "demo", "scripts": {"test:unit": "jest"}})
    sheet = project(tmp_path, {"package.json": manifest, "yarn.lock": "", "AGENTS.md": guide})
    assert not any("\u2026" in c for c in sheet.offered())


TRAVIS = """\
language: go
install:
  - go get golang.org/x/lint/golint
  - export PATH=$GOPATH/bin:$PATH
  - go install ./...
script:
  - go test ./...
"""


def test_travis_install_lines_are_read(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"go.mod": "module example.com/demo\n", ".travis.yml": TRAVIS})
    assert "go get golang.org/x/lint/golint" in sheet.commands["setup"]
    assert "go install ./..." in sheet.commands["build"]


def test_a_guides_toolchain_install_and_tinygo() -> None:
    assert is_command("rustup toolchain install nightly") == "setup"
    assert classify_command("tinygo test -tags safe -v ./...") == "test"


def test_a_guide_shows_more_commands_of_a_kind_but_few_forms_of_one(tmp_path: Path) -> None:
    """jquery's guide shows six forms of `npm run build -- ...`: two say how; aiohttp's
    AGENTS.md shows more than five ways of testing, each its own."""
    forms = "\n".join(
        f"npm run build -- {option}"
        for option in ("--amd", "--slim", "--esm", "-e ajax", "-e deprecated", "--help")
    )
    tests = "\n".join(
        f"pytest tests/test_{name}.py" for name in ("a", "b", "c", "d", "e", "f", "g")
    )
    guide = f"# Contributing\n\n```bash\n{forms}\n```\n\n```bash\n{tests}\n```\n"

    manifest = json.dumps({"name": "demo", "scripts": {"build": "node build.js"}})
    sheet = project(
        tmp_path,
        {
            "package.json": manifest,
            "package-lock.json": "{}",
            "CONTRIBUTING.md": guide,
            "tests/test_a.py": "",
        },
    )
    build_forms = [c for c in sheet.commands["build"] if c.startswith("npm run build -- ")]
    assert len(build_forms) == 2, sheet.commands["build"]
    assert "pytest tests/test_f.py" in sheet.commands["test"]


def test_a_build_checking_what_it_built_has_no_parts(tmp_path: Path) -> None:
    """scrapy's `twinecheck` environment builds and checks the distribution: one task,
    its `python -m build --sdist` a release's step alone."""
    tox = (
        "[tox]\nenvlist = py\n\n[testenv]\ncommands = pytest {posargs}\n\n"
        "[testenv:twinecheck]\ndeps =\n    twine\n    build\ncommands =\n"
        "    python -m build --sdist\n    twine check dist/*\n"
    )
    sheet = project(tmp_path, {"pyproject.toml": PYPROJECT, "tox.ini": tox})
    assert "python -m build --sdist" not in sheet.offered()


BUILD = """\
#!/bin/sh -e

set -x

python -m build
twine check dist/*
mkdocs build
"""
LINT = """\
#!/bin/sh -e

set -x

ruff check --fix demo tests
ruff format demo tests
python scripts/unasync.py
"""


def test_an_aggregate_of_builders_or_of_the_projects_checkers_shows_each(tmp_path: Path) -> None:
    """httpcore's `scripts/build` builds the package and the docs; its `scripts/check`
    and `scripts/lint` run its own `scripts/unasync.py` among the checkers."""
    check = CHECK + "${PREFIX}python scripts/unasync.py --check\n"
    sheet = checked_out(
        tmp_path,
        {
            "pyproject.toml": PYPROJECT,
            "scripts/build": BUILD,
            "scripts/check": check,
            "scripts/lint": LINT,
            "scripts/unasync.py": "import sys\n",
        },
    )
    assert "python -m build" in sheet.commands["build"]
    assert "mkdocs build" in sheet.commands["build"]
    assert "python scripts/unasync.py --check" in sheet.commands["lint"]
    assert "python scripts/unasync.py" in sheet.commands["format"]


CI_CD = """\
name: CI/CD
on: [push, pull_request]
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: slotscheck -v -m demo
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pytest -m dev_mode --cov
      - name: Re-run the failing tests with maximum verbosity
        if: failure()
        run: pytest --no-cov -vvvvv --lf
  deploy:
    runs-on: ubuntu-latest
    steps:
      - run: python -m twine upload dist/*
"""


def test_a_ci_and_cd_workflows_checking_jobs_are_read(tmp_path: Path) -> None:
    """aiohttp's `ci-cd.yml` tests, lints and publishes: its jobs say which is which."""
    sheet = project(tmp_path, {"pyproject.toml": PYPROJECT, ".github/workflows/ci-cd.yml": CI_CD})
    assert "pytest -m dev_mode --cov" in sheet.commands["test"]
    assert "slotscheck -v -m demo" in sheet.commands["lint"]
    # CI's second look at what failed is its log's, not a contributor's command
    assert not any("--lf" in c for c in sheet.offered())
    assert "upload" not in sheet.to_markdown()
