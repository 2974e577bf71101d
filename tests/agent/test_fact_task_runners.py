"""Task runners read by what their tasks run, on repositories the fact sheet was not tuned
on: PDM's scripts, hatch scripts that call their environment's other scripts, the tools
pre-commit runs, Makefiles whose default goal is a file or whose targets install into the
system, documented shells with their output, CI steps that download dependencies or run
for tags only, and a docs host's own commands.

The fixtures are short excerpts of public repositories' files (pdm, mkdocs, urllib3,
cli/cli, fd, vite, clap), cut down to the lines that matter."""

from __future__ import annotations

from pathlib import Path

from fact_support import project

from serena_memory.agent.project_facts.sheet import FactSheet


def offered(sheet: FactSheet) -> set[str]:
    return sheet.offered()


# pdm-project/pdm pyproject.toml (cut)
PDM_PYPROJECT = """\
[project]
name = "pdm"
[tool.pdm.scripts]
pre_release = "python tasks/max_versions.py"
release = "python tasks/release.py"
test = "pytest"
tox = "tox"
pre_doc = "python tasks/render_reference_docs.py"
lint = "prek run --all-files"
[tool.pdm.scripts.coverage]
shell = "python -m pytest --verbosity=3 --cov=src/pdm --cov-branch tests/"
[tool.pdm.scripts.doc]
cmd = "zensical serve"
help = "Start the dev server for docs preview"
[tool.pdm.scripts.doc-build]
composite = ["pre_doc", "zensical build"]
[tool.pdm.scripts.complete]
call = "tasks.complete:main"
"""


def test_pdm_scripts_are_offered_by_what_they_run(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"pyproject.toml": PDM_PYPROJECT, "pdm.lock": ""})
    assert {"pdm run test", "pdm run tox", "pdm run coverage"} <= set(sheet.commands["test"])
    assert "pdm run lint" in sheet.commands["lint"]
    assert sheet.commands["run"][0] == "pdm run doc"  # a docs server, though named `doc`
    assert "pdm run doc-build" in sheet.commands["build"]
    shown = offered(sheet)
    assert not {"pdm run release", "pdm run pre_release", "pdm run complete"} & shown


# mkdocs/mkdocs pyproject.toml (cut)
MKDOCS_HATCH = """\
[project]
name = "mkdocs"
[tool.hatch.envs.style]
detached = true
[tool.hatch.envs.style.scripts]
check = ["isort --check-only --diff mkdocs docs", "black -q --check --diff mkdocs docs", "lint"]
lint = ["ruff check mkdocs docs {args}"]
fix = ["lint --fix", "format"]
format = ["isort -q mkdocs docs", "black -q mkdocs docs"]
[tool.hatch.envs.lint.scripts]
markdown = "npm exec --yes -- markdownlint-cli README.md CONTRIBUTING.md docs/ --ignore docs/CNAME"
js = "npm exec --yes -- jshint mkdocs/"
check = ["markdown", "js"]
"""


def test_hatch_scripts_that_call_their_environments_scripts(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"pyproject.toml": MKDOCS_HATCH})
    lint = sheet.commands["lint"]
    # a check of formatters and a linter is a lint; a fixer's parts are offered as typed
    assert {"hatch run style:check", "hatch run style:lint --fix"} <= set(lint)
    assert {"hatch run lint:markdown", "hatch run lint:js", "hatch run lint:check"} <= set(lint)
    assert {"hatch run style:fix", "hatch run style:format"} <= set(sheet.commands["format"])
    assert "hatch run style:check" not in sheet.commands["format"]
    # the formatters in their writing form too: the fixer's own lines, which say it
    assert {"black -q mkdocs docs", "isort -q mkdocs docs"} <= set(sheet.commands["format"])


# urllib3/urllib3 and pdm-project/pdm .pre-commit-config.yaml (cut)
HOOKS = """\
repos:
  - repo: https://github.com/psf/black-pre-commit-mirror
    rev: 25.1.0
    hooks:
      - id: black
        args: ["--target-version", "py310"]
  - repo: https://github.com/PyCQA/isort
    rev: 6.0.1
    hooks:
      - id: isort
  - repo: https://github.com/PyCQA/flake8
    rev: 7.2.0
    hooks:
      - id: flake8
  - repo: https://github.com/pre-commit/mirrors-mypy
    rev: v2.3.0
    hooks:
      - id: mypy
        args: [src]
        pass_filenames: false
  - repo: local
    hooks:
      - id: local-ty
        entry: uv run ty check
"""


def test_the_tools_pre_commit_runs_are_offered_bare(tmp_path: Path) -> None:
    tree = {".pre-commit-config.yaml": HOOKS, "setup.cfg": "[flake8]\nmax-line-length = 88\n"}
    tree.update({"pyproject.toml": "[project]\nname = 'x'\n", "uv.lock": ""})
    sheet = project(tmp_path, tree)
    assert {"black .", "isort ."} <= set(sheet.commands["format"])
    assert "flake8" in sheet.commands["lint"] and "uv run flake8" not in offered(sheet)
    assert "mypy src" in sheet.commands["typecheck"]


