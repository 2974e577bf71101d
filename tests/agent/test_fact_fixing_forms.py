"""A project with no formatter formats with its linter: the sheet offers the linter's
fixing form, and tools the project configures (cargo-deny, a yamlfmt hook) are offered
as the commands they are. Cut from set26 and set27 of benchmarks/data/facts-labels."""

from __future__ import annotations

from pathlib import Path

from fact_support import project


def test_a_lint_script_that_is_eslint_alone_is_given_fix_through_npm(tmp_path: Path) -> None:
    # expressjs/body-parser package.json (cut)
    package = '{"scripts": {"lint": "eslint .", "test": "mocha test/"}}'
    sheet = project(tmp_path, {"package.json": package})
    assert sheet.commands["format"] == ["npm run lint -- --fix"]


def test_a_linter_run_directly_gets_its_own_fixing_option(tmp_path: Path) -> None:
    # sindresorhus/ora: `xo && ava && tsd`; rails/thor: rubocop in the Gemfile and CI
    ora = '{"scripts": {"test": "xo && node --test test.js && tsd"}}'
    sheet = project(tmp_path / "ora", {"package.json": ora})
    assert "npx xo --fix" in sheet.commands["format"] or "xo --fix" in sheet.commands["format"]
    thor_ci = "jobs:\n  lint:\n    steps:\n      - run: bundle exec rubocop\n"
    sheet = project(
        tmp_path / "thor",
        {"Gemfile": "gem 'rubocop'\n", ".rubocop.yml": "", ".github/workflows/lint.yml": thor_ci},
    )
    assert sheet.commands["format"] == ["bundle exec rubocop -a"]


def test_no_fixing_form_where_a_formatter_or_a_fixing_script_is_there(tmp_path: Path) -> None:
    # expressjs/express: `lint:fix` is the fixing form already
    express = '{"scripts": {"lint": "eslint .", "lint:fix": "eslint . --fix"}}'
    sheet = project(tmp_path / "express", {"package.json": express})
    assert not any(c.endswith("-- --fix") for c in sheet.commands.get("format", []))
    # a prettier format script: the linter is not the formatter
    pretty = '{"scripts": {"lint": "eslint .", "format": "prettier --write ."}}'
    sheet = project(tmp_path / "pretty", {"package.json": pretty})
    assert all("--fix" not in c for c in sheet.commands["format"])
    # a lint script that chains two tools cannot be given one tool's option
    chained = '{"scripts": {"lint": "eslint . && tsc --noEmit"}}'
    sheet = project(tmp_path / "chained", {"package.json": chained})
    assert "npm run lint -- --fix" not in sheet.commands.get("format", [])


def test_cargo_deny_and_a_yamlfmt_hook_are_offered(tmp_path: Path) -> None:
    # console-rs/indicatif (deny.toml), pydantic/pydantic-extra-types (.pre-commit-config)
    manifest = '[package]\nname = "indicatif"\nversion = "0.18.0"\n'
    sheet = project(tmp_path / "rust", {"Cargo.toml": manifest, "deny.toml": "", "src/lib.rs": ""})
    assert "cargo deny check" in sheet.commands["lint"]
    hooks = (
        "repos:\n  - repo: https://github.com/google/yamlfmt\n    rev: v0.17.0\n"
        "    hooks:\n      - id: yamlfmt\n"
    )
    sheet = project(tmp_path / "py", {".pre-commit-config.yaml": hooks, "pyproject.toml": ""})
    assert "yamlfmt" in sheet.commands["format"]
