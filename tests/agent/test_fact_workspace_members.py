"""A workspace member's own scripts, offered where CI works in that member, on a real tree
drawn from a pnpm monorepo whose package lives in ``packages/``."""

from __future__ import annotations

import json
from pathlib import Path

from fact_support import project

from serena_memory.agent.project_facts.sheet import FactSheet

ROOT_SCRIPTS = {"build": "pnpm -r --filter=./packages/* build", "test": "vitest run",
                "lint": "eslint", "format": "prettier --write ."}  # fmt: skip
MEMBER_SCRIPTS = {
    "build": "node scripts/process-messages && rollup -c",
    "check": "tsc --project tsconfig.runtime.json && tsc",
    "check:tsgo": "tsgo --project tsconfig.runtime.json",
    "generate": "node scripts/process-messages && node scripts/generate-types.js",
    "generate:browser-support": "node scripts/generate-browser-support.js",
}
WORKFLOW = """\
on: [push, pull_request]
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - run: pnpm install --frozen-lockfile
      - run: pnpm lint
      - run: cd packages/svelte && pnpm check:tsgo
"""


def monorepo(tmp_path: Path, workflow: str = WORKFLOW) -> FactSheet:
    return project(
        tmp_path,
        {
            "package.json": json.dumps({"scripts": ROOT_SCRIPTS}),
            "pnpm-lock.yaml": "",
            "pnpm-workspace.yaml": "packages:\n  - packages/*\n",
            "packages/svelte/package.json": json.dumps({"scripts": MEMBER_SCRIPTS}),
            "packages/svelte/src/index.js": "",
            ".github/workflows/ci.yml": workflow,
        },
    )


def test_the_member_ci_works_in_has_its_scripts_offered(tmp_path: Path) -> None:
    sheet = monorepo(tmp_path)
    assert "cd packages/svelte && pnpm check" in sheet.commands["typecheck"]
    assert "cd packages/svelte && pnpm build" in sheet.commands["build"]
    # code generation is a build, whatever it generates
    for script in ("generate", "generate:browser-support"):
        assert f"cd packages/svelte && pnpm {script}" in sheet.commands["build"]


def test_no_member_is_read_when_ci_works_at_the_root_only(tmp_path: Path) -> None:
    root_only = WORKFLOW.replace("      - run: cd packages/svelte && pnpm check:tsgo\n", "")
    sheet = monorepo(tmp_path, root_only)
    assert not any(command.startswith("cd packages/") for command in sheet.offered())
