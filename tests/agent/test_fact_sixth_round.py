"""Commands the fact sheet missed, or offered wrongly, on the seventh and eighth sets of real
projects: a guide's release section and a README's title, code blocks fenced inside longer
fences, another package manager's lines in a project that declares its own, root scripts
that forward to a workspace member, tox's ``--`` before the tests' options, cargo's
``xtask`` runner and ``semver-checks``, and the plain ``cargo build`` beside CI's release
build.

The trees are small made-up projects in the shape those repositories have."""

from __future__ import annotations

import json
from pathlib import Path

from fact_support import project

from serena_memory.agent.project_facts.commands import classify_command
from serena_memory.agent.project_facts.doc_sections import readme_sections
from serena_memory.agent.project_facts.sheet import FactSheet

CARGO = '[package]\nname = "quill"\nversion = "0.1.0"\n'

GUIDE_WITH_RELEASES = """\
# Contributing

## Running the checks

```sh
cargo test --workspace
```

## Cutting a release

Maintainers only.

1. Install the version bumper with `cargo install cargo-edit`.
2. Run `cargo set-version --bump minor`.

### After the release

```sh
cargo install cargo-outdated
```

## Style

Run `cargo clippy --all-targets` before you push.
"""


def test_a_guides_release_section_is_the_maintainers_not_a_contributors(tmp_path: Path) -> None:
    tree = {"Cargo.toml": CARGO, "src/lib.rs": "", "CONTRIBUTING.md": GUIDE_WITH_RELEASES}
    sheet = project(tmp_path, tree)
    assert "cargo test --workspace" in sheet.commands["test"]
    # the section after the release's (and at its level) is read again
    assert "cargo clippy --all-targets" in sheet.commands["lint"]
    assert "cargo install cargo-edit" not in sheet.offered()
    assert "cargo install cargo-outdated" not in sheet.offered()


README_TITLED_BUILD = """\
# build

A frontend that builds Python packages.

## Usage

```console
$ pipx run build
```

## Code of Conduct

Be kind.
"""


def test_a_readmes_title_is_no_section_on_building(tmp_path: Path) -> None:
    pyproject = '[project]\nname = "build"\nversion = "1.0"\n'
    tree = {"pyproject.toml": pyproject, "README.md": README_TITLED_BUILD}
    sheet = project(tmp_path, tree)
    assert "pipx run build" not in sheet.offered()


def test_a_readmes_sections_after_a_title_are_still_read() -> None:
    text = "# quill\n\nA tool.\n\n## Development\n\n```sh\nmake test\n```\n\n## Usage\n\nquill x\n"
    kept = readme_sections(text)
    assert "make test" in kept
    assert "A tool." not in kept
    assert "quill x" not in kept


README_NESTED_FENCES = """\
Quill
=====

Usage
-----

A recipe file may show code blocks of its own:

````markdown
Here is a recipe:

```quill
hello:
  echo hi
```

And a fence left open, which quill reports:

```quill
# a comment, no heading
````

Contributing
------------

Run the tests with all features: `cargo test --all-features`.
"""


def test_a_fence_closes_only_at_a_fence_as_long_as_its_own(tmp_path: Path) -> None:
    tree = {"Cargo.toml": CARGO, "src/main.rs": "", "README.md": README_NESTED_FENCES}
    sheet = project(tmp_path, tree)
    assert "cargo test --all-features" in sheet.commands["test"]


def pnpm_project(root: Path, guide: str, scripts: dict[str, str]) -> FactSheet:
    package = {"name": "den", "packageManager": "pnpm@9.1.0", "scripts": scripts}
    tree = {"package.json": json.dumps(package), "pnpm-lock.yaml": "lockfileVersion: '9.0'\n"}
    tree["CONTRIBUTING.md"] = guide
    return project(root, tree)


GUIDE_WITH_A_DOCS_SITE = """\
# Contributing

1. Run `pnpm install`.
2. Run `pnpm test` before you push.

## Documentation

Clone the docs site beside this repository, and inside it:

1. Run `npm install`.
2. Run `npm run dev` to preview the pages.
"""


