"""Kinds of command the fact sheet missed on a thirteenth set of real projects: a guide
kept in a page of the docs' part for contributors whose name says nothing
(`docs/contributing/pull-requests.md`), a usual command the guide says does not work on
the project, a fenced command continued over two lines, an optional option in brackets,
the project's files handed to a formatter with `$(git ls-files ...)`, and cargo's
spell check, Miri and fuzz runs.

The fixtures are short excerpts written in the shape of a public Rust workspace's
files (tokio), cut down to the lines that matter."""

from __future__ import annotations

from pathlib import Path

from fact_support import project

from serena_memory.agent.project_facts.docs import is_command

WORKSPACE = '[workspace]\nmembers = ["demo"]\n'
CONTRIBUTING = "# Contributing\n\nSee the pages in `docs/contributing/`.\n"
PULL_REQUESTS = """\
# Pull requests

### Cargo commands

Some commands just need the `--all-features` argument:

```
cargo check --all-features
cargo test --all-features
```

When building documentation, a simple `cargo doc` is not sufficient. Use:

```
cargo install --locked cargo-docs-rs
cargo +nightly docs-rs [--open]
```

The `cargo fmt` command does not work on this codebase. You can use the
command below instead:

```
rustfmt --check --edition 2021 $(git ls-files '*.rs')
```

You can run miri tests with
```
MIRIFLAGS="-Zmiri-disable-isolation" \\
    cargo +nightly miri test --features full --lib --tests
```

Spell check with `cargo spellcheck check`, fuzz with `cargo fuzz run fuzz_list`
(see them all with `cargo fuzz list`).
"""
RELEASING = "# Releasing\n\n```\ncargo publish -p demo\n```\n"


def _sheet(tmp_path: Path, **pages: str):
    files = {
        "Cargo.toml": WORKSPACE,
        "demo/Cargo.toml": '[package]\nname = "demo"\n',
        "demo/src/lib.rs": "pub fn f() {}\n",
        "CONTRIBUTING.md": CONTRIBUTING,
        "docs/contributing/pull-requests.md": PULL_REQUESTS,
        "docs/contributing/releasing.md": RELEASING,
        **pages,
    }
    return project(tmp_path, files)


def test_a_page_of_the_contributors_docs_is_read_whatever_its_name(tmp_path: Path) -> None:
    sheet = _sheet(tmp_path)
    assert "cargo test --all-features" in sheet.commands["test"]
    assert "cargo check --all-features" in sheet.commands["typecheck"]
    assert "cargo spellcheck check" in sheet.commands["lint"]
    assert "cargo install --locked cargo-docs-rs" in sheet.commands["setup"]
    # a page about releasing is not work on the code
    assert "cargo publish" not in sheet.to_markdown()


def test_what_the_guide_says_does_not_work_is_not_offered(tmp_path: Path) -> None:
    sheet = _sheet(tmp_path)
    offered = sheet.offered()
    assert not any(c.startswith("cargo fmt") for c in offered), offered
    assert "rustfmt --check --edition 2021 $(git ls-files '*.rs')" in sheet.commands["format"]
    # "a simple `cargo doc` is not sufficient": the plain form only
    assert "cargo doc" not in offered


def test_without_the_guide_the_usual_commands_stay(tmp_path: Path) -> None:
    sheet = project(
        tmp_path, {"Cargo.toml": WORKSPACE, "demo/Cargo.toml": '[package]\nname = "demo"\n'}
    )
    assert "cargo fmt" in " ".join(sheet.commands["format"])


def test_a_readers_trouble_is_no_rule_of_the_project(tmp_path: Path) -> None:
    guide = (
        "# Contributing\n\n([Read this](#make) if the command `make test` doesn't work for"
        " you.)\n\n```\nmake test\n```\n"
    )
    sheet = project(tmp_path, {"CONTRIBUTING.md": guide, "Makefile": "test:\n\tpytest\n"})
    assert "make test" in sheet.commands["test"]


