"""Commands the fact sheet missed on the ninth set of real projects: an Autotools C tree
(``autoreconf -i``, ``./configure``, ``make``, ``make check``), a console block that lists
commands without prompts, prompts naming a virtual environment (``(.venv)$``), the basics
page of the docs' part for contributors, Yarn scripts spelled as the docs and CI mostly
spell them, pre-commit's hook install and the coverage upload kept off the sheet.

The trees are small made-up projects in the shape those repositories have."""

from __future__ import annotations

import json
from pathlib import Path

from fact_support import project

from serena_memory.agent.project_facts.commands import classify_command

CONFIGURE_AC = "AC_INIT([tool], [1.0])\nAM_INIT_AUTOMAKE\nAC_OUTPUT\n"
MAKEFILE_AM = "bin_PROGRAMS = tool\ntool_SOURCES = src/main.c\n"
README_BUILDING = """\
# tool

## Building from source

```console
git submodule update --init
autoreconf -i
./configure --with-bundled-regex
make -j8
make check
```
"""


def test_an_autotools_tree_is_configured_built_and_checked(tmp_path: Path) -> None:
    sheet = project(
        tmp_path,
        {"configure.ac": CONFIGURE_AC, "Makefile.am": MAKEFILE_AM, "src/main.c": "int x;\n"},
    )
    assert sheet.commands["setup"] == ["autoreconf -i", "./configure"]
    assert sheet.commands["build"] == ["make"]
    assert sheet.commands["test"] == ["make check"]


def test_a_bootstrap_script_replaces_autoreconf_and_a_shipped_configure_needs_none(
    tmp_path: Path,
) -> None:
    own = project(
        tmp_path / "own",
        {"configure.ac": CONFIGURE_AC, "autogen.sh": "#!/bin/sh\nautoreconf -fi\n"},
    )
    assert own.commands["setup"][0] == "./autogen.sh"
    shipped = project(
        tmp_path / "shipped", {"configure.ac": CONFIGURE_AC, "configure": "#!/bin/sh\n"}
    )
    assert shipped.commands["setup"] == ["./configure"]


def test_a_readme_console_block_without_prompts_is_read_as_commands(tmp_path: Path) -> None:
    sheet = project(
        tmp_path,
        {"configure.ac": CONFIGURE_AC, "Makefile.am": MAKEFILE_AM, "README.md": README_BUILDING},
    )
    assert "git submodule update --init" in sheet.commands["setup"]
    assert "./configure --with-bundled-regex" in sheet.commands["setup"]
    assert "make -j8" in sheet.commands["build"]
    # automake's check target tests, and the usual spellings are not repeated
    assert sheet.commands["test"] == ["make check"]
    assert "lint" not in sheet.commands or "make check" not in sheet.commands["lint"]


def test_a_console_block_with_prompts_still_skips_its_output(tmp_path: Path) -> None:
    guide = "# Contributing\n\n```console\n$ pytest -q\nrunning tests\n```\n"
    sheet = project(tmp_path, {"CONTRIBUTING.md": guide, "pyproject.toml": ""})
    assert "pytest -q" in sheet.commands["test"]
    assert "running tests" not in sheet.offered()


def test_make_defaults_and_automake_targets_are_classified() -> None:
    assert classify_command("make -j8") == "build"
    assert classify_command("make LDFLAGS=-all-static") == "build"
    assert classify_command("make distcheck") == "test"
    assert classify_command("./configure --enable-docs") == "setup"
    assert classify_command("cmake --build build") == "build"
    assert classify_command("meson test -C build") == "test"


def test_a_cmake_tree_with_tests_gets_cmake_and_ctest(tmp_path: Path) -> None:
    lists = "project(tool CXX)\nenable_testing()\nadd_executable(tool main.cpp)\n"
    sheet = project(tmp_path, {"CMakeLists.txt": lists, "main.cpp": "int main() {}\n"})
    assert sheet.commands["build"] == ["cmake -B build", "cmake --build build"]
    assert sheet.commands["test"] == ["ctest --test-dir build"]


def test_a_prompt_naming_the_virtual_environment_is_a_prompt(tmp_path: Path) -> None:
    basics = (
        "# The basics\n\n```console\n(.venv)$ pip install --group dev\n"
        "(.venv)$ tox -e fuzz # Fuzz testing\n```\n"
    )
    sheet = project(
        tmp_path, {"docs/contributing/the_basics.md": basics, "pyproject.toml": "", "tox.ini": ""}
    )
    assert "pip install --group dev" in sheet.commands["setup"]
    assert "tox -e fuzz" in sheet.commands["test"]


