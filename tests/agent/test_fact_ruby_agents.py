"""A Ruby gem's RSpec run, and the commands an AGENTS.md tells a coding agent to run, on a
real tree drawn from a gem whose Rakefile runs RuboCop and the specs."""

from __future__ import annotations

from pathlib import Path

from fact_support import project

from serena_memory.agent.project_facts.sheet import FactSheet

RAKEFILE = """\
require('rspec/core/rake_task')
RSpec::Core::RakeTask.new(:spec)

require('rubocop/rake_task')
RuboCop::RakeTask.new

task(default: %i[rubocop spec])
"""

AGENTS = """\
# AI Agent Instructions

## After Making Code Changes

Always run before committing:

```
bundle exec rake
```

If RuboCop reports offenses, fix them with `bundle exec rubocop -a` then re-run.

## Tests

- Run the full RSpec suite with `bundle exec rspec`.
- Push with `git push --force-with-lease`.
"""

CONTRIBUTING = """\
# Contributing

Run `bundle exec rubocop` and fix any style issues highlighted. Preview the docs by
running `yard server --reload`.
"""


def gem(tmp_path: Path, **extra: str) -> FactSheet:
    tree = {
        "Gemfile": "source 'https://rubygems.org'\ngemspec\n",
        "Rakefile": RAKEFILE,
        ".rubocop.yml": "AllCops:\n  NewCops: enable\n",
        "lib/grape.rb": "",
        "spec/grape/api_spec.rb": "",
        "CONTRIBUTING.md": CONTRIBUTING,
    }
    return project(tmp_path, {**tree, **extra})


def test_an_rspec_options_file_says_the_specs_run_with_rspec(tmp_path: Path) -> None:
    sheet = gem(tmp_path, **{".rspec": "--require spec_helper\n"})
    assert "bundle exec rspec" in sheet.commands["test"]
    assert "bundle exec rake" in sheet.commands["test"]
    without = gem(tmp_path / "plain")
    assert "bundle exec rspec" not in without.commands["test"]


def test_agents_md_is_read_after_the_contributing_guide(tmp_path: Path) -> None:
    sheet = gem(tmp_path, **{"AGENTS.md": AGENTS})
    assert "bundle exec rubocop -a" in sheet.commands["lint"]
    assert "bundle exec rspec" in sheet.commands["test"]
    assert sheet.sources["bundle exec rubocop"] == "docs"
    assert not any(command.startswith("git") for command in sheet.offered())


def test_yard_serves_the_docs(tmp_path: Path) -> None:
    sheet = gem(tmp_path)
    assert "yard server --reload" in sheet.commands["run"]
