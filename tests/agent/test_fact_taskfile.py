"""A Taskfile's tasks read by what they run, with the Taskfiles it includes, on real trees
drawn from a Go project whose docs site has its own Taskfile."""

from __future__ import annotations

from pathlib import Path

from fact_support import project

from serena_memory.agent.project_facts.sheet import FactSheet

TASKFILE = """\
version: '3'

includes:
  website:
    aliases: [w]
    taskfile: ./website
    dir: ./website

vars:
  BIN: "{{.ROOT_DIR}}/bin"

tasks:
  default:
    cmds:
      - task: lint
      - task: test

  run:
    cmds:
      - go run ./cmd/task {{.CLI_ARGS}}

  install:
    cmds:
      - go install -v ./cmd/task

  generate:mocks:
    deps: [install:mockery]
    cmds:
      - find . -type f -name *_mock.go -delete
      - "{{.BIN}}/mockery"

  install:mockery:
    cmds:
      - GOBIN="{{.BIN}}" go install github.com/vektra/mockery/v3@v3.2.2

  gotestsum:install:
    cmds:
      - go install gotest.tools/gotestsum@latest

  mod:
    cmds:
      - go mod download
      - go mod tidy

  lint:
    cmds:
      - golangci-lint run

  test:
    deps: [gotestsum:install]
    cmds:
      - gotestsum -f '{{.GOTESTSUM_FORMAT}}' ./...

  release:*:
    cmds:
      - "go run ./cmd/release {{.VERSION}}"
      - git push
"""

WEBSITE_TASKFILE = """\
version: '3'
tasks:
  install:
    cmds:
      - pnpm install
  default:
    deps: [install]
    cmds:
      - pnpm dev --host={{.HOST}} --port={{.PORT}}
  start:latest:
    cmds:
      - task: default
        vars: { CHANNEL: latest }
  build:
    deps: [install]
    cmds:
      - pnpm build
  deploy:prod:
    deps: [build]
    cmds:
      - pnpm netlify deploy --prod --no-build
"""


def go_project(tmp_path: Path) -> FactSheet:
    return project(
        tmp_path,
        {
            "go.mod": "module example.com/task\n\ngo 1.24\n",
            "main.go": "package main\n",
            "Taskfile.yml": TASKFILE,
            "website/Taskfile.yml": WEBSITE_TASKFILE,
            "website/package.json": '{"scripts": {"dev": "vitepress dev"}}',
            "mise.toml": '[tools]\ngo = "1.24"\ngolangci-lint = "2.1.0"\n',
        },
    )


def test_the_default_task_is_task_alone_and_runs_the_tests_and_the_linter(tmp_path: Path) -> None:
    sheet = go_project(tmp_path)
    assert sheet.commands["test"][:2] == ["task", "task test"]
    assert "task lint" in sheet.commands["lint"]
    assert "task default" not in sheet.offered()


def test_a_task_is_read_by_its_body_not_its_name(tmp_path: Path) -> None:
    sheet = go_project(tmp_path)
    # `install` builds the project's program and puts it on the system: a build
    assert "task install" in sheet.commands["build"]
    # installing a tool the work needs, or downloading the modules, sets up
    for task in ("task gotestsum:install", "task install:mockery", "task mod"):
        assert task in sheet.commands["setup"]
    # named for code generation, its body says nothing a person could type
    assert "task generate:mocks" in sheet.commands["build"]
    assert "task run" in sheet.commands["run"]
    # a wildcard task needs its argument, and this one releases
    assert not any(command.startswith("task release") for command in sheet.offered())


def test_an_included_taskfile_adds_its_tasks_under_the_include_name(tmp_path: Path) -> None:
    sheet = go_project(tmp_path)
    assert "task website:install" in sheet.commands["setup"]
    assert "task website:build" in sheet.commands["build"]
    # its default is called by the include's name; a task calling it serves the site too
    assert {"task website", "task website:start:latest"} <= set(sheet.commands["run"])
    assert not any("deploy" in command for command in sheet.offered())


def test_mise_pins_the_tools_so_mise_install_sets_up(tmp_path: Path) -> None:
    sheet = go_project(tmp_path)
    assert "mise install" in sheet.commands["setup"]
    bare = project(tmp_path / "bare", {"mise.toml": '[env]\nX = "1"\n', "go.mod": "module m\n"})
    assert "mise install" not in bare.offered()


def test_ci_installs_of_a_tool_are_no_set_up_but_the_docs_are(tmp_path: Path) -> None:
    workflow = """\
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: cargo install cargo-hack
      - run: cargo hack check --each-feature
"""
    contributing = "## Setup\n\n```sh\ncargo install cargo-watch\n```\n"
    sheet = project(
        tmp_path,
        {
            "Cargo.toml": '[package]\nname = "x"\n',
            "src/lib.rs": "",
            ".github/workflows/ci.yml": workflow,
            "CONTRIBUTING.md": contributing,
        },
    )
    assert "cargo install cargo-watch" in sheet.commands["setup"]
    assert "cargo install cargo-hack" not in sheet.offered()


def test_an_include_outside_the_project_or_remote_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    leak = "version: '3'\ntasks:\n  leak:\n    cmds: [go test ./...]\n"
    (outside / "Taskfile.yml").write_text(leak, encoding="utf-8")
    taskfile = """\
version: '3'
includes:
  up: ../outside
  linked: ./linked
  remote: https://example.com/Taskfile.yml
  self: .
tasks:
  test:
    cmds: [go test ./...]
"""
    root = tmp_path / "p"
    root.mkdir()
    (root / "linked").symlink_to(outside, target_is_directory=True)
    sheet = project(root, {"go.mod": "module m\n", "Taskfile.yml": taskfile})
    assert not any("leak" in command for command in sheet.offered())
    # a file including itself adds its tasks once more under the include's name, no deeper
    assert "task test" in sheet.commands["test"]
