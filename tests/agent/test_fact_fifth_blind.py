"""Commands the fact sheet missed on a fifth blind set of real projects: tox spelt as the
project types it, the default Python's environments, a package's scripts spelt as CI types
them, steps grouped under ``parallel:`` and a workflow another calls, the umbrella task
before its parts, Nix's commands, a test task in release mode, a timed cucumber script, and
the tasks Rake loads beside the Rakefile.

The fixtures are short excerpts of public repositories' files (attrs, vue, mocha, eza,
jekyll), cut down to the lines that matter."""

from __future__ import annotations

import json
from pathlib import Path

from fact_support import checked_out as project

from serena_memory.agent.project_facts.commands import classify_command
from serena_memory.agent.project_facts.sheet import FactSheet

PYPROJECT = '[project]\nname = "attrs"\nversion = "1.0"\n'
# python-attrs/attrs tox.ini and .github/CONTRIBUTING.md (cut)
ATTRS_TOX = """\
[tox]
env_list =
    3.1{0-5}-tests,
    3.1{0-5}-mypy,
    typing-{pyright,ty},
    docs-{doctests,build},

[testenv]
commands =
    tests: pytest {posargs:-n auto}
    mypy: pytest -k test_mypy
    mypy: mypy typing_tests

[testenv:typing-pyright]
commands = pytest tests/test_pyright.py -vv

[testenv:typing-ty]
commands = ty check typing_tests/baseline.py

[testenv:docs-{build,doctests}]
commands =
    build: sphinx-build -n -T -W -b html docs docs/_build/html
    doctests: sphinx-build -n -T -W -b doctest docs docs/_build/html
"""
ATTRS_CONTRIBUTING = """\
Build the docs:

```console
$ uv run tox run -e docs-build
```
"""


def attrs(root: Path) -> FactSheet:
    tree = {"pyproject.toml": PYPROJECT, "tox.ini": ATTRS_TOX}
    tree[".github/CONTRIBUTING.md"] = ATTRS_CONTRIBUTING
    tree[".python-version-default"] = "3.14\n"
    return project(root, tree)


def test_tox_is_spelt_as_the_project_types_it(tmp_path: Path) -> None:
    sheet = attrs(tmp_path)
    assert "tox run -e typing-ty" in sheet.commands["typecheck"]
    assert "tox -e typing-ty" not in sheet.offered()
    # the docs' `uv run tox run -e docs-build` is not repeated as `tox run -e docs-build`
    assert "uv run tox run -e docs-build" in sheet.commands["build"]
    assert "tox run -e docs-build" not in sheet.offered()


def test_the_default_pythons_environments_stand_for_every_versions(tmp_path: Path) -> None:
    sheet = attrs(tmp_path)
    assert "tox run -e 3.14-tests" in sheet.commands["test"]
    assert "tox run -e 3.10-tests" not in sheet.offered()
    # named for the type checker, though it runs pytest too
    assert "tox run -e 3.14-mypy" in sheet.commands["typecheck"]
    assert "tox run -e typing-pyright" in sheet.commands["typecheck"]


# vuejs/core package.json, ci.yml and test.yml (cut)
VUE_SCRIPTS = {"test": "vitest", "test-unit": "vitest --project unit*", "check": "tsc --noEmit"}
VUE_CI = """\
name: 'ci'
on:
  push:
    branches: [main]
  pull_request:
jobs:
  test:
    uses: ./.github/workflows/test.yml
"""
VUE_TEST = """\
name: 'test'
on: workflow_call
jobs:
  unit-test:
    runs-on: ubuntu-latest
    steps:
      - run: pnpm install
      - name: Run unit tests
        run: pnpm run test-unit
      - parallel:
          - name: Run compiler unit tests
            run: pnpm run test-unit compiler
      - name: Run type declaration tests
        run: pnpm run check
"""


def vue(root: Path) -> FactSheet:
    package = {"name": "vue", "private": True, "scripts": VUE_SCRIPTS}
    tree = {"package.json": json.dumps(package), "pnpm-lock.yaml": "lockfileVersion: '9.0'\n"}
    tree[".github/workflows/ci.yml"] = VUE_CI
    tree[".github/workflows/test.yml"] = VUE_TEST
    return project(root, tree)


def test_scripts_are_spelt_as_ci_types_them(tmp_path: Path) -> None:
    sheet = vue(tmp_path)
    assert "pnpm run test-unit" in sheet.commands["test"]
    assert "pnpm run check" in sheet.commands["typecheck"]
    assert "pnpm check" not in sheet.offered()


def test_a_called_workflows_steps_and_its_parallel_ones_are_read(tmp_path: Path) -> None:
    assert "pnpm run test-unit compiler" in vue(tmp_path).commands["test"]


# mochajs/mocha package.json (cut): the umbrella `test-node` comes before its parts
MOCHA_SCRIPTS = {
    "test-node:interfaces:bdd": "mocha --ui bdd test/interfaces/bdd.spec",
    "test-node:interfaces:tdd": "mocha --ui tdd test/interfaces/tdd.spec",
    "test-node:unit": "mocha test/unit",
    "test-coverage-clean": "rimraf .nyc_output coverage",
    "test-node": "run-s test-coverage-clean test-node:*",
}