# cli/cli Makefile (cut)
GH_MAKEFILE = """\
EXE =
.PHONY: bin/gh$(EXE)
bin/gh$(EXE): script/build$(EXE)
\t@script/build$(EXE) $@

.PHONY: manpages
manpages: script/build$(EXE)
\t@$< $@

.PHONY: acceptance
acceptance:
\tgo test -tags acceptance ./acceptance

prefix  := /usr/local
bindir  := ${prefix}/bin
.PHONY: install
install: bin/gh manpages
\tinstall -d ${DESTDIR}${bindir}
\tinstall -m755 bin/gh ${DESTDIR}${bindir}/

.PHONY: macospkg
macospkg: manpages
ifndef VERSION
\t$(error VERSION is not set. Use `make macospkg VERSION=vX.Y.Z`)
endif
\t./script/release --local "$(VERSION)" --platform macos
\t./script/pkgmacos $(VERSION)
"""


def test_a_makefile_read_by_its_recipes(tmp_path: Path) -> None:
    sheet = project(tmp_path, {"Makefile": GH_MAKEFILE, "go.mod": "module x\n"})
    assert sheet.commands["build"][0] == "make"  # its first rule makes bin/gh
    assert "make acceptance" in sheet.commands["test"]  # `-tags` tags no release
    assert not {"make install", "make macospkg"} & offered(sheet)
    assert not any("$" in command for command in offered(sheet))


# sharkdp/fd Makefile and .github/workflows/CICD.yml (cut)
FD_MAKEFILE = """\
PROFILE=release
EXE=target/$(PROFILE)/fd
$(EXE): Cargo.toml src/**/*.rs
\tcargo build --profile $(PROFILE) --locked

install: $(EXE)
\tinstall -Dm755 $(EXE) $(DESTDIR)$(bindir)/fd
"""
FD_CI = """\
name: CICD
on: [push, pull_request]
jobs:
  lint_check:
    runs-on: ubuntu-latest
    steps:
    - name: Ensure `cargo fmt` has been run
      run: cargo fmt -- --check
"""


def test_a_rust_makefile_builds_and_a_checked_format_is_written(tmp_path: Path) -> None:
    tree = {"Makefile": FD_MAKEFILE, "Cargo.toml": "[package]\nname = 'fd-find'\n"}
    sheet = project(tmp_path, {**tree, ".github/workflows/CICD.yml": FD_CI})
    assert sheet.commands["build"][0] == "make"
    assert "make install" not in offered(sheet)
    assert sheet.commands["format"] == ["cargo fmt -- --check", "cargo fmt"]


# urllib3/urllib3 docs/contributing.rst and mkdocs/mkdocs CONTRIBUTING.md (cut)
URLLIB3_DOCS = """\
Running the tests
-----------------

You can run our ``nox`` suite::

  $ nox --reuse-existing-virtualenvs --sessions test
  [ Nox will create virtualenv if needed, install the specified dependencies.]
  .......
  nox > Session test-3.10 was successful.
  nox > Session test-pypy was successful.
"""
MKDOCS_DOCS = """\
## Documentation

> INFO: If you don't want to use Hatch, install requirements into a virtualenv:
>
> ```bash
> .venv/bin/pip install -r requirements/requirements-docs.txt  # Exact versions.
> ```
"""


def test_documented_output_and_quoted_fences(tmp_path: Path) -> None:
    sheet = project(tmp_path / "u", {"docs/contributing.rst": URLLIB3_DOCS})
    assert "nox --reuse-existing-virtualenvs --sessions test" in sheet.commands["test"]
    assert not any("Session" in command for command in offered(sheet))  # nox's output
    sheet = project(tmp_path / "m", {"CONTRIBUTING.md": MKDOCS_DOCS, "setup.py": ""})
    assert "pip install -r requirements/requirements-docs.txt" in sheet.commands["setup"]


# cli/cli go.yml, pydantic/pydantic ci.yml and vitejs/vite netlify.toml (cut)
GO_CI = """\
name: Unit and Integration Tests
on: [push, pull_request]
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - name: Download dependencies
        run: go mod download
      - name: Run unit and integration tests
        run: go test -race -tags=integration ./...
  build-package:
    if: startsWith(github.ref, 'refs/tags/')
    runs-on: ubuntu-latest
    steps:
      - name: Build the library
        run: python -m build
"""
NETLIFY = """\
[build]
publish = "docs/.vitepress/dist"
command = "pnpm ci-docs"
ignore = "./scripts/docs-check.sh"
"""
VITE_PACKAGE = '{"scripts": {"build": "pnpm -r build", "ci-docs": "pnpm build && pnpm docs"}}'


