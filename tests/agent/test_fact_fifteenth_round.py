"""What the fact sheet missed on set20 (never read by a round before) and set19, kinds that
recur across the sets: CI's install of tox with its CI plugin (``pip install tox
tox-gh-actions``), npm's clean install of the lock file (``npm ci``), the README's editable
install of the clone under its users' installation section, a Rake task named for a tool
read by the commands of its body (``task :steep do sh "steep", "check" end``), and a
benchmark script's own usage line in its head comment.

The fixtures are short files written in the shape of public projects' (a Python library
tested through tox, an npm package, a Ruby gem with RBS signatures, a benchmark folder),
cut down to the lines that matter."""

from __future__ import annotations

from pathlib import Path

from fact_support import project

from serena_memory.agent.project_facts.bench_scripts import usage_line
from serena_memory.agent.project_facts.ci_installs import installs_tox_for_ci
from serena_memory.agent.project_facts.commands import classify_command
from serena_memory.agent.project_facts.rakefile import body_kinds

TOX_INI = """\
[tox]
envlist = py{310,311,312}, lint

[testenv]
deps = pytest
commands = pytest {posargs}

[testenv:lint]
deps = pre-commit
commands = pre-commit run --all-files
"""

TOX_WORKFLOW = """\
name: Tests
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
      - name: Install dependencies
        run: |
          python -m pip install --upgrade pip
          python -m pip install --upgrade tox tox-gh-actions
      - name: Test with tox
        run: tox
"""


def test_tox_installed_with_its_ci_plugin_is_the_projects_set_up(tmp_path: Path) -> None:
    """CI installs tox with tox-gh-actions, then runs `tox`: how tox is installed, even
    though the sheet has a set-up (pre-commit's) already."""
    tree = {
        "pyproject.toml": '[project]\nname = "example"\n',
        "tox.ini": TOX_INI,
        ".pre-commit-config.yaml": "repos: []\n",
        ".github/workflows/tests.yml": TOX_WORKFLOW,
    }
    sheet = project(tmp_path, tree)
    assert "python -m pip install --upgrade tox tox-gh-actions" in sheet.commands["setup"]
    assert "python -m pip install --upgrade pip" not in sheet.commands["setup"]


def test_only_tox_with_a_ci_plugin_is_such_an_install() -> None:
    assert installs_tox_for_ci("pip install 'tox~=4.0' 'tox-gh-actions~=3.0'")
    assert installs_tox_for_ci("pip install 'tox>=4' tox-gh")
    assert installs_tox_for_ci("uv tool install tox --with tox-uv --with tox-gh-actions")
    assert not installs_tox_for_ci("python -m pip install tox")  # one job's own need
    assert not installs_tox_for_ci("pip install tox-gh-actions-extra tox-ini-fmt")


NPM_PACKAGE = '{"name": "parser", "scripts": {"test": "vitest run", "build": "tsc"}}'
NPM_WORKFLOW = """\
name: CI
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: npm ci
      - run: npm test
"""


def test_npms_clean_install_is_offered_beside_the_lock_files_install(tmp_path: Path) -> None:
    tree = {
        "package.json": NPM_PACKAGE,
        "package-lock.json": "{}",
        ".github/workflows/ci.yml": NPM_WORKFLOW,
    }
    sheet = project(tmp_path, tree)
    assert sheet.commands["setup"][:2] == ["npm install", "npm ci"]


def test_a_clean_install_with_ci_options_stays_cis(tmp_path: Path) -> None:
    workflow = NPM_WORKFLOW.replace("npm ci", "npm ci --ignore-scripts --force")
    tree = {
        "package.json": NPM_PACKAGE,
        "package-lock.json": "{}",
        ".github/workflows/ci.yml": workflow,
    }
    sheet = project(tmp_path, tree)
    assert sheet.commands["setup"] == ["npm install"]


README_FROM_SOURCE = """\
# example

## Installation

### From PyPI

```bash
python3 -m pip install --upgrade example
```

### From source

```bash
git clone https://github.com/example/example
cd example
python3 -m pip install -e ".[tests]"
```
"""


def test_the_readmes_editable_install_of_the_clone_sets_up(tmp_path: Path) -> None:
    """Under `Installation`, a section for users: their install is left, the clone's
    editable install is a contributor's."""
    tree = {"pyproject.toml": '[project]\nname = "example"\n', "README.md": README_FROM_SOURCE}
    sheet = project(tmp_path, tree)
    assert 'python3 -m pip install -e ".[tests]"' in sheet.commands["setup"]
    assert not any("--upgrade example" in c for c in sheet.commands["setup"])


RAKEFILE = """\
require "bundler/setup"

desc "Validate the RBS type signatures in sig/"
task :rbs do
  require "rbs"
  sh "rbs", "-r", "forwardable", "-r", "monitor",
     "-I", "sig", "validate"
rescue LoadError
  warn "RBS is disabled"
end

desc "Type-check lib/ against sig/ with Steep"
task :steep do
  sh "steep", "check"
end

task :announce do
  sh "gem push pkg/example.gem"
end

namespace :site do
  task :guide do
    sh "bundle exec jekyll build"
  end
end

task default: %i[rbs steep]
"""


def test_a_rake_task_named_for_a_tool_is_read_by_its_body(tmp_path: Path) -> None:
    assert classify_command("rbs -r forwardable -I sig validate") == "typecheck"
    assert body_kinds(RAKEFILE) == {
        "rbs": "typecheck",
        "steep": "typecheck",
        "site:guide": "build",
    }
    sheet = project(tmp_path, {"Gemfile": "source 'https://rubygems.org'\n", "Rakefile": RAKEFILE})
    assert "bundle exec rake rbs" in sheet.commands["typecheck"]
    assert "bundle exec rake steep" in sheet.commands["typecheck"]
    assert not any("announce" in c for kind in sheet.commands.values() for c in kind)


def test_a_task_named_for_its_kind_keeps_its_name() -> None:
    assert body_kinds('task :test do\n  sh "steep check"\nend\n') == {}


BENCH_SCRIPT = """\
# frozen_string_literal: true

# How long the report takes for N files.
#
# Usage:
#
#   ruby benchmarks/report_scale.rb 10000
#   ruby benchmarks/report_scale.rb 100000

require "benchmark"
"""

PERF_SCRIPT = """\
'use strict'
// Performance check for `parse()`; not part of `npm test`. Invoke directly:
//   node scripts/parse-perf.js
"""


def test_a_benchmark_scripts_usage_line_runs_it_like_the_tests(tmp_path: Path) -> None:
    tree = {
        "Gemfile": "source 'https://rubygems.org'\n",
        "benchmarks/report_scale.rb": BENCH_SCRIPT,
        "scripts/parse-perf.js": PERF_SCRIPT,
        "scripts/release.js": "// node scripts/release.js\n",
    }
    sheet = project(tmp_path, tree)
    assert "ruby benchmarks/report_scale.rb 10000" in sheet.commands["test"]
    assert "ruby benchmarks/report_scale.rb 100000" not in sheet.commands["test"]
    assert "node scripts/parse-perf.js" in sheet.commands["test"]
    assert not any("release" in c for c in sheet.commands["test"])


def test_a_usage_line_must_run_the_script_itself() -> None:
    assert usage_line("# ruby benchmarks/other.rb\n", "benchmarks/x.rb") is None
    assert usage_line("# benchmarks/x.rb is slow\n", "benchmarks/x.rb") is None
    assert usage_line("#   $ ./benchmarks/x.sh --quick\n", "benchmarks/x.sh") == (
        "./benchmarks/x.sh --quick"
    )
