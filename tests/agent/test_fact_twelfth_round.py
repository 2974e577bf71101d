"""What the fact sheet offered wrongly or missed on two more sets of real projects (set16,
set17): a reusable workflow's path listed as CI configuration, the README's install of the
project's own program, a security scanner's install, Go linters run from their module
(`go run ...@version`), an RSpec task defined in a `begin ... rescue LoadError` block, and
the tests of the built package (`test:dist`) taken for a release.

The fixtures are short excerpts written in the shape of public projects' files (puma,
gitui, fiber, echo, httparty, yaml), cut down to the lines that matter."""

from __future__ import annotations

import json
from pathlib import Path

from fact_support import project

from serena_memory.agent.project_facts.commands import classify_command

CALLER = """\
on: [push, pull_request]
jobs:
  skip:
    uses: ./.github/workflows/skip_duplicate_workflow_runs.yml
  test:
    needs: skip
    runs-on: ubuntu-latest
    steps:
      - run: bundle exec rake test
"""
REUSABLE = """\
on:
  workflow_call:
    outputs:
      should_skip:
        value: x
jobs:
  skip:
    runs-on: ubuntu-latest
    steps:
      - run: echo skip
"""


def test_a_reusable_workflow_is_not_listed_its_callers_are(tmp_path: Path) -> None:
    """puma's `skip_duplicate_workflow_runs.yml` runs only when another workflow calls it."""
    sheet = project(
        tmp_path,
        {
            "Gemfile": "",
            ".github/workflows/tests.yml": CALLER,
            ".github/workflows/skip_duplicate_workflow_runs.yml": REUSABLE,
        },
    )
    assert sheet.ci_files == [".github/workflows/tests.yml"]
    assert "skip_duplicate" not in sheet.to_markdown()


README = """\
# gitui

## Build

### Cargo Install

The simplest way is to have cargo build and install it with `cargo install gitui --locked`.

this feature is enabled by default, to disable: `cargo install --no-default-features`

To rebuild on changes, `cargo install cargo-watch`.
"""


def test_the_readmes_install_of_the_projects_own_crate_sets_nothing_up(tmp_path: Path) -> None:
    sheet = project(
        tmp_path,
        {
            "Cargo.toml": '[package]\nname = "gitui"\n',
            "src/main.rs": "",
            "README.md": README,
        },
    )
    assert "cargo install cargo-watch" in sheet.commands["setup"]
    assert not any("gitui" in c or "default-features" in c for c in sheet.commands["setup"])


def test_a_security_scanners_install_is_no_set_up() -> None:
    """fiber's agents' guide installs govulncheck with its tools: CI's scan, not a step."""
    assert classify_command("go install golang.org/x/vuln/cmd/govulncheck@latest") is None
    assert classify_command("go install gotest.tools/gotestsum@latest") == "setup"


MAKEFILE = """\
GOVERSION ?= $(shell go env GOVERSION)

## markdown: Find markdown format issues
.PHONY: markdown
markdown:
\t@which markdownlint-cli2 > /dev/null || npm install -g markdownlint-cli2
\tmarkdownlint-cli2 "**/*.md" "#vendor"

## betteralign: Optimize alignment of fields in structs
.PHONY: betteralign
betteralign:
\tGOTOOLCHAIN=$(GOVERSION) go run github.com/dkorunic/betteralign/cmd/betteralign@v0.8.0 -apply .
"""


def test_go_linters_and_a_tool_run_from_its_module(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"go.mod": "module example.com/x\n", "Makefile": MAKEFILE})
    assert "make markdown" in sheet.commands["lint"]
    assert "make betteralign" in sheet.commands["lint"]
    assert classify_command("golint -set_exit_status ./...") == "lint"
    assert classify_command("go run mvdan.cc/gofumpt@latest -w -l .") == "format"
    assert classify_command("go run ./cmd/x") is None


RAKEFILE = """\
begin
  require 'rspec/core/rake_task'
  RSpec::Core::RakeTask.new(:spec)
rescue LoadError
end

require 'cucumber/rake/task'
Cucumber::Rake::Task.new(:features)

task default: [:spec, :features]
"""


def test_a_task_defined_where_its_library_may_be_missing(tmp_path: Path) -> None:
    """httparty's RSpec task is made in a `begin` block, indented: `rake spec` still runs."""
    sheet = project(tmp_path, {"Gemfile": "", "Rakefile": RAKEFILE})
    assert "bundle exec rake spec" in sheet.commands["test"]
    assert "bundle exec rake features" in sheet.commands["test"]


def test_the_tests_of_the_built_package_are_tests(tmp_path: Path) -> None:
    """yaml's `test:dist` builds and tests the package; `test:all` runs it with the rest."""
    scripts = {
        "build": "rolldown -c",
        "test": "vitest run",
        "test:all": "npm test && npm run test:types && npm run test:dist",
        "test:dist": "npm run build && vitest run",
        "test:types": "tsc --noEmit",
        "release": "npm publish",
    }
    sheet = project(tmp_path, {"package.json": json.dumps({"scripts": scripts})})
    assert "npm run test:dist" in sheet.commands["test"]
    assert "npm run test:all" in sheet.commands["test"]
    assert "npm run release" not in sheet.offered()
