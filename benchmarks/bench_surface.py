"""What a client shows its model before the first user turn: the server's instructions and
its tool definitions, per context (kind of client), measured from the client's side.

For each context the real server is started over stdio and asked through the SDK's client
(initialize, tools/list), as a client does. Two measures per tool:

- ``defined``: name + description + input schema (compact JSON), what every client turns
  into the model's tool definition;
- ``listed``: the whole tool object as tools/list sends it (json.dumps with its default
  separators), titles and annotations included, an upper bound of what a client may show.

Usage::

    python benchmarks/bench_surface.py                       # this version, every context
    python benchmarks/bench_surface.py --baseline-src /tmp/base/src   # and an earlier checkout

An earlier checkout is run with this interpreter and its ``src`` first on PYTHONPATH; one
without ``--context`` is measured once, with everything it offers. The server is started
without ``--project``, as the entries `serena setup` writes, so ``activate_project`` counts.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ONBOARDED_MEMORIES = (
    "core",
    "tech_stack",
    "suggested_commands",
    "conventions",
    "task_completion",
    "memory_maintenance",
    "retry",
    "option_merging",
)
BUDGET = 3000  # a coding client's instructions + tool definitions, before the first turn


@dataclass
class Surface:
    label: str
    instructions: str
    tools: list[tuple[str, int, int]]  # name, defined, listed

    @property
    def defined(self) -> int:
        return sum(t[1] for t in self.tools)

    @property
    def listed(self) -> int:
        return sum(t[2] for t in self.tools)


def measure(
    command: list[str], env: dict[str, str], label: str, cwd: Path, keep: set[str] | None = None
) -> Surface:
    """Start the server, list its tools through the SDK's client, and measure them."""
    import anyio
    from mcp import Client, StdioServerParameters

    async def run() -> Surface:
        params = StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=cwd)
        async with Client(params, mode="legacy") as client:
            listed = (await client.list_tools()).tools
            rows = []
            for tool in listed:
                if keep is not None and tool.name not in keep:
                    continue
                schema = json.dumps(tool.input_schema, separators=(",", ":"), ensure_ascii=False)
                whole = json.dumps(
                    tool.model_dump(by_alias=True, exclude_none=True, mode="json"),
                    ensure_ascii=False,
                )
                defined = len(tool.name) + len(tool.description or "") + len(schema)
                rows.append((tool.name, defined, len(whole)))
            return Surface(label, client.instructions or "", rows)

    return anyio.run(run)


def _knows_context(command: list[str], env: dict[str, str]) -> bool:
    help_text = subprocess.run(
        [*command, "--help"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    ).stdout
    return "--context" in help_text


def _table(surfaces: list[Surface]) -> str:
    names: list[str] = []
    for surface in surfaces:
        names += [t[0] for t in surface.tools if t[0] not in names]
    head = "| tool | " + " | ".join(f"{s.label} (defined / listed)" for s in surfaces) + " |"
    lines = [head, "|---|" + "---|" * len(surfaces)]
    for name in names:
        cells = []
        for surface in surfaces:
            row = next((t for t in surface.tools if t[0] == name), None)
            cells.append(f"{row[1]:,} / {row[2]:,}" if row else "-")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("| **tools** | " + " | ".join(str(len(s.tools)) for s in surfaces) + " |")
    lines.append(
        "| **total** | " + " | ".join(f"**{s.defined:,} / {s.listed:,}**" for s in surfaces) + " |"
    )
    lines.append(
        "| instructions | " + " | ".join(f"{len(s.instructions):,}" for s in surfaces) + " |"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-src", type=Path, help="the src folder of an earlier checkout")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="serena-surface-"))
    project, home = work / "project", work / "home"
    project.mkdir()
    home.mkdir()
    (project / "README.md").write_text("# demo\n")
    env = {**os.environ, "SERENA_HOME": str(home)}
    # no --project: activate_project is offered, as in the entries `serena setup` writes
    ours = [sys.executable, "-m", "serena_memory.cli", "start-mcp-server", "--no-dashboard"]
    # a project after its onboarding: the instructions list its memories' names
    onboarded = work / "onboarded"
    (onboarded / ".serena" / "memories").mkdir(parents=True)
    (onboarded / "README.md").write_text("# demo\n")
    for name in ONBOARDED_MEMORIES:
        (onboarded / ".serena" / "memories" / f"{name}.md").write_text(f"# {name}\n")
    surfaces = []
    for context in ("coding", "desktop"):
        command = [*ours, "--context", context]
        surfaces.append(measure(command, env, context, project))
    surfaces.append(measure([*ours, "--context", "coding"], env, "coding, 8 memories", onboarded))
    if args.baseline_src is not None:
        base_env = {**env, "PYTHONPATH": str(args.baseline_src.resolve())}
        if _knows_context(ours, base_env):
            for context in ("coding", "desktop"):
                command = [*ours, "--context", context]
                surfaces.append(measure(command, base_env, f"baseline {context}", project))
        else:
            surfaces.append(measure(ours, base_env, "baseline", project))
    print(_table(surfaces))
    worst = 0
    for coding in (surfaces[0], surfaces[2]):
        shown = coding.defined + len(coding.instructions)
        worst = max(worst, shown)
        verdict = "within" if shown <= BUDGET else "OVER"
        print(
            f"\n{coding.label}: {shown:,} characters before the first turn "
            f"({coding.defined:,} defined + {len(coding.instructions):,} instructions), "
            f"{verdict} {BUDGET:,}"
        )
    return 0 if worst <= BUDGET else 1


if __name__ == "__main__":
    sys.exit(main())
