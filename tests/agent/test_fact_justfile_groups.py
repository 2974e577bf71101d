"""A justfile's recipes read by their group when neither body nor name says a kind, the
project's own release installed by a recipe, and a README's contributing section read
whole, on a real tree drawn from a Rust workspace driven by its justfile."""

from __future__ import annotations

from pathlib import Path

from fact_support import project

from serena_memory.agent.project_facts.sheet import FactSheet

JUSTFILE = """\
alias t := test

[group: 'test']
test:
  cargo test --all

[group: 'check']
forbid:
  ./bin/forbid

[group('check')]
action-versions:
  cargo lrun --package action-versions

[group: 'check']
unused:
  cargo +nightly udeps --workspace

[group: 'doc']
man:
  mkdir -p man
  cargo lrun -- --man > man/just.1

[group: 'doc']
view-man: man
  man man/just.1

[group: 'release']
update-contributors:
  changeling update-contributors

# install just from crates.io
[group: 'misc']
install:
  cargo install -f just

[group: 'dev']
install-dev-deps:
  rustup install nightly
  cargo install cargo-watch
"""

README = """\
just
====

`just` is a handy way to save and run project-specific commands.

Installation
------------

Install it with `cargo install just`.

Contributing
------------

### Getting Started

`just` is written in Rust.

### Contribution Workflow

1. Clone `just` and start hacking. You can run such a job by installing
   [cargo-watch](https://github.com/watchexec/cargo-watch) with `cargo install
   cargo-watch` and running `just test`.
"""


def workspace(tmp_path: Path) -> FactSheet:
    return project(
        tmp_path,
        {
            "Cargo.toml": '[package]\nname = "just"\n\n[workspace]\nmembers = [".", "crates/*"]\n',
            "src/main.rs": "fn main() {}\n",
            "justfile": JUSTFILE,
            "bin/forbid": "#!/usr/bin/env bash\n! rg FIXME\n",
            "README.md": README,
        },
    )


def test_a_recipe_saying_nothing_has_its_group_kind(tmp_path: Path) -> None:
    sheet = workspace(tmp_path)
    for recipe in ("just forbid", "just action-versions", "just unused"):
        assert recipe in sheet.commands["lint"]
    assert "just man" in sheet.commands["build"]
    assert "just view-man" in sheet.commands["run"]
    assert "just update-contributors" not in sheet.offered()  # its group releases


def test_installing_the_projects_own_crate_is_no_set_up(tmp_path: Path) -> None:
    sheet = workspace(tmp_path)
    assert "just install" not in sheet.offered()
    assert "just install-dev-deps" in sheet.commands["setup"]


def test_the_readme_contributing_section_is_read_with_its_subsections(tmp_path: Path) -> None:
    sheet = workspace(tmp_path)
    # a code span that goes on on the next line of the paragraph
    assert "cargo install cargo-watch" in sheet.commands["setup"]
    # the users' install section is not read
    assert "cargo install just" not in sheet.offered()


NIX_JUSTFILE = """\
[unix]
fmt:
    nix-shell --cores 0 --pure --run 'cargo-fmt --all'
    nix-shell --cores 0 --pure --run 'shfmt --indent=4 --simplify --write *.sh'
    nix-shell --cores 0 --pure --run 'yamlfmt -- .github/workflows/*.yml'

[unix]
lint:
    nix-shell --cores 0 --pure --run 'cargo-fmt --all --check'
    nix-shell --cores 0 --pure --run 'cargo clippy --all-targets -- -Dwarnings'
    nix-shell --cores 0 --pure --run 'shfmt --diff --indent=4 --simplify *.sh'
    nix-shell --cores 0 --pure --run 'yamlfmt -lint -- .github/workflows/*.yml'
"""


def test_a_fixer_of_several_formatters_gives_each_writing_form(tmp_path: Path) -> None:
    sheet = project(
        tmp_path,
        {"Cargo.toml": '[package]\nname = "z"\n', "src/main.rs": "", "justfile": NIX_JUSTFILE},
    )
    shown = sheet.commands["format"]
    assert "just fmt" in shown
    assert "shfmt --indent=4 --simplify --write *.sh" in shown
    assert "yamlfmt -- .github/workflows/*.yml" in shown
    # the check's derived writing form is not offered beside the real one
    assert "shfmt --indent=4 --simplify *.sh" not in shown


def test_a_recipe_running_the_tests_on_one_argument_is_the_single_test_form(
    tmp_path: Path,
) -> None:
    justfile = (
        "watch +args='lcheck':\n  cargo watch --clear --exec '{{ args }}'\n\n"
        "[group: 'test']\ntest: (watch 'ltest --tests --all')\n\n"
        "# only run tests matching `PATTERN`\n[group: 'test']\n"
        "filter PATTERN: (watch f'ltest --tests --all {{ PATTERN }}')\n\n"
        "replace FROM TO:\n  sd '{{FROM}}' '{{TO}}' src/*.rs\n"
    )
    sheet = project(
        tmp_path, {"Cargo.toml": '[package]\nname = "j"\n', "src/lib.rs": "", "justfile": justfile}
    )
    assert "just filter PATTERN" in sheet.commands["test"]
    assert not any(command.startswith("just replace") for command in sheet.offered())


def test_the_recipes_of_an_imported_file_are_the_justfiles_own(tmp_path: Path) -> None:
    sheet = project(
        tmp_path,
        {
            "pyproject.toml": "[project]\nname = 'x'\n",
            "justfile": "import 'just/checks.just'\nimport? '../outside.just'\n\ntest:\n  pytest\n",
            "just/checks.just": "lint:\n  ruff check .\n\ntypecheck:\n  mypy src\n",
        },
    )
    assert "just lint" in sheet.commands["lint"]
    assert "just typecheck" in sheet.commands["typecheck"]