def test_a_task_with_fewer_words_comes_before_its_parts(tmp_path: Path) -> None:
    package = {"name": "mocha", "scripts": MOCHA_SCRIPTS}
    sheet = project(tmp_path, {"package.json": json.dumps(package)})
    tests = sheet.commands["test"]
    assert tests.index("npm run test-node") < tests.index("npm run test-node:unit")
    assert tests.index("npm run test-node:unit") < tests.index("npm run test-node:interfaces:bdd")
    assert "npm run test-coverage-clean" not in sheet.offered()  # it cleans up


# eza-community/eza CONTRIBUTING.md and justfile (cut)
EZA_CONTRIBUTING = """\
- `nix flake check`: checks everything is correct.
- `nix build`: build eza.
- `nix build .#test`: runs eza's cargo tests
- `nix build .#clippy`: runs clippy on eza
- `nix fmt`: automatically formats your code
"""
EZA_JUSTFILE = """\
test:
    cargo test --workspace -- --quiet

@test-release:
    cargo test --workspace --release --verbose

release version:
    cargo bump {{version}}
"""


def test_nix_commands_of_the_docs_are_read(tmp_path: Path) -> None:
    cargo = '[package]\nname = "eza"\nversion = "0.1.0"\n'
    tree = {"Cargo.toml": cargo, "flake.nix": "{}\n", "CONTRIBUTING.md": EZA_CONTRIBUTING}
    sheet = project(tmp_path, tree)
    assert "nix flake check" in sheet.commands["test"]
    assert "nix build .#test" in sheet.commands["test"]
    assert "nix build .#clippy" in sheet.commands["lint"]
    assert "nix fmt" in sheet.commands["format"]
    assert "nix build" in sheet.commands["build"]
    assert classify_command("nix develop --command cargo test") == "test"


def test_a_test_task_in_release_mode_releases_nothing(tmp_path: Path) -> None:
    cargo = '[package]\nname = "eza"\nversion = "0.1.0"\n'
    sheet = project(tmp_path, {"Cargo.toml": cargo, "justfile": EZA_JUSTFILE})
    assert "just test-release" in sheet.commands["test"]
    assert "just release" not in sheet.offered()


# jekyll/jekyll Rakefile, rake/rubocop.rake and script/cucumber (cut)
JEKYLL_RAKEFILE = """\
require "bundler/gem_tasks"
Dir.glob("rake/**.rake").each { |f| import f }

multitask :default => [:test, :features]
task :spec => :test
"""
RUBOCOP_RAKE = """\
namespace :rubocop do
  desc "Formats rubocop's config"
  task :format_config do
    RuboCop::Formatter.new.format
  end
end
"""
CUCUMBER = """\
#!/usr/bin/env bash

time ruby -S bundle exec cucumber \\
  --format progress --publish-quiet "$@"
"""


def jekyll(root: Path) -> FactSheet:
    tree = {"Gemfile": "source 'https://rubygems.org'\n", "Rakefile": JEKYLL_RAKEFILE}
    tree["rake/rubocop.rake"] = RUBOCOP_RAKE
    tree["script/cucumber"] = CUCUMBER
    return project(root, tree)


def test_the_tasks_rake_loads_beside_the_rakefile_are_offered(tmp_path: Path) -> None:
    sheet = jekyll(tmp_path)
    assert "bundle exec rake" in sheet.commands["test"]  # a multitask default
    assert "bundle exec rake rubocop:format_config" in sheet.commands["format"]
    assert "bundle exec rake build" not in sheet.offered()  # Bundler's gem packing


def test_a_timed_cucumber_script_tests(tmp_path: Path) -> None:
    assert "script/cucumber" in jekyll(tmp_path).commands["test"]


# alacritty/alacritty .builds/linux.yml (cut): sourcehut's build, run in its clone
ALACRITTY_BUILD = """\
image: archlinux
sources:
  - https://github.com/alacritty/alacritty
tasks:
  - rustup: |
      curl https://sh.rustup.rs -sSf | sh -s -- -y --default-toolchain stable
  - rustfmt: |
      cd alacritty
      rustup toolchain install nightly -c rustfmt
      cargo +nightly fmt -- --check
  - feature-wayland: |
      cd alacritty/alacritty
      RUSTFLAGS="-D warnings" cargo test --no-default-features --features=wayland
"""


def test_a_sourcehut_builds_tasks_are_read_in_its_clone(tmp_path: Path) -> None:
    cargo = '[workspace]\nmembers = ["alacritty"]\n'
    sheet = project(tmp_path, {"Cargo.toml": cargo, ".builds/linux.yml": ALACRITTY_BUILD})
    assert ".builds/linux.yml" in sheet.ci_files
    assert "cargo +nightly fmt -- --check" in sheet.commands["format"]
    feature = 'cd alacritty && RUSTFLAGS="-D warnings" cargo test --no-default-features'
    assert f"{feature} --features=wayland" in sheet.commands["test"]
