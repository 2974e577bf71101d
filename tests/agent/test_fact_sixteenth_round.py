"""What the fact sheet missed on set21 (never read by a round before), as capabilities that
carry over: whole task runners it did not read (invoke's ``tasks.py``), poe tasks read by
what they run rather than by their names alone, and the Makefiles of a project's parts
that the root's Makefile or CI runs make in (``$(MAKE) -C bindings/python``).

The fixtures are short files written in the shape of public projects' (a Python library
managed with invoke, one with poe tasks, a Rust library with a Python binding and a Go
port), cut down to the lines that matter."""

from __future__ import annotations

from pathlib import Path

from fact_support import project

from serena_memory.agent.project_facts.commands import classify_command
from serena_memory.agent.project_facts.invoke_tasks import invoke_tasks
from serena_memory.agent.project_facts.member_makefiles import member_folders
from serena_memory.agent.project_facts.poe import poe_tasks

TASKS_PY = '''\
from invoke import Collection, task
from invocations import checks
from invocations.docs import docs


@task
def test(c, verbose=False):
    """Run the unit tests."""
    c.run("pytest tests")


@task
def type_check(c, opts=""):
    c.run(f"mypy {opts} mylib")


@task(pre=[test])
def release(c):
    c.run("twine upload dist/*")


@task
def _helper(c):
    c.run("echo hi")


@task
def lint_all(c):
    flake(c)


@task
def flake(c):
    c.run("flake8 mylib")


ns = Collection(test, type_check, release, lint_all, checks, docs)
'''


def test_invoke_tasks_are_offered_by_what_they_run(tmp_path: Path) -> None:
    tree = {"pyproject.toml": '[project]\nname = "mylib"\n', "tasks.py": TASKS_PY}
    sheet = project(tmp_path, tree)
    assert "inv test" in sheet.commands["test"]
    assert "inv type-check" in sheet.commands["typecheck"]  # dashes for underscores
    assert "inv lint-all" in sheet.commands["lint"]  # the local task it calls
    assert "inv checks" in sheet.commands["lint"]  # an imported collection, by its name
    assert "inv docs" in sheet.commands["build"]
    offered = sheet.offered()
    assert "inv release" not in offered
    assert "inv flake" not in offered  # left out of the namespace: `inv` has no such task


def test_invoke_tasks_without_a_namespace_are_the_files_tasks() -> None:
    source = 'from invoke import task\n\n@task\ndef build(c):\n    c.run("python -m build")\n'
    tasks = invoke_tasks(source)
    assert list(tasks) == ["build"]
    assert tasks["build"].lines == ["python -m build"]
    assert invoke_tasks("def broken(:\n") == {}  # not Python: nothing, no error


def test_invoke_tasks_are_read_from_the_text_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    source = f"import pathlib\npathlib.Path({str(marker)!r}).touch()\n" + TASKS_PY
    project(tmp_path / "repo", {"tasks.py": source})
    assert not marker.exists()


def test_ci_runs_invoke_tasks_by_their_names() -> None:
    assert classify_command("inv www.doctest") == "test"
    assert classify_command("invoke typecheck") == "typecheck"
    assert classify_command("inv checks.blacken --check") == "format"
    assert classify_command("inv regression") == "test"


POE_PYPROJECT = """\
[project]
name = "mylib"

[tool.poe.tasks]
_clean = { shell = "rm -rf build" }
test = "pytest"
format-ruff = { cmd = "ruff check . --fix-only", help = "Fix what ruff can" }
style = { cmd = "black . --check --diff" }
docs = { cmd = "sphinx-build docs docs/_build", deps = ["_clean"] }
docs-check = { sequence = [{ cmd = "doc8 docs" }, "docs -b html"] }
everything = ["style", "test"]
"""


def test_poe_tasks_are_read_by_what_they_run(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"pyproject.toml": POE_PYPROJECT})
    assert "poe format-ruff" in sheet.commands["lint"]  # its fixer is a linter's
    assert "poe style" in sheet.commands["format"]
    assert "poe docs-check" in sheet.commands["lint"]
    assert "poe everything" in sheet.commands["test"]  # a sequence with the tests
    assert not any("_clean" in command for command in sheet.offered())


def test_poe_sequences_refs_and_deps_name_tasks() -> None:
    tasks = poe_tasks(
        {
            "a": {"ref": "b --fast"},
            "b": {"sequence": ["c", {"shell": "ruff check\nmypy ."}], "deps": ["d"]},
            "c": {"script": "pkg.tasks:main"},
            "d": "pytest",
        }
    )
    assert tasks["a"].needs == ["b"]
    assert tasks["b"].needs == ["d", "c"]
    assert tasks["b"].lines == ["ruff check", "mypy ."]
    assert tasks["c"].lines == []


POE_DEPENDENCY = '\n[tool.poetry.group.dev.dependencies]\npoethepoet = "*"\n'


def test_poe_typed_bare_where_the_docs_type_it_so(tmp_path: Path) -> None:
    tree = {
        "pyproject.toml": POE_PYPROJECT + POE_DEPENDENCY,
        "poetry.lock": "",
        "CONTRIBUTING.md": "# Contributing\n\nRun the tests:\n\n```\npoe test\n```\n",
    }
    sheet = project(tmp_path, tree)
    assert "poe style" in sheet.commands["format"]
    assert "poetry run poe style" not in sheet.commands["format"]


ROOT_MAKEFILE = """\
.PHONY: test
test:
\tcargo test --all-features
\t$(MAKE) -C bindings/python test

go-test:
\tcd port-go; go test ./...
"""
PYTHON_MAKEFILE = """\
.PHONY: develop test format
develop:
\tmaturin develop

test: develop
\tpytest

format:
\tblack python tests
"""
GO_MAKEFILE = "lint:\n\tgo vet ./...\n\nformat:\n\tgofmt -w .\n"


def test_a_parts_makefile_is_offered_as_typed_from_the_root(tmp_path: Path) -> None:
    tree = {
        "Cargo.toml": '[package]\nname = "mylib"\nversion = "0.1.0"\n',
        "Makefile": ROOT_MAKEFILE,
        "bindings/python/Makefile": PYTHON_MAKEFILE,
        "bindings/python/pyproject.toml": '[project]\nname = "mylib-py"\n',
        "port-go/Makefile": GO_MAKEFILE,
        "docs/Makefile": "html:\n\tsphinx-build -b html . _build\n",
    }
    sheet = project(tmp_path, tree)
    assert "make -C bindings/python develop" in sheet.commands["setup"]
    assert "make -C bindings/python format" in sheet.commands["format"]
    assert "make -C port-go lint" in sheet.commands["lint"]
    assert "make -C port-go format" in sheet.commands["format"]
    assert not any(command.startswith("make -C docs") for command in sheet.offered())


def test_member_folders_are_those_make_runs_or_works_in() -> None:
    text = "a:\n\t$(MAKE) -C sub/x test\n\tcd ../out && make\n\tmake --directory=y\n\tcd z; ls\n"
    assert member_folders([text]) == ["sub/x", "y", "z"]
    assert member_folders(["cd . && make", "make -C /etc"]) == []
