"""What contributors run that the project's files imply without spelling it out: rustfmt's
writing form and ``cargo check``, the coverage report of the tests, the quick tox run of
the newest Python, tox's spelling as the docs type it; and what is never offered: building
the distributions, CI printing a tool's version."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.fact_support import project


def offered(sheet) -> set[str]:  # type: ignore[no-untyped-def]
    return sheet.offered()


def test_a_rust_project_formats_with_cargo_fmt_and_checks_with_cargo_check(
    tmp_path: Path,
) -> None:
    # tokio-rs/axum's CI (cut): only a check of the formatting, with a manifest path
    ci = (
        "on: push\njobs:\n  fmt:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: cargo fmt --all --check --manifest-path ./Cargo.toml\n"
    )
    sheet = project(
        tmp_path,
        {"Cargo.toml": "[package]\nname = 'x'\n", ".github/workflows/ci.yml": ci},
    )
    assert "cargo fmt" in sheet.commands["format"]
    assert "cargo fmt --all --manifest-path ./Cargo.toml" not in offered(sheet)
    assert sheet.commands["typecheck"] == ["cargo check"]


def test_cargo_check_stays_off_where_the_project_type_checks_its_own_way(
    tmp_path: Path,
) -> None:
    makefile = "check:\n\tcargo check --workspace --all-features\n"
    sheet = project(tmp_path, {"Cargo.toml": "[package]\n", "Makefile": makefile})
    assert sheet.commands["typecheck"] == ["make check"]


# hynek/structlog tox.ini (cut)
STRUCTLOG_TOX = """\
[tox]
env_list =
    3.1{3,4}-tests,
    coverage-{combine,report}

[testenv]
commands = pytest {posargs}

[testenv:coverage-combine]
commands = coverage combine

[testenv:coverage-report]
depends = coverage-combine
commands = coverage report
"""


def test_a_task_named_for_the_coverage_that_only_reports_it_is_a_test(
    tmp_path: Path,
) -> None:
    sheet = project(tmp_path, {"tox.ini": STRUCTLOG_TOX, ".python-version-default": "3.14\n"})
    assert "tox -e coverage-report" in sheet.commands["test"]
    # but a report written for CI is CI's
    package = '{"scripts": {"test": "mocha", "test-coverage-generate": "nyc report"}}'
    node = project(tmp_path / "node", {"package.json": package})
    assert "npm run test-coverage-generate" not in offered(node)


# marshmallow-code/marshmallow tox.ini (cut)
MARSHMALLOW_TOX = """\
[tox]
envlist = lint,py{39,310,311,312,313},docs

[testenv]
extras = tests
commands = pytest {posargs}

