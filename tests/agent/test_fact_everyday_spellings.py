"""The commands as contributors type them every day: Go's formatter over every package,
one test file run directly even where tox can filter one, mypy as its own file configures
it, RSpec beside its helper, Go's security linter and its modules downloaded. Cut from
set29 and set30 of benchmarks/data/facts-labels."""

from __future__ import annotations

from pathlib import Path

from fact_support import project


def test_go_without_a_formatter_formats_every_package(tmp_path: Path) -> None:
    # gorilla/mux: no golangci formatters; contributors type `go fmt ./...` (gofmt -l -w)
    sheet = project(tmp_path, {"go.mod": "module github.com/gorilla/mux\n", "mux.go": ""})
    assert sheet.commands["format"] == ["go fmt ./..."]


def test_one_go_test_of_the_root_package_runs_from_anywhere(tmp_path: Path) -> None:
    test = 'package log\n\nimport "testing"\n\nfunc TestLevel(t *testing.T) {\n}\n'
    sheet = project(tmp_path, {"go.mod": "module charm.land/log/v2\n", "level_test.go": test})
    assert "go test -run TestLevel ./..." in sheet.commands["test"]


def test_a_keyword_filter_through_tox_still_gets_one_test_file(tmp_path: Path) -> None:
    # agronholm/typeguard: the docs say `tox -- -k somekeyword`; iterating on one file
    # is pytest's, without building tox's environments
    readme = "Run the tests:\n\n```\ntox -- -k somekeyword\n```\n"
    pyproject = '[project]\nname = "typeguard"\n[tool.pytest.ini_options]\ntestpaths = "tests"\n'
    tree = {"pyproject.toml": pyproject, "tox.ini": "[tox]\n", "README.md": readme}
    tree["tests/test_checkers.py"] = ""
    sheet = project(tmp_path, tree)
    assert "pytest tests/test_checkers.py" in sheet.commands["test"]


def test_one_test_the_runner_filters_is_enough(tmp_path: Path) -> None:
    guide = "# Contributing\n\n## Running the tests\n\n```\npytest -k test_name\n```\n"
    pyproject = '[project]\nname = "x"\n[tool.pytest.ini_options]\n'
    tree = {"pyproject.toml": pyproject, "CONTRIBUTING.md": guide, "tests/test_a.py": ""}
    sheet = project(tmp_path, tree)
    assert "pytest -k test_name" in sheet.commands["test"]
    assert "pytest tests/test_a.py" not in sheet.commands["test"]


def test_mypy_configured_by_its_own_file_with_the_files_to_check(tmp_path: Path) -> None:
    # aio-libs/frozenlist .mypy.ini (cut)
    mypy = "[mypy]\nfiles = frozenlist, packaging, tests\ncheck_untyped_defs = True\n"
    tree = {"pyproject.toml": '[project]\nname = "frozenlist"\n', ".mypy.ini": mypy}
    sheet = project(tmp_path, tree)
    assert sheet.commands["typecheck"] == ["mypy"]
    # with no files named, bare `mypy` checks nothing: not offered
    sheet = project(tmp_path / "bare", {**tree, ".mypy.ini": "[mypy]\nstrict = True\n"})
    assert "mypy" not in sheet.commands.get("typecheck", [])


def test_rspec_beside_its_helper(tmp_path: Path) -> None:
    # bblimke/webmock: no .rspec, but spec/spec_helper.rb and a Gemfile
    tree = {"Gemfile": "source 'https://rubygems.org'\ngemspec\n", "spec/spec_helper.rb": ""}
    sheet = project(tmp_path, tree)
    assert "bundle exec rspec" in sheet.commands["test"]


def test_gosec_in_a_make_target_is_lint(tmp_path: Path) -> None:
    # gorilla/mux Makefile (cut); govulncheck, a scan of the modules' known holes, is CI's
    makefile = "gosec:\n\tgosec ./...\n\ngovulncheck:\n\tgovulncheck ./...\n"
    sheet = project(tmp_path, {"go.mod": "module x\n", "Makefile": makefile})
    assert "make gosec" in sheet.commands["lint"]
    assert not any("govulncheck" in command for command in sheet.offered())


def test_a_go_module_with_requirements_downloads_them_to_set_up(tmp_path: Path) -> None:
    gomod = "module charm.land/log/v2\n\ngo 1.25\n\nrequire (\n\tgithub.com/x/y v1.0.0\n)\n"
    sheet = project(tmp_path, {"go.mod": gomod, "log.go": "package log\n"})
    assert sheet.commands["setup"] == ["go mod download"]
    # a module that needs none has nothing to download
    sheet = project(tmp_path / "bare", {"go.mod": "module x\n\ngo 1.25\n", "x.go": "package x\n"})
    assert sheet.commands["setup"] == []


def test_one_go_test_is_read_from_a_file_that_holds_one(tmp_path: Path) -> None:
    # gorilla/mux: bench_test.go comes first and holds benchmarks only
    bench = 'package mux\n\nimport "testing"\n\nfunc BenchmarkMux(b *testing.B) {\n}\n'
    test = 'package mux\n\nimport "testing"\n\nfunc TestRoute(t *testing.T) {\n}\n'
    tree = {"go.mod": "module x\n", "bench_test.go": bench, "mux_test.go": test}
    sheet = project(tmp_path, tree)
    assert "go test -run TestRoute ./..." in sheet.commands["test"]


