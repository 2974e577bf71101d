"""Kinds of command the fact sheet missed on a twelfth set of real projects: cargo-xtask's
commands, a nox session whose name the shell would misread, a build that checks the
distributions it made, tox's listing of its environments, and a guide's install of the
project's task runner.

The fixtures are short excerpts written in the shape of public repositories' files
(ratatui, mdBook, jsonschema, loguru, platformdirs), cut down to the lines that matter."""

from __future__ import annotations

from pathlib import Path

from fact_support import project

from serena_memory.agent.project_facts.xtask import kebab, matched_names, subcommands

CARGO_CONFIG = '[alias]\nxtask = "run --package xtask --"\n'
WORKSPACE = '[workspace]\nmembers = ["demo", "xtask"]\n'
COMMANDS_RS = """\
use clap::Subcommand;

#[derive(Clone, Debug, Subcommand)]
pub enum Command {
    /// Run CI checks (lint, build, test)
    CI,

    /// Lint formatting, typos, clippy, and docs
    #[command(visible_alias = "l")]
    Lint,

    #[command(visible_alias = "c")]
    Check(Check),

    /// Run tests
    #[command(visible_alias = "t")]
    Test,

    /// Check documentation for errors and warnings
    #[command(name = "docs", visible_alias = "d")]
    Docs(Docs),

    /// Check for unused dependencies with cargo-udeps
    Udeps,

    /// Test backend
    TestBackend {
        backend: String,
    },

    /// Publish the crates
    #[command(hide = true)]
    Ship,
}

#[derive(Clone, Debug, clap::ValueEnum)]
pub enum Backend {
    Crossterm,
}
"""
MAIN_RS = """\
fn main() -> Result<()> {
    let cmds: BTreeMap<&'static str, fn() -> Result<()>> = commands! {
        "test-all" => test_all,
        "clippy" => clippy,
        "changelog" => changelog::changelog,
    };
    Ok(())
}
"""


def test_clap_variants_are_named_as_clap_names_them() -> None:
    assert kebab("TestBackend") == "test-backend"
    assert kebab("CI") == "ci"
    assert kebab("LintMarkdown") == "lint-markdown"
    tasks = subcommands(COMMANDS_RS)
    assert list(tasks) == ["ci", "lint", "check", "test", "docs", "udeps", "test-backend"]


def test_xtask_commands_are_offered_by_their_name_else_their_doc_comment(
    tmp_path: Path,
) -> None:
    sheet = project(
        tmp_path,
        {
            "Cargo.toml": WORKSPACE,
            ".cargo/config.toml": CARGO_CONFIG,
            "xtask/Cargo.toml": '[package]\nname = "xtask"\n',
            "xtask/src/main.rs": "mod commands;\nfn main() {}\n",
            "xtask/src/commands.rs": COMMANDS_RS,
        },
    )
    assert "cargo xtask test" in sheet.commands["test"]
    assert "cargo xtask ci" in sheet.commands["test"]  # its comment names the tests
    assert "cargo xtask test-backend" in sheet.commands["test"]
    assert "cargo xtask lint" in sheet.commands["lint"]
    assert "cargo xtask udeps" in sheet.commands["lint"]  # "Check for unused ..."
    assert "cargo xtask check" in sheet.commands["typecheck"]  # cargo's check
    assert "cargo xtask docs" in sheet.commands["build"]
    assert "cargo xtask ship" not in sheet.to_markdown()


def test_a_hand_written_xtask_is_read_by_the_names_it_matches(tmp_path: Path) -> None:
    assert list(matched_names(MAIN_RS)) == ["test-all", "clippy", "changelog"]
    sheet = project(
        tmp_path,
        {
            "Cargo.toml": WORKSPACE,
            ".cargo/config.toml": 'xtask = "no alias table"\n[alias]\n'
            'xtask = "run --manifest-path=crates/xtask/Cargo.toml --"\n',
            "crates/xtask/Cargo.toml": '[package]\nname = "xtask"\n',
            "crates/xtask/src/main.rs": MAIN_RS,
        },
    )
    assert "cargo xtask test-all" in sheet.commands["test"]
    assert "cargo xtask clippy" in sheet.commands["lint"]
    assert "cargo xtask changelog" not in sheet.to_markdown()


def test_no_xtask_commands_without_the_alias(tmp_path: Path) -> None:
    sheet = project(
        tmp_path,
        {
            "Cargo.toml": WORKSPACE,
            "xtask/Cargo.toml": '[package]\nname = "xtask"\n',
            "xtask/src/commands.rs": COMMANDS_RS,
        },
    )
    assert not any("xtask" in command for command in sheet.offered())


NOXFILE = """\
import nox


@nox.session(tags=["build"])
def build(session):
    session.install("build", "twine")
    session.run("pyproject-build", "--installer=uv", ROOT, "--outdir", tmpdir)
    session.run("twine", "check", "--strict", tmpdir + "/*")


@nox.session
def dist_check(session):
    session.run("twine", "check", "dist/*")


@nox.session(tags=["docs", "style"], name="docs(style)")
def docs_style(session):
    session.run("python", "-m", "doc8", "--config", PYPROJECT, DOCS)
"""


def test_a_nox_session_the_shell_would_misread_is_quoted(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"noxfile.py": NOXFILE})
    assert 'nox -s "docs(style)"' in sheet.commands["lint"]
    assert "nox -s docs(style)" not in sheet.offered()


def test_a_build_checking_the_distributions_it_made_builds(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"noxfile.py": NOXFILE})
    assert "nox -s build" in sheet.commands["build"]
    assert "nox -s dist_check" not in sheet.offered()  # the check alone: before a release
    tox = "[tox]\nenv_list = py\n[testenv:build]\ncommands =\n    pyproject-build .\n"
    tox += "    twine check --strict dist/*\n"
    assert "tox -e build" in project(tmp_path / "tox", {"tox.ini": tox}).commands["build"]


CONTRIBUTING = """\
# Contributing

To install tox, run:

```bash
pip install tox
```

To see all available tox environments, run:

```bash
tox list
```

Run the tests with `tox r -e 3.14`. To use the library, `pip install demo`.
"""


def test_a_guides_install_of_the_task_runner_sets_up_and_its_listing_is_left(
    tmp_path: Path,
) -> None:
    tox = "[tox]\nenv_list = 3.14\n[testenv]\ncommands = pytest\n"
    sheet = project(tmp_path, {"CONTRIBUTING.md": CONTRIBUTING, "tox.ini": tox})
    assert "pip install tox" in sheet.commands["setup"]
    assert "tox r -e 3.14" in sheet.commands["test"]
    shown = sheet.to_markdown()
    assert "`tox list`" not in shown and "pip install demo" not in shown
