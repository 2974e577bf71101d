"""Tasks a contributor never runs day to day, which the fact sheet offered on a fifth blind
set of real projects: an ``install`` putting a built app on the system, a task driving the
hosted repository's CI, one downloading assets, a packaging check, a package manager's
recipe, CI's own jobs and a coverage report; and, from an evaluation with a model in the
loop, the commands a CLAUDE.md gives, a ``dev`` script leaving vitest watching, and a lint
script whose prettier checks with ``-c``.

The fixtures are short excerpts of public repositories' files (alacritty, goreleaser,
httpie, jekyll, mocha, nox, pluggy, ufo), cut down to the lines that matter."""

from __future__ import annotations

import json
from pathlib import Path

from fact_support import checked_out as project

from serena_memory.agent.project_facts.sheet import FactSheet

CARGO = '[package]\nname = "alacritty"\nversion = "0.1.0"\n'
# alacritty/alacritty Makefile (cut)
ALACRITTY_MAKEFILE = """\
TARGET = alacritty

binary: $(TARGET)-native ## Build a release binary
$(TARGET)-native:
\tcargo build --release

dmg: $(DMG_NAME)-native ## Create an Alacritty.dmg
$(DMG_NAME)-%: $(TARGET)-%
\t@hdiutil create $(DMG_DIR)/$(DMG_NAME)

install: $(INSTALL)-native ## Mount disk image
install-universal: $(INSTALL)-native ## Mount universal disk image
$(INSTALL)-%: $(DMG_NAME)-%
\t@open $(DMG_DIR)/$(DMG_NAME)
"""


def test_an_install_putting_the_built_app_on_the_system_is_no_build(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"Cargo.toml": CARGO, "Makefile": ALACRITTY_MAKEFILE})
    offered = sheet.offered()
    assert "make binary" in sheet.commands["build"]
    assert "make install" not in offered
    assert "make install-universal" not in offered


GO_MOD = "module github.com/goreleaser/goreleaser\n\ngo 1.24\n"
# goreleaser/goreleaser Taskfile.yml and scripts/gen-nix-licenses.sh (cut)
GORELEASER_TASKFILE = """\
version: '3'
tasks:
  build:
    cmds:
      - go build -o goreleaser .
  fuzz:tmpl:
    cmds:
      - scripts/fuzz.sh ./internal/tmpl 30s
  nix:licenses:generate:
    cmds:
      - ./scripts/gen-nix-licenses.sh
  cover:
    desc: Open the cover tool
    cmds:
      - go tool cover -html=coverage.txt
  schema:generate:
    cmds:
      - go run . schema -o ./www/static/schema.json
  docs:imgs:
    desc: Download and resize images
    cmds:
      - wget -O www/static/card.png https://raw.githubusercontent.com/goreleaser/artwork/master/twitter-card.png
      - convert -background none www/static/favicon.svg -resize 16x16 www/static/favicon-16x16.png
  nightly:watch:
    cmds:
      - gh run watch {{.RUN_ID}}
  nightly:
    cmds:
      - gh run list --workflow=nightly-oss.yml
      - gh workflow run nightly-oss.yml
      - sleep 5
      - task: nightly:watch
"""
GEN_LICENSES = """\
#!/usr/bin/env bash
{
\techo "package nix"
\tcurl -s https://raw.githubusercontent.com/NixOS/nixpkgs/master/lib/licenses/licenses.nix |
\t\tgrep -E '.* = \\{'
} >./internal/pipe/nix/licenses.go
gofumpt -w ./internal/pipe/nix/licenses.go
"""


def goreleaser(root: Path) -> FactSheet:
    tree = {"go.mod": GO_MOD, "Taskfile.yml": GORELEASER_TASKFILE}
    tree["scripts/gen-nix-licenses.sh"] = GEN_LICENSES
    tree["scripts/fuzz.sh"] = "#!/bin/sh\ngo test -fuzz=. $1\n"
    return project(root, tree)


def test_a_task_driving_the_hosted_ci_is_no_everyday_command(tmp_path: Path) -> None:
    offered = goreleaser(tmp_path).offered()
    assert "task nightly" not in offered
    assert "task nightly:watch" not in offered


def test_a_task_downloading_assets_is_a_maintainers_chore(tmp_path: Path) -> None:
    sheet = goreleaser(tmp_path)
    assert "task docs:imgs" not in sheet.offered()
    assert "scripts/gen-nix-licenses.sh" not in sheet.offered()
    assert "task nix:licenses:generate" not in sheet.offered()  # it runs that script
    # generating from the project's own code is a build
    assert "task schema:generate" in sheet.commands["build"]


def test_a_build_fetching_a_dependency_first_is_still_a_build(tmp_path: Path) -> None:
    makefile = "build:\n\tcurl -sSfL -o vendor/x.js https://example.com/x.js\n\tgo build ./...\n"
    sheet = project(tmp_path, {"go.mod": GO_MOD, "Makefile": makefile})
    assert "make build" in sheet.commands["build"]


def test_fuzz_and_cover_tasks_test(tmp_path: Path) -> None:
    tests = goreleaser(tmp_path).commands["test"]
    assert "task fuzz:tmpl" in tests
    assert "task cover" in tests