def test_yarn_scripts_are_spelled_as_ci_mostly_spells_them(tmp_path: Path) -> None:
    scripts = {"test": "vitest run", "build": "tsup", "start": "vite", "test:src": "vitest"}
    workflow = (
        "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: yarn test\n      - run: yarn build\n"
    )
    sheet = project(
        tmp_path,
        {
            "package.json": json.dumps({"scripts": scripts}),
            "yarn.lock": "",
            "README.md": "# lib\n\n## Development\n\n- run `yarn run start`.\n",
            ".github/workflows/test.yml": workflow,
        },
    )
    assert "yarn test:src" in sheet.commands["test"]
    assert "yarn build" in sheet.commands["build"]


def test_a_coverage_upload_script_is_not_offered(tmp_path: Path) -> None:
    scripts = {"test": "vitest run", "coveralls": "vitest run --coverage && coveralls"}
    sheet = project(tmp_path, {"package.json": json.dumps({"scripts": scripts})})
    assert not any("coveralls" in command for command in sheet.offered())


def test_configured_hooks_are_installed_after_the_project(tmp_path: Path) -> None:
    hooks = "repos:\n- repo: local\n  hooks:\n  - id: ruff\n"
    workflow = (
        "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: git submodule update --init\n      - run: pytest\n"
    )
    sheet = project(
        tmp_path,
        {
            ".pre-commit-config.yaml": hooks,
            ".github/workflows/ci.yml": workflow,
        },
    )
    assert sheet.commands["setup"][-1] == "pre-commit install"
    assert sheet.commands["setup"][0] == "git submodule update --init"


def test_the_docs_own_hook_install_is_not_repeated(tmp_path: Path) -> None:
    guide = "# Contributing\n\n```console\n$ pre-commit install --install-hooks\n```\n"
    sheet = project(
        tmp_path,
        {".pre-commit-config.yaml": "repos: []\n", "CONTRIBUTING.md": guide},
    )
    assert sheet.commands["setup"] == ["pre-commit install --install-hooks"]


def test_toxs_own_py_environment_runs_the_tests() -> None:
    assert classify_command("tox -e py") == "test"


def test_go_generate_builds_the_generated_code() -> None:
    assert classify_command("go generate ./...") == "build"


def test_one_mdbook_manual_is_built_and_served_in_its_folder(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"manual/book.toml": "[book]\ntitle = 'x'\n", "README.md": "# x\n"})
    assert sheet.commands["build"] == ["cd manual && mdbook build"]
    assert sheet.commands["run"] == ["cd manual && mdbook serve"]
    several = project(tmp_path / "many", {"en/book.toml": "[book]\n", "zh/book.toml": "[book]\n"})
    assert "build" not in several.commands or not several.commands["build"]


def test_composer_scripts_are_the_projects_tasks(tmp_path: Path) -> None:
    scripts = {
        "test": "phpunit",
        "analyse": "@php vendor/bin/phpstan analyse",
        "cs-fix": "php-cs-fixer fix",
        "update": "@composer update",
        "post-install-cmd": "php bin/warm-cache",
    }
    sheet = project(tmp_path, {"composer.json": json.dumps({"name": "a/b", "scripts": scripts})})
    assert sheet.commands["setup"] == ["composer install"]
    assert sheet.commands["test"] == ["composer test"]
    assert sheet.commands["typecheck"] == ["composer analyse"]
    assert sheet.commands["format"] == ["composer cs-fix"]
    assert not any("warm-cache" in command for command in sheet.offered())


def test_configured_php_tools_run_from_vendor_bin(tmp_path: Path) -> None:
    sheet = project(
        tmp_path,
        {
            "composer.json": '{"name": "a/b"}',
            "phpunit.xml.dist": "<phpunit/>\n",
            "phpstan.neon.dist": "parameters:\n  level: 8\n",
        },
    )
    assert sheet.commands["test"] == ["vendor/bin/phpunit"]
    assert sheet.commands["typecheck"] == ["vendor/bin/phpstan analyse"]
    assert classify_command("vendor/bin/phpunit --filter Cart") == "test"


def test_php_hands_its_script_over() -> None:
    assert classify_command("php vendor/bin/phpstan analyse") == "typecheck"
    assert classify_command("php artisan test") == "test"