def test_another_package_managers_lines_are_not_the_projects(tmp_path: Path) -> None:
    sheet = pnpm_project(tmp_path, GUIDE_WITH_A_DOCS_SITE, {"test": "vitest run"})
    assert "pnpm install" in sheet.commands["setup"]
    offered = sheet.offered()
    assert "npm install" not in offered
    assert "npm run dev" not in offered


def test_a_members_line_of_another_manager_is_kept(tmp_path: Path) -> None:
    guide = "Work on the UI alone with `npm -C packages/ui run dev`.\n"
    sheet = pnpm_project(tmp_path, guide, {"test": "vitest run"})
    assert "npm -C packages/ui run dev" in sheet.commands["run"]


GUIDE_WITH_PREFIXES = """\
# Contributing

Run every package's tests with `npm run test`, or one package's:

```sh
npm run web test
npm run web build
npm run cli lint
```

Build the docs with `npm run site`.
"""


def test_a_script_forwarding_to_a_member_is_a_prefix(tmp_path: Path) -> None:
    scripts = {
        "web": "npm run --workspace=@den/web",
        "cli": "npm run -w @den/cli",
        "site": "npm run build --workspace=@den/site",
        "test": "jest",
    }
    package = {"name": "den", "private": True, "workspaces": ["packages/*"], "scripts": scripts}
    tree = {"package.json": json.dumps(package), "package-lock.json": "{}\n"}
    tree["CONTRIBUTING.md"] = GUIDE_WITH_PREFIXES
    sheet = project(tmp_path, tree)
    assert "npm run web test" in sheet.commands["test"]
    assert "npm run web build" in sheet.commands["build"]
    assert "npm run cli lint" in sheet.commands["lint"]
    # a script that runs one member's script of its own is no prefix
    assert "npm run site" not in sheet.commands.get("test", [])


def test_tox_hands_the_tests_their_options_after_a_double_dash() -> None:
    assert classify_command("tox run -- --run-integration") == "test"
    assert classify_command("tox -- -n auto --only-integration") == "test"
    assert classify_command("tox -e lint -- --fix") == "lint"


def test_cargo_xtask_runs_the_projects_own_tasks() -> None:
    assert classify_command("cargo xtask test-all") == "test"
    assert classify_command("cargo xtask fmt") == "format"
    assert classify_command("cargo xtask bump minor") is None
    assert classify_command("cargo +stable semver-checks") == "lint"


CI_RELEASE_BUILD = """\
name: CI
on: [push, pull_request]
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: cargo build --locked --release
      - run: cargo test --locked
"""


def test_the_plain_build_stands_beside_cis_release_build(tmp_path: Path) -> None:
    tree = {"Cargo.toml": CARGO, "src/main.rs": "fn main() {}\n"}
    tree[".github/workflows/ci.yml"] = CI_RELEASE_BUILD
    sheet = project(tmp_path, tree)
    assert "cargo build --locked --release" in sheet.commands["build"]
    assert "cargo build" in sheet.commands["build"]


GOLANGCI_V2 = """\
version: "2"
linters:
  enable:
    - misspell
formatters:
  enable:
    - gofumpt
    - goimports
"""


def test_golangci_lints_formatters_are_run_by_its_fmt(tmp_path: Path) -> None:
    tree = {"go.mod": "module example.com/den\n\ngo 1.23\n", "main.go": "package main\n"}
    tree[".golangci.yml"] = GOLANGCI_V2
    sheet = project(tmp_path, tree)
    assert sheet.commands["format"] == ["golangci-lint fmt"]
    assert "golangci-lint run" in sheet.commands["lint"]


def test_without_formatters_go_fmt_is_the_format(tmp_path: Path) -> None:
    tree = {"go.mod": "module example.com/den\n\ngo 1.23\n", "main.go": "package main\n"}
    tree[".golangci.yml"] = 'version: "2"\nlinters:\n  enable:\n    - misspell\n'
    sheet = project(tmp_path, tree)
    assert sheet.commands["format"] == ["go fmt ./..."]


def test_a_task_validating_a_schema_lints() -> None:
    assert classify_command("task schema:validate") == "lint"
    assert classify_command("make validate") == "lint"


