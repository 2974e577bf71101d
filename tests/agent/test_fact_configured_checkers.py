"""What set27 to set29 of benchmarks/data/facts-labels showed the sheet missing or
inventing: checkers the project configures (typos, rumdl, a zizmor hook), one test run
with the set-up its runner needs (through the test script, or with the script's
``--require``), Mix's one test, and two readings of prose that are no commands (a file
named in a sentence, ``make format/lint/typecheck``)."""

from __future__ import annotations

from pathlib import Path

from fact_support import project


def test_checkers_with_their_own_configuration_or_hook_are_offered(tmp_path: Path) -> None:
    # rust-lang/rustlings (.typos.toml, .rumdl.toml), pydantic/logfire (a zizmor hook)
    manifest = '[package]\nname = "rustlings"\nversion = "6.0.0"\n'
    files = {"Cargo.toml": manifest, "src/main.rs": "", ".typos.toml": "", ".rumdl.toml": ""}
    sheet = project(tmp_path / "rust", files)
    assert {"typos", "rumdl check"} <= set(sheet.commands["lint"])
    hooks = (
        "repos:\n  - repo: https://github.com/zizmorcore/zizmor-pre-commit\n"
        "    rev: v1.5.0\n    hooks:\n      - id: zizmor\n"
    )
    sheet = project(tmp_path / "py", {".pre-commit-config.yaml": hooks, "pyproject.toml": ""})
    assert "zizmor ." in sheet.commands["lint"]


def test_one_jest_file_goes_through_the_script_that_names_its_configuration(
    tmp_path: Path,
) -> None:
    # react-hook-form: `jest --config ./scripts/jest/jest.config.js`; jest alone would miss it
    package = (
        '{"scripts": {"test": "jest --config ./scripts/jest/jest.config.js"},'
        ' "devDependencies": {"jest": "^29"}}'
    )
    sheet = project(
        tmp_path,
        {
            "package.json": package,
            "pnpm-lock.yaml": "",
            "scripts/jest/jest.config.js": "",
            "src/__tests__/useForm.test.tsx": "",
        },
    )
    assert "pnpm test src/__tests__/useForm.test.tsx" in sheet.commands["test"]


def test_prose_that_names_a_file_or_several_targets_is_no_command(tmp_path: Path) -> None:
    # pydantic/logfire CLAUDE.md (cut)
    claude = (
        "# Development\n\nYou can also run `make format/lint/typecheck` to run them "
        "explicitly.\nKeep the shim up to date, especially if `test_logfire_api.py` "
        "starts failing.\n"
    )
    makefile = "format:\n\truff format\nlint:\n\truff check\ntypecheck:\n\tpyright\n"
    sheet = project(
        tmp_path,
        {"CLAUDE.md": claude, "Makefile": makefile, "tests/test_logfire_api.py": ""},
    )
    offered = sheet.offered()
    assert "make format/lint/typecheck" not in offered
    assert "test_logfire_api.py" not in offered
    assert {"make format", "make lint", "make typecheck"} <= offered


def test_one_test_keeps_the_set_up_the_script_loads_and_mix_runs_one_file(
    tmp_path: Path,
) -> None:
    # expressjs/cors: `nyc ... mocha --require test/support/env` sets NODE_ENV for the tests
    package = (
        '{"scripts": {"test": "npm run lint && npm run test-ci", "test-ci": "nyc '
        '--reporter=text mocha --require test/support/env", "lint": "eslint lib test"},'
        ' "devDependencies": {"mocha": "^10", "nyc": "^15"}}'
    )
    sheet = project(
        tmp_path / "cors",
        {"package.json": package, "test/support/env.js": "", "test/cors.js": ""},
    )
    assert "npx mocha --require test/support/env test/cors.js" in sheet.commands["test"]
    # elixir-plug/plug
    sheet = project(tmp_path / "plug", {"mix.exs": "", "test/plug_test.exs": ""})
    assert "mix test test/plug_test.exs" in sheet.commands["test"]