def test_a_continued_command_and_an_optional_option_are_read_whole(tmp_path: Path) -> None:
    sheet = _sheet(tmp_path)
    assert (
        'MIRIFLAGS="-Zmiri-disable-isolation" cargo +nightly miri test --features full'
        " --lib --tests" in sheet.commands["test"]
    )
    assert "cargo +nightly docs-rs" in sheet.commands["build"]
    assert "[--open]" not in sheet.to_markdown()


def test_cargos_checks_by_their_subcommand() -> None:
    assert is_command("cargo spellcheck check") == "lint"
    assert is_command("cargo fuzz run fuzz_list") == "test"
    assert is_command("cargo fuzz list") is None
    assert is_command("cargo +nightly miri test --lib") == "test"
    assert is_command("cargo miri setup") is None  # CI's machine readied for Miri
    # the project's own files are no variable of CI's; anything else stays one
    assert is_command("rustfmt --edition 2021 $(git ls-files '*.rs')") == "format"
    assert is_command("rustfmt --edition 2021 $(find . -name '*.rs')") is None


CI_WORKFLOW = """\
name: CI
on: [push]
jobs:
  miri:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: ci/miri.sh
  tsan:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: bash ci/tsan.sh
      - run: ci/notes.sh
"""


def test_a_ci_script_whose_name_says_nothing_is_read_by_what_it_runs(tmp_path: Path) -> None:
    """bytes' CI runs `ci/miri.sh` and `ci/tsan.sh`: names of no kind, scripts that test."""
    sheet = project(
        tmp_path,
        {
            "Cargo.toml": '[package]\nname = "demo"\n',
            ".github/workflows/ci.yml": CI_WORKFLOW,
            "ci/miri.sh": "#!/bin/bash\nset -e\nrustup component add miri\ncargo miri setup\n"
            "cargo miri test\n",
            "ci/tsan.sh": '#!/bin/bash\nRUSTFLAGS="-Z sanitizer=thread" cargo test --lib\n',
            "ci/notes.sh": "#!/bin/bash\necho done\n",
        },
    )
    assert "ci/miri.sh" in sheet.commands["test"]
    assert "bash ci/tsan.sh" in sheet.commands["test"]
    assert "ci/notes.sh" not in sheet.to_markdown()


def test_a_program_a_sentence_only_names_is_no_command(tmp_path: Path) -> None:
    """uvicorn's guide: "Any additional arguments will be passed to `pytest`": the sheet
    offered a bare `pytest` no contributor types there."""
    guide = (
        "# Contributing\n\nRun the tests with:\n\n```shell\n$ scripts/test\n```\n\n"
        "Any additional arguments will be passed to `pytest`.\n"
    )
    sheet = project(
        tmp_path,
        {
            "docs/contributing.md": guide,
            "scripts/test": '#!/bin/sh -e\nuv run pytest "$@"\n',
            "pyproject.toml": '[project]\nname = "demo"\n',
        },
        checkout=True,
    )
    assert "scripts/test" in sheet.commands["test"]
    assert "pytest" not in sheet.commands["test"]


def test_a_script_that_hands_its_arguments_on_is_read_with_them(tmp_path: Path) -> None:
    """uvicorn's `scripts/docs serve` runs `uv run zensical serve`: a docs server, not a
    build, though the script is named for the docs."""
    guide = "# Contributing\n\nPreview the docs:\n\n```shell\n$ scripts/docs serve\n```\n"
    sheet = project(
        tmp_path,
        {
            "docs/contributing.md": guide,
            "scripts/docs": '#!/bin/sh -e\n\nset -x\n\nuv run mkdocs "$@"\n',
            "pyproject.toml": '[project]\nname = "demo"\n',
        },
        checkout=True,
    )
    assert "scripts/docs serve" in sheet.commands["run"]
    assert "scripts/docs serve" not in sheet.commands["build"]
