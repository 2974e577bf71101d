"""Kinds of command the fact sheet missed on an eleventh set of real projects: Mix's
aliases and everyday commands in an Elixir project, a task runner the project does not
depend on (typed bare), a Markdown code block shown by indenting it, and a test script
at the root named for what it does (``./runtests.py``).

The fixtures are short excerpts written in the shape of public repositories' files
(phoenix, beets, django-rest-framework), cut down to the lines that matter."""

from __future__ import annotations

from pathlib import Path

from fact_support import project

from serena_memory.agent.project_facts.commands import classify_command
from serena_memory.agent.project_facts.mix import mix_aliases

MIX_EXS = """\
defmodule Demo.MixProject do
  use Mix.Project

  def project do
    [app: :demo, version: "1.0.0", aliases: aliases(), deps: deps()]
  end

  defp deps do
    [
      {:jason, "~> 1.0"},
      {:ex_doc, "~> 0.38", only: :docs}
    ]
  end

  defp aliases do
    [
      docs: ["docs", &generate_js_docs/1],
      "assets.build": ["esbuild module", "esbuild main"],
      "hex.publish": [&copy_files/1, "hex.publish"]
    ]
  end

  defp other do
    [lint: "nothing"]
  end
end
"""


def test_mix_aliases_are_read_from_the_aliases_function_only() -> None:
    assert mix_aliases(MIX_EXS) == ["docs", "assets.build", "hex.publish"]


def test_an_elixir_project_offers_mix_everyday_commands_and_its_aliases(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"mix.exs": MIX_EXS, ".formatter.exs": "[inputs: []]\n"})
    assert "mix deps.get" in sheet.commands["setup"]
    assert "mix test" in sheet.commands["test"]
    assert "mix compile" in sheet.commands["build"]
    assert "mix assets.build" in sheet.commands["build"]
    assert "mix docs" in sheet.commands["build"]
    assert sheet.commands["format"][:2] == ["mix format --check-formatted", "mix format"]
    assert "mix hex.publish" not in sheet.offered()


def test_mix_format_is_offered_only_with_the_formatters_settings(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"mix.exs": MIX_EXS})
    assert not sheet.commands["format"]


def test_mix_compile_with_warnings_as_errors_lints() -> None:
    assert classify_command("mix compile --warnings-as-errors") == "lint"
    assert classify_command("mix compile") == "build"
    assert classify_command("mix deps.get --only test") == "setup"


POE_PYPROJECT = """\
[project]
name = "demo"
dependencies = []

[dependency-groups]
test = ["pytest"]

[tool.poe.tasks]
test = "pytest"
test-with-coverage = "pytest --cov"
check-docs-links = "make -C docs linkcheck-local"
"""


def test_a_task_runner_the_project_does_not_depend_on_is_typed_bare(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"pyproject.toml": POE_PYPROJECT, "uv.lock": ""})
    assert "poe test-with-coverage" in sheet.commands["test"]
    assert "uv run poe test" not in sheet.offered()


def test_a_task_runner_among_the_dependencies_runs_through_the_environment(
    tmp_path: Path,
) -> None:
    text = POE_PYPROJECT.replace('["pytest"]', '["pytest", "poethepoet>=0.26"]')
    sheet = project(tmp_path, {"pyproject.toml": text, "uv.lock": ""})
    assert "uv run poe test-with-coverage" in sheet.commands["test"]


CONTRIBUTING = """\
# Contributing

## Testing

To run the tests, clone the repository, and then:

    # Setup the virtual environment
    python3 -m venv env
    pip install -e . --group dev

    # Run the tests
    ./runtests.py

Run using a more concise output style.

    ./runtests.py -q

- a list item whose next paragraph is indented:

    pytest --this-is-prose-of-the-item
"""


def test_an_indented_markdown_block_shows_commands(tmp_path: Path) -> None:
    tree = {
        "docs/community/contributing.md": CONTRIBUTING,
        "runtests.py": "#!/usr/bin/env python\n",
        "pyproject.toml": '[project]\nname = "demo"\n',
    }
    sheet = project(tmp_path, tree, checkout=True)
    assert "./runtests.py" in sheet.commands["test"]
    assert "./runtests.py -q" in sheet.commands["test"]
    assert "pip install -e . --group dev" in sheet.commands["setup"]
    assert "pytest --this-is-prose-of-the-item" not in sheet.offered()


def test_a_root_script_named_for_the_tests_tests() -> None:
    assert classify_command("./runtests.py --coverage") == "test"
    assert classify_command("python runtests.py") == "test"
    assert classify_command("python setup.py install") is None
    assert classify_command("python ./extra/release.py bump") is None


