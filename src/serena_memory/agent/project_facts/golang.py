"""Go modules: the go tool's everyday commands, and golangci-lint when it is configured."""

from __future__ import annotations

import re

from serena_memory.agent.project_facts.files import Project

MODULE = "go.mod"
GOLANGCI = (".golangci.yml", ".golangci.yaml", ".golangci.toml", ".golangci.json")
_MODULE = re.compile(r"^module\s+(\S+)", re.M)
_VERSION = re.compile(r"^go\s+(\S+)", re.M)
_REQUIRES = re.compile(r"^require\b", re.M)
# golangci-lint 2's own formatters (gofumpt, goimports...): `golangci-lint fmt` runs them
_FORMATTERS = re.compile(r"^(?:formatters:|\[formatters[\].])", re.M)


def module_path(project: Project) -> str | None:
    """The module the project is (``go install MODULE/cmd/x@latest`` installs its release)."""
    text = project.text(MODULE)
    found = _MODULE.search(text[:10_000]) if text else None
    return found.group(1) if found else None


def read_go(project: Project) -> None:
    text = project.text(MODULE)
    if text is None:
        return
    sheet = project.sheet
    config = project.first(*GOLANGCI)
    if config:
        sheet.add_default("lint", "golangci-lint run", config)
    if _REQUIRES.search(text[:100_000]):  # the modules it needs, fetched before a build
        sheet.add_default("setup", "go mod download", MODULE)
    _add_go_default(project, "build", "go build ./...")
    _add_go_default(project, "test", "go test ./...")
    _add_go_default(project, "lint", "go vet ./...")
    if config and _FORMATTERS.search(project.text(config) or ""):
        sheet.add_default("format", "golangci-lint fmt", config)  # the formatters it names
    else:
        _add_go_default(project, "format", "go fmt ./...")  # gofmt -l -w on every package
    module = _MODULE.search(text[:10_000])
    version = _VERSION.search(text[:10_000])
    if module:
        detail = f" (Go {version.group(1)})" if version else ""
        sheet.notes.append(f"Go module `{module.group(1)}`{detail}.")


def _add_go_default(project: Project, kind: str, command: str) -> None:
    """The go tool's everyday command over every package, unless the sheet has it for the
    current package already (the docs' plain `go vet`): one line for one check."""
    tool = command.split()[:2]
    if not any(known.split() == tool for known in project.sheet.commands.get(kind, [])):
        project.sheet.add_default(kind, command, MODULE)