def test_each_checker_a_check_script_chains_is_offered(tmp_path: Path) -> None:
    scripts = {"test": "ava", "type": "tsd && tsc", "lint": "xo"}
    package = {"name": "spawnly", "type": "module", "scripts": scripts}
    tree = {"package.json": json.dumps(package), "index.js": "", "tsconfig.json": "{}\n"}
    sheet = project(tmp_path, tree)
    assert "npm run type" in sheet.commands["typecheck"]
    assert "tsd" in sheet.commands["typecheck"]
    assert "tsc" in sheet.commands["typecheck"]


def test_a_test_script_of_one_runner_twice_gives_no_parts(tmp_path: Path) -> None:
    scripts = {"test": "jest --selectProjects unit && jest --selectProjects e2e"}
    package = {"name": "spawnly", "scripts": scripts}
    sheet = project(tmp_path, {"package.json": json.dumps(package), "index.js": ""})
    assert sheet.commands["test"] == ["npm test"]


GEM_README = """\
# Quill

## Contributing

Run `bundle install` and `bin/test`. To test against another Rails:

```bash
BUNDLE_GEMFILE=gemfiles/Gemfile-rails-7 bundle install
BUNDLE_GEMFILE=gemfiles/Gemfile-rails-7 bin/test
```
"""
GEM_RAKEFILE = """\
require 'rake/testtask'
require 'rdoc/task'

desc 'Run the tests for every ORM.'
task :pre_commit do
  sh 'bin/test'
end

Rake::TestTask.new(:test) do |t|
  t.pattern = 'test/**/*_test.rb'
end

Rake::RDocTask.new(:rdoc) do |rdoc|
  rdoc.rdoc_dir = 'rdoc'
end
"""


def gem(root: Path) -> FactSheet:
    tree = {"Gemfile": "source 'https://rubygems.org'\ngemspec\n", "Rakefile": GEM_RAKEFILE}
    tree["README.md"] = GEM_README
    tree["bin/test"] = "#!/usr/bin/env ruby\n"
    tree["gemfiles/Gemfile-rails-7"] = "gem 'rails', '~> 7.0'\n"
    tree["lib/quill.rb"] = ""
    return project(root, tree)


def test_a_documented_line_setting_a_path_in_its_environment_is_kept(tmp_path: Path) -> None:
    sheet = gem(tmp_path)
    assert "BUNDLE_GEMFILE=gemfiles/Gemfile-rails-7 bundle install" in sheet.commands["setup"]
    assert "BUNDLE_GEMFILE=gemfiles/Gemfile-rails-7 bin/test" in sheet.commands["test"]


def test_rakes_pre_commit_and_older_rdoc_task_are_offered(tmp_path: Path) -> None:
    sheet = gem(tmp_path)
    offered = sheet.offered()
    assert any(command.endswith("rake pre_commit") for command in offered)
    assert any(command.endswith("rake rdoc") for command in sheet.commands["build"])


def test_a_task_making_the_manual_pages_builds() -> None:
    assert classify_command("make man") == "build"
    assert classify_command("just man-1-preview") == "run"


def test_a_section_on_building_and_releasing_is_still_read(tmp_path: Path) -> None:
    guide = (
        "# Contributing\n\n## Building and releasing\n\nBuild with `cargo build --all-features`.\n"
    )
    sheet = project(tmp_path, {"Cargo.toml": CARGO, "src/lib.rs": "", "CONTRIBUTING.md": guide})
    assert "cargo build --all-features" in sheet.commands["build"]


GUIDE_OF_SCRIPTS = """\
# Contributing

Run `npm run test-u1`, `npm run test-u2`, `npm run test-u3`, `npm run test-u4`,
or `npm run test-u5`.
The `test` script calls the `mocha` binary.

To run the tests of one interface:

```sh
npm run test-u1 -- --grep bdd
```
"""


def test_a_guides_calls_of_scripts_leave_it_room_for_its_own_forms(tmp_path: Path) -> None:
    scripts = {f"test-u{n}": f"mocha test/unit{n}" for n in range(1, 6)}
    scripts["test"] = "mocha"
    package = {"name": "den", "scripts": scripts}
    tree = {"package.json": json.dumps(package), "package-lock.json": "{}\n"}
    tree["CONTRIBUTING.md"] = GUIDE_OF_SCRIPTS
    sheet = project(tmp_path, tree)
    assert "npm run test-u1 -- --grep bdd" in sheet.commands["test"]
    # a tool named as a script runs it is that script
    assert "mocha" not in sheet.commands["test"]