PYPROJECT = '[project]\nname = "httpie"\nversion = "1.0"\n'
# httpie/cli Makefile (cut)
HTTPIE_MAKEFILE = """\
test:
\t$(VENV_BIN)/python -m pytest $(COV)

twine-check:
\ttwine check dist/*

brew-deps:
\tdocs/packaging/brew/brew-deps.py

brew-test:
\t- brew install --HEAD --build-from-source ./docs/packaging/brew/httpie.rb
\thttp --version

codestyle:
\tflake8 httpie tests
"""


def test_packaging_checks_and_a_package_managers_recipe_are_not_offered(
    tmp_path: Path,
) -> None:
    sheet = project(tmp_path, {"pyproject.toml": PYPROJECT, "Makefile": HTTPIE_MAKEFILE})
    offered = sheet.offered()
    assert "make codestyle" in sheet.commands["lint"]
    assert "make twine-check" not in offered
    assert "make brew-deps" not in offered
    assert "make brew-test" not in offered


# jekyll/jekyll script/travis (cut)
TRAVIS = """\
#!/bin/bash
# Usage: script/travis [ruby-version [file]]
docker run --volume=$(pwd):/home/travis/builds/jekyll/jekyll quay.io/travisci/travis-ruby
docker exec -it docker-travis bash -ilc " \\
  bundle install --path vendor/bundle -j 12
  bundle exec rake
" || status=$?
"""


def test_a_script_reproducing_a_ci_service_is_ci_plumbing(tmp_path: Path) -> None:
    tree = {"Gemfile": "source 'https://rubygems.org'\n", "script/travis": TRAVIS}
    tree["script/test"] = "#!/bin/bash\nbundle exec rake test\n"
    sheet = project(tmp_path, tree)
    assert "script/test" in sheet.commands["test"]
    assert "script/travis" not in sheet.offered()


# wntrblm/nox noxfile.py (cut)
NOXFILE = """\
import nox

@nox.session
def tests(session):
    session.run("pytest")

# The following sessions are only to be run in CI to check the nox GHA action
@nox.session(python=["3.12"])
def github_actions_default_tests(session):
    _check_python_version(session)
"""


def test_a_session_for_ci_only_is_not_offered(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"noxfile.py": NOXFILE})
    assert "nox -s tests" in sheet.commands["test"]
    assert "nox -s github_actions_default_tests" not in sheet.offered()


# mochajs/mocha package.json (cut)
MOCHA_SCRIPTS = {
    "test-coverage-clean": "rimraf .nyc_output coverage",
    "test-coverage-generate": "nyc report --reporter=lcov --reporter=text",
    "test-smoke": "node ./bin/mocha.js --no-config test/smoke/smoke.spec.cjs",
}


def test_a_coverage_tools_report_is_no_test(tmp_path: Path) -> None:
    package = {"name": "mocha", "scripts": MOCHA_SCRIPTS}
    sheet = project(tmp_path, {"package.json": json.dumps(package)})
    assert "npm run test-smoke" in sheet.commands["test"]
    assert "npm run test-coverage-generate" not in sheet.offered()


# pytest-dev/pluggy AGENTS.md and CLAUDE.md (cut)
PLUGGY_CLAUDE = """\
# CLAUDE.md

## Development Commands

### Testing
- `uv run pytest` - Run all tests

### Code Quality
- `uv run pre-commit run -a` - Run all pre-commit hooks
"""
TOX_INI = "[tox]\nenvlist = py39,py310\n\n[testenv]\ncommands = pytest {posargs}\n"


def test_the_commands_a_claude_md_gives_are_offered(tmp_path: Path) -> None:
    tree = {"pyproject.toml": PYPROJECT, "tox.ini": TOX_INI, "CLAUDE.md": PLUGGY_CLAUDE}
    tree["AGENTS.md"] = "# AGENTS.md\n\nSee @CLAUDE.md for AI coding agent instructions.\n"
    sheet = project(tmp_path, tree)
    assert sheet.commands["test"][0] == "uv run pytest"
    assert "uv run pre-commit run -a" in sheet.commands["lint"]


# unjs/ufo package.json (cut)
UFO_SCRIPTS = {
    "build": "unbuild",
    "dev": "vitest",
    "lint": "eslint . && prettier -c src test",
    "lint:fix": "eslint --fix . && prettier -w src test",
    "test": "pnpm lint && vitest run --typecheck",
}


def ufo(root: Path) -> FactSheet:
    package = {"name": "ufo", "scripts": UFO_SCRIPTS}
    lock = "lockfileVersion: '9.0'\n"
    return project(root, {"package.json": json.dumps(package), "pnpm-lock.yaml": lock})


def test_a_dev_script_leaving_the_tests_watching_is_no_test_run(tmp_path: Path) -> None:
    sheet = ufo(tmp_path)
    assert "pnpm dev" not in sheet.commands["test"]
    assert "pnpm dev" in sheet.commands["run"]
    assert "pnpm test" in sheet.commands["test"]


def test_a_lint_whose_prettier_checks_with_its_short_option_is_a_lint(tmp_path: Path) -> None:
    sheet = ufo(tmp_path)
    assert "pnpm lint" in sheet.commands["lint"]
    assert "pnpm lint" not in sheet.commands["format"]
    assert "pnpm lint:fix" in sheet.commands["format"]