def test_a_python_file_of_the_tests_folder_is_their_helper_not_a_command() -> None:
    assert classify_command("python tests/integration_sources.py") is None


def test_a_coverage_summary_task_reports_and_runs_no_test(tmp_path: Path) -> None:
    hatch = """\
[envs.coverage.scripts]
combine = "coverage combine"
generate-summary = "python scripts/generate_coverage_summary.py"
"""
    tree = {"hatch.toml": hatch, "pyproject.toml": '[project]\nname = "demo"\n'}
    tree["scripts/generate_coverage_summary.py"] = "print('summary')\n"
    sheet = project(tmp_path, tree)
    assert "hatch run coverage:generate-summary" not in sheet.offered()


MAKEFILE_JS = """\
require("shelljs/make");

target.lint = function ([fix = false] = []) {
    exec("eslint .");
};
target.mocha = () => {
    exec("mocha tests");
};
target.checkRuleFiles = function () {
    echo("checking");
};
target.publishRelease = publishRelease;
"""


def test_shelljs_make_targets_are_read_by_their_camelcase_words(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"Makefile.js": MAKEFILE_JS})
    assert "node Makefile mocha" in sheet.commands["test"]
    assert "node Makefile checkRuleFiles" in sheet.commands["lint"]
    assert "node Makefile publishRelease" not in sheet.offered()
    assert classify_command("node Makefile checkLicenses") == "lint"


def test_an_mdx_page_on_testing_in_the_developer_docs_is_read(tmp_path: Path) -> None:
    page = '---\ntitle: Tests\n---\n\n```bash\nuv run pytest -m "not integration"\n```\n'
    tree = {"docs/development/tests.mdx": page, "pyproject.toml": '[project]\nname = "x"\n'}
    sheet = project(tmp_path, tree)
    assert 'uv run pytest -m "not integration"' in sheet.commands["test"]


def test_copilot_instructions_are_an_agents_guide(tmp_path: Path) -> None:
    guide = "## Checks\n\n```bash\nyarn constraints\nyarn dedupe --check\n```\n"
    tree = {".github/copilot-instructions.md": guide, "package.json": '{"name": "x"}'}
    tree["yarn.lock"] = ""
    sheet = project(tmp_path, tree)
    assert sheet.commands["lint"][:1] == ["yarn constraints"]


def test_a_guides_toolchain_steps_set_up_its_virtualenv_is_left(tmp_path: Path) -> None:
    guide = """\
## Setup

```bash
python3 -m venv env
source env/bin/activate
rustup component add clippy
source ~/.bashrc
```
"""
    tree = {"CONTRIBUTING.md": guide, "pyproject.toml": '[project]\nname = "x"\n'}
    sheet = project(tmp_path, tree)
    assert sheet.commands["setup"][:1] == ["rustup component add clippy"]
    assert "source env/bin/activate" not in sheet.offered()
    assert "source ~/.bashrc" not in sheet.offered()


def test_rake_files_a_rakefile_loads_with_dir_brackets_are_its_tasks(tmp_path: Path) -> None:
    rakefile = "Dir['tasks/**/*.rake'].each { |rake| load rake }\n\ntask :console do\nend\n"
    tree = {"Rakefile": rakefile, "Gemfile": "source 'https://rubygems.org'\n"}
    tree["tasks/reformat_yaml.rake"] = "task :reformat_locales do\nend\n"
    sheet = project(tmp_path, tree)
    assert "bundle exec rake reformat_locales" in sheet.commands["format"]


def test_a_checker_script_lints_and_cargo_coverage_tools_test() -> None:
    assert classify_command("bun run editorconfig-checker") == "lint"
    assert classify_command("cargo llvm-cov --workspace --lcov") == "test"
    assert classify_command("cargo tarpaulin --out Lcov") == "test"


def test_pypas_build_and_rstcheck_keep_their_kinds() -> None:
    assert classify_command("python -m build") == "build"
    assert classify_command("rstcheck CHANGES.rst") == "lint"


def test_hooks_run_with_prek_as_the_docs_run_them(tmp_path: Path) -> None:
    guide = "## Setup\n\n```bash\nuv sync\nuv run prek install\nuv run prek run --all-files\n```\n"
    hooks = "repos:\n  - repo: local\n    hooks:\n      - id: ruff-format\n"
    tree = {"CONTRIBUTING.md": guide, ".pre-commit-config.yaml": hooks, "uv.lock": ""}
    tree["pyproject.toml"] = '[project]\nname = "x"\n'
    sheet = project(tmp_path, tree)
    assert "uv run prek run --all-files" in sheet.commands["format"]
    assert "pre-commit run --all-files" not in sheet.offered()
    assert "pre-commit install" not in sheet.offered()