[testenv:lint]
commands = pre-commit run --all-files
"""


def test_with_no_default_python_the_newest_versions_tests_are_the_quick_run(
    tmp_path: Path,
) -> None:
    sheet = project(tmp_path, {"tox.ini": MARSHMALLOW_TOX})
    assert "tox -e py313" in sheet.commands["test"]
    assert "tox -e py39" not in offered(sheet)
    # the docs' own version run is the quick one then
    guide = "# Contributing\n\nRun `tox -e py310` for a quick run.\n"
    docs = project(tmp_path / "docs", {"tox.ini": MARSHMALLOW_TOX, "CONTRIBUTING.md": guide})
    assert "tox -e py313" not in offered(docs)


def test_an_environment_named_for_nothing_runs_the_base_commands(tmp_path: Path) -> None:
    # pytest-dev/pytest-mock: `pytest6` pins a dependency and runs the tests
    tox = "[tox]\nenvlist = py{310,311}, pytest6\n\n[testenv]\ndeps =\n    pytest6: pytest==6\n"
    tox += "commands =\n    coverage run -m pytest tests\n"
    sheet = project(tmp_path, {"tox.ini": tox})
    assert "tox -e pytest6" in sheet.commands["test"]


def test_tox_is_spelt_as_the_docs_and_ci_type_it_most(tmp_path: Path) -> None:
    # pypa/build: the guide types `tox -e` in its examples, CI types `tox r -e`
    guide = "# Contributing\n\n```\ntox -e 3.14\ntox -e docs\n```\n"
    tox = "[tox]\nenv_list = type, docs\n\n[testenv:type]\ncommands = mypy src\n"
    ci = "on: push\njobs:\n  d:\n    steps:\n      - run: uv tool run tox r -e docs\n"
    tree = {"tox.ini": tox, "CONTRIBUTING.md": guide, ".github/workflows/ci.yml": ci}
    sheet = project(tmp_path, tree)
    assert "tox -e type" in sheet.commands["typecheck"]
    assert "tox run -e type" not in offered(sheet)


def test_building_the_distributions_and_printing_versions_are_not_offered(
    tmp_path: Path,
) -> None:
    tox = "[tox]\nenvlist = py313, build-dists\n\n[testenv]\ncommands = pytest\n\n"
    tox += "[testenv:build-dists]\ncommands = python -m build\n"
    ci = (
        "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: pnpm tsc --version\n      - run: pnpm tsc --noEmit\n"
    )
    sheet = project(tmp_path, {"tox.ini": tox, ".github/workflows/ci.yml": ci})
    assert not any("build-dists" in command for command in offered(sheet))
    assert "pnpm tsc --version" not in offered(sheet)
    assert "pnpm tsc --noEmit" in sheet.commands["typecheck"]


def test_the_pre_commit_git_hook_is_what_a_contributor_runs_to_check(tmp_path: Path) -> None:
    # vuejs/core and immerjs/immer package.json (cut)
    vue = '{"scripts": {"check": "tsc --incremental --noEmit"},'
    vue += ' "simple-git-hooks": {"pre-commit": "pnpm lint-staged && pnpm check",'
    vue += ' "commit-msg": "node scripts/verify-commit.js"}}'
    sheet = project(tmp_path / "vue", {"package.json": vue, "pnpm-lock.yaml": ""})
    assert "pnpm lint-staged" in sheet.commands["lint"]
    assert "node scripts/verify-commit.js" not in offered(sheet)
    immer = '{"husky": {"hooks": {"pre-commit": "pretty-quick --staged"}}}'
    sheet = project(tmp_path / "immer", {"package.json": immer, "yarn.lock": ""})
    assert sheet.commands["format"] == ["pretty-quick --staged"]
    husky = '#!/usr/bin/env sh\n. "$(dirname -- "$0")/_/husky.sh"\n\nnpx lint-staged\n'
    sheet = project(tmp_path / "husky", {"package.json": "{}", ".husky/pre-commit": husky})
    assert sheet.commands["lint"] == ["npx lint-staged"]


# pypa/build tox.toml (cut)
BUILD_TOX_TOML = """\
env_list = [
    "type",
    "path",
    { product = [{ prefix = "3.", start = 10, stop = 15 }]},
    { product = [{ prefix = "min-3.", start = 10, stop = 15 }]},
]

[env_run_base]
commands = [
    [
        "pytest", "-ra", "--cov", "--cov-config", "pyproject.toml",
        "--cov-report=html:{envdir}/htmlcov", "--cov-context=test",
        "--cov-report=xml:{toxworkdir}/coverage.{envname}.xml",
        "--cov-report", "term-missing",
        { replace = "posargs", default = ["-n", "auto"], extend = true },
    ],
]

[env.path]
description = "run tests against an installed copy"
package = "wheel"

[env.type]
commands = [["mypy", { replace = "posargs", extend = true }]]
"""


def test_tox_toml_generated_names_and_the_base_commands(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"tox.toml": BUILD_TOX_TOML})
    # `path` and the `min-3.*` environments run the base's tests; the newest version's
    assert {"tox -e path", "tox -e 3.14", "tox -e min-3.14"} <= set(sheet.commands["test"])
    assert "tox -e min-3.10" not in offered(sheet)
    assert sheet.commands["typecheck"] == ["tox -e type"]