def test_ci_setup_steps_tag_jobs_and_a_docs_hosts_commands(tmp_path: Path) -> None:
    sheet = project(tmp_path / "go", {"go.mod": "module x\n", ".github/workflows/go.yml": GO_CI})
    assert sheet.commands["setup"] == ["go mod download"]
    assert "go test -race -tags=integration ./..." in sheet.commands["test"]
    assert "python -m build" not in offered(sheet)  # the tag's release job
    tree = {"netlify.toml": NETLIFY, "package.json": VITE_PACKAGE, "pnpm-lock.yaml": ""}
    tree["scripts/docs-check.sh"] = "#!/bin/bash\ngit diff --quiet HEAD docs package.json\n"
    sheet = project(tmp_path / "vite", tree)
    assert "pnpm build" in sheet.commands["build"]
    assert not {"pnpm ci-docs", "scripts/docs-check.sh", "bash scripts/docs-check.sh"} & offered(
        sheet
    )


def test_a_toolchains_cargo_is_cargo(tmp_path: Path) -> None:
    ci = GO_CI.replace("go mod download", "cargo +stable check --workspace --all-features")
    sheet = project(tmp_path, {"Cargo.toml": "[workspace]\n", ".github/workflows/ci.yml": ci})
    assert "cargo +stable check --workspace --all-features" in sheet.commands["typecheck"]


# fastapi/fastapi scripts/docs.py and .pre-commit-config.yaml (cut)
DOCS_PY = '''\
import typer

app = typer.Typer()


@app.command()
def build_lang(lang: str = typer.Argument(...)) -> None:
    """Build the docs for a language."""


@app.command()
def build_all() -> None:
    """Build the full translated docs site into ./site/."""


@app.command()
def update_languages() -> None:
    """Update the docs config Languages section."""


@app.command()
def live() -> None:
    """Serve the English docs with livereload."""
'''
FASTAPI_HOOKS = """\
repos:
  - repo: local
    hooks:
      - id: update-languages
        entry: uv run ./scripts/docs.py update-languages
        pass_filenames: false
"""


def test_a_python_cli_scripts_commands_by_their_verbs(tmp_path: Path) -> None:
    tree = {"scripts/docs.py": DOCS_PY, ".pre-commit-config.yaml": FASTAPI_HOOKS}
    sheet = project(tmp_path, {**tree, "pyproject.toml": "[project]\nname = 'x'\n"})
    assert "uv run ./scripts/docs.py build-all" in sheet.commands["build"]
    assert "uv run ./scripts/docs.py live" in sheet.commands["run"]
    shown = " ".join(offered(sheet))
    assert "build-lang" not in shown and "update-languages" not in shown


# clap-rs/clap Makefile and .github/workflows/ci.yml (cut)
CLAP_MAKEFILE = """\
_FEATURES_full = --features "deprecated derive cargo env unicode string wrap_help"
_FEATURES_release = ${_FEATURES_full} --release

check-%:
\tcargo check ${_FEATURES_${@:check-%=%}} --all-targets ${ARGS}

build-%:
\tcargo test ${_FEATURES_${@:build-%=%}} --all-targets --no-run ${ARGS}

clippy-%:
\tcargo clippy ${_FEATURES_${@:clippy-%=%}} ${ARGS} --all-targets -- -D warnings
"""
CLAP_CI = """\
name: CI
on: [push, pull_request]
jobs:
  check:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        features: [full, release]
    steps:
      - name: Check
        run: make check-${{ matrix.features }}
      - name: Build
        run: make build-${{ matrix.features }}
  clippy:
    runs-on: ubuntu-latest
    steps:
      - name: Lint (release)
        run: make clippy-release
"""


def test_ci_runs_a_makefiles_pattern_rules_by_their_recipes(tmp_path: Path) -> None:
    tree = {"Makefile": CLAP_MAKEFILE, ".github/workflows/ci.yml": CLAP_CI}
    sheet = project(tmp_path, {**tree, "Cargo.toml": "[workspace]\n"})
    assert sheet.commands["typecheck"] == ["make check-full", "make check-release"]
    assert {"make build-full", "make build-release"} <= set(sheet.commands["build"])
    assert "make clippy-release" in sheet.commands["lint"]  # `release` is a feature set
    assert not any("%" in command for command in offered(sheet))


def test_ci_runs_a_shell_script_of_another_folder(tmp_path: Path) -> None:
    # fastify/fastify .github/workflows/integration.yml (cut)
    ci = GO_CI.replace("go mod download", "bash integration/test.sh")
    tree = {"package.json": '{"scripts": {"test": "npm run lint"}}', ".github/workflows/i.yml": ci}
    sheet = project(tmp_path, {**tree, "integration/test.sh": "#!/bin/bash\nnpm test\n"})
    assert "bash integration/test.sh" in sheet.commands["test"]