def test_mix_tasks_of_coverage_and_lint_dependencies(tmp_path: Path) -> None:
    # elixir-tesla/tesla mix.exs (cut): ExCoveralls among the test dependencies
    mix = (
        "defmodule Tesla.Mixfile do\n  defp deps do\n    [\n"
        '      {:excoveralls, ">= 0.0.0", only: :test, runtime: false},\n'
        '      {:credo, "~> 1.7", only: [:dev, :test]}\n    ]\n  end\nend\n'
    )
    sheet = project(tmp_path, {"mix.exs": mix})
    assert "mix coveralls" in sheet.commands["test"]
    assert "mix credo" in sheet.commands["lint"]


def test_the_docs_go_vet_is_not_offered_twice(tmp_path: Path) -> None:
    # rs/zerolog CONTRIBUTING: `go vet` and `go fmt` for the package at hand
    guide = "# Contributing\n\n## Before a pull request\n\n```\ngo fmt\ngo vet\ngo test\n```\n"
    tree = {"go.mod": "module github.com/rs/zerolog\n", "CONTRIBUTING.md": guide}
    sheet = project(tmp_path, tree)
    assert sheet.commands["lint"] == ["go vet"]


def test_one_unittest_module_where_unittest_runs_the_tests(tmp_path: Path) -> None:
    # hukkin/tomli: CI runs `python -m unittest`; one module is `tests.test_x`
    ci = (
        "on: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - uses: actions/checkout@v4\n      - run: pip install .\n"
        "      - run: python -m unittest\n"
    )
    tree = {"pyproject.toml": '[project]\nname = "tomli"\n', ".github/workflows/t.yml": ci}
    tree["tests/test_data.py"] = ""
    sheet = project(tmp_path, tree)
    assert "python -m unittest tests.test_data" in sheet.commands["test"]


def test_a_static_analysis_script_is_a_check_not_a_run(tmp_path: Path) -> None:
    # ramsey/collection composer.json (cut): `dev:analyze` runs PHPStan
    composer = '{"scripts": {"dev:analyze": "phpstan analyse --ansi", "test": "phpunit"}}'
    sheet = project(tmp_path, {"composer.json": composer})
    assert "composer dev:analyze" in sheet.commands["typecheck"]
    assert "composer dev:analyze" not in sheet.commands["run"]


def test_a_rust_program_is_also_built_optimized(tmp_path: Path) -> None:
    # ducaale/xh: a binary crate; its users run the release build
    tree = {"Cargo.toml": '[package]\nname = "xh"\n', "src/main.rs": "fn main() {}\n"}
    sheet = project(tmp_path, tree)
    assert sheet.commands["build"] == ["cargo build", "cargo build --release"]
    library = {"Cargo.toml": '[package]\nname = "x"\n', "src/lib.rs": ""}
    assert project(tmp_path / "lib", library).commands["build"] == ["cargo build"]


def test_pytest_declared_as_a_dependency_runs_the_package_s_tests(tmp_path: Path) -> None:
    # python-jsonschema/referencing: pytest in the dev group, tests inside the package
    pyproject = '[project]\nname = "referencing"\n[dependency-groups]\ndev = ["pytest>9"]\n'
    tree = {"pyproject.toml": pyproject, "uv.lock": "", "referencing/tests/test_core.py": ""}
    sheet = project(tmp_path, tree)
    assert "uv run pytest" in sheet.commands["test"]
    assert "uv run pytest referencing/tests/test_core.py" in sheet.commands["test"]


def test_one_pytest_test_by_name_beside_its_file(tmp_path: Path) -> None:
    pyproject = '[project]\nname = "x"\n[tool.pytest.ini_options]\n'
    tests = "import pytest\n\n\ndef helper():\n    pass\n\n\nasync def test_reads(tmp_path):\n"
    sheet = project(tmp_path, {"pyproject.toml": pyproject, "tests/test_io.py": tests})
    assert sheet.commands["test"][-2:] == [
        "pytest tests/test_io.py",
        "pytest tests/test_io.py::test_reads",
    ]


def test_one_test_method_by_its_class_and_name(tmp_path: Path) -> None:
    # jd/tenacity tests/test_after.py (cut): the tests are methods of a TestCase
    tests = (
        "import unittest\n\n\nclass Helper:\n    def test_not_this(self):\n        pass\n\n\n"
        "@mark\nclass TestAfterLogFormat(unittest.TestCase):\n    # the format\n\n"
        "    def setUp(self) -> None:\n        pass\n\n    def test_01_default(self) -> None:\n"
    )
    pyproject = '[project]\nname = "tenacity"\n[tool.pytest.ini_options]\n'
    sheet = project(tmp_path, {"pyproject.toml": pyproject, "tests/test_after.py": tests})
    assert (
        "pytest tests/test_after.py::TestAfterLogFormat::test_01_default"
        in (sheet.commands["test"])
    )


def test_a_test_file_of_blank_lines_names_no_test(tmp_path: Path) -> None:
    pyproject = '[project]\nname = "x"\n[tool.pytest.ini_options]\n'
    blank = "class TestX:\n" + "    \n" * 50_000
    sheet = project(tmp_path, {"pyproject.toml": pyproject, "tests/test_x.py": blank})
    assert sheet.commands["test"][-1] == "pytest tests/test_x.py"
