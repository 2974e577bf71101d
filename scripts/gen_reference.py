"""Write the command and tool references in docs/reference/ from the code itself.

- docs/reference/cli.md: the help of every `serena` command, as click prints it;
- docs/reference/tools.md: every MCP tool of the registry (`serena_memory.agent.tools`), by
  group, as the server lists it to a client (tools/list, asked in-process through the SDK's
  own client): its description and its parameters;
- docs/reference/settings.md: every setting of the configuration files, from their
  declaration (`serena_memory.core.settings_schema`): where it may be written, what value
  it takes, its default and what it does.

Usage: ``python scripts/gen_reference.py`` rewrites the three files; ``--check`` writes nothing
and exits with status 1 when a file differs from what the code says (the test suite runs
this check, so the references can't drift).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import click

REPO = Path(__file__).resolve().parent.parent
CLI_DOC = REPO / "docs" / "reference" / "cli.md"
TOOLS_DOC = REPO / "docs" / "reference" / "tools.md"
SETTINGS_DOC = REPO / "docs" / "reference" / "settings.md"
WIDTH = 78  # what click wraps at on any terminal of 80 columns or more
NOTE = "<!-- Generated from the code by scripts/gen_reference.py; edit the code, not this. -->"


def cli_reference() -> str:
    from serena_memory.cli import cli

    parts = [
        "# Command reference",
        "",
        NOTE,
        "",
        "Every `serena` command with its `--help`. The guide to using them is "
        "[docs/cli.md](../cli.md).",
    ]

    def walk(command: click.Command, parent: click.Context | None, name: str) -> None:
        ctx = click.Context(
            command,
            info_name=name,
            parent=parent,
            terminal_width=WIDTH,
            max_content_width=WIDTH,
            **command.context_settings,
        )
        path = ctx.command_path
        parts.extend(["", f"## {path}", "", "```text", command.get_help(ctx), "```"])
        if isinstance(command, click.Group):
            for sub in sorted(command.list_commands(ctx)):
                child = command.get_command(ctx, sub)
                if child is not None and not child.hidden:
                    walk(child, ctx, sub)

    walk(cli, None, "serena")
    return "\n".join(parts) + "\n"


async def _list_tools() -> list[Any]:
    from mcp import Client

    from serena_memory.mcp.server import create_server

    # No project, no modes, the desktop context: every tool is on offer, activate_project
    # included.
    _state, server = create_server(None, (), use_default_project=False, context="desktop")
    async with Client(server) as client:
        return list((await client.list_tools()).tools)


def _type_of(schema: dict[str, Any]) -> str:
    if "enum" in schema:
        return " or ".join(f"`{json.dumps(value)}`" for value in schema["enum"])
    if "anyOf" in schema:
        return " or ".join(_type_of(option) for option in schema["anyOf"])
    if schema.get("type") == "array":
        return f"array of {_type_of(schema.get('items', {}))}"
    return str(schema.get("type", "any"))


def _cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def tools_reference() -> str:
    import anyio

    from serena_memory.agent.contexts import CONTEXTS
    from serena_memory.agent.tools import REGISTRY, Group

    listed = {tool.name: tool for tool in anyio.run(_list_tools)}
    if set(listed) != {tool.name for tool in REGISTRY}:
        raise SystemExit(
            f"the server lists {sorted(listed)}, the registry holds {[t.name for t in REGISTRY]}"
        )
    groups = ", ".join(f"{group.value}" for group in Group)
    parts = [
        "# MCP tool reference",
        "",
        NOTE,
        "",
        "Every tool the MCP server offers, as a client lists it (tools/list): the description "
        "the agent reads and the parameters, group by group "
        f"({groups}), and the contexts (kinds of client, `start-mcp-server --context`) that "
        "offer each. Modes may switch tools off; the guide is [docs/mcp.md](../mcp.md).",
    ]
    for entry in REGISTRY:
        tool = listed[entry.name]
        offered = [c.name for c in CONTEXTS.values() if entry.name not in c.excluded_tools]
        contexts = ", ".join(offered)
        parts.extend(
            ["", f"## {tool.name}", "", f"Group: {entry.group.value}. Contexts: {contexts}."]
        )
        parts.extend(["", (tool.description or "").strip()])
        schema = tool.input_schema or {}
        properties: dict[str, Any] = schema.get("properties", {})
        if not properties:
            parts.extend(["", "No parameters."])
            continue
        required = set(schema.get("required", []))
        parts.extend(["", "| Parameter | Type | Default | Description |", "|---|---|---|---|"])
        for name, prop in properties.items():
            default = "required" if name in required else f"`{json.dumps(prop.get('default'))}`"
            parts.append(
                f"| `{name}` | {_cell(_type_of(prop))} | {_cell(default)} | "
                f"{_cell(prop.get('description', ''))} |"
            )
    return "\n".join(parts) + "\n"


def settings_reference() -> str:
    from serena_memory.core import setting_keys
    from serena_memory.core import settings_schema as schema

    parts = [
        "# Settings reference",
        "",
        NOTE,
        "",
        "Every key serena-memory reads from `$SERENA_HOME/serena_config.yml` (the global "
        "file, the person's own) and `PROJECT/.serena/project.yml` (the project's file, which "
        "comes with a cloned repository and so can't widen what the global file allows), as "
        "they are declared and checked. A missing file means the defaults; a key written "
        "with no value (`key:` or `key: null`) is as if it were not written. A value of the "
        "wrong kind, a near-miss of one of these keys (the message names it) or one of them "
        "in the wrong file stops every command with one sentence naming the file, the key "
        "and the problem. The keys Serena's releases write (below) are taken without a "
        "word; any other key is said once on stderr, with the closest known key, and stops "
        "nothing. The guide is [docs/cli.md](../cli.md#configuration).",
    ]
    sections = (
        (schema.BOTH, "Either file", "The project's file and the global file combine as "
         "each setting says."),
        (schema.GLOBAL, "The global file only", "Written in a project's file, these are "
         "refused: a cloned repository must not choose them."),
        (schema.PROJECT, "The project file only", ""),
    )  # fmt: skip
    entries = schema.entries()
    for files, title, intro in sections:
        parts.extend(["", f"## {title}", ""] + ([intro, ""] if intro else []))
        parts.extend(["| Key | Value | Default | What it does |", "|---|---|---|---|"])
        for e in (e for e in entries if e.files == files):
            parts.append(
                f"| `{e.key}` | {_cell(e.expects)} | {_cell(e.default)} | {_cell(e.doc)} |"
            )

    def listed(keys: frozenset[str]) -> str:
        return ", ".join(f"`{k}`" for k in sorted(keys))

    parts.extend(
        [
            "",
            "## Mode files",
            "",
            f"`$SERENA_HOME/modes/NAME.yml` takes {listed(setting_keys.MODE_KEYS)}.",
            "",
            "## Keys of Serena's own tools",
            "",
            "Serena (serena-agent 0.1 to 2.1) keeps its own settings in the same files, "
            "and so do files it wrote that people commit; these keys are accepted without a "
            "word and have no effect here, but for those the tables above list. Written in "
            "the other file, such a key is said once on stderr.",
            "",
            f"- Global file: {listed(setting_keys.SERENA_GLOBAL_KEYS)}.",
            f"- Project file: {listed(setting_keys.SERENA_PROJECT_KEYS)}.",
            f"- Mode files: {listed(setting_keys.SERENA_MODE_KEYS)}.",
        ]
    )
    return "\n".join(parts) + "\n"


def references() -> dict[Path, str]:
    return {
        CLI_DOC: cli_reference(),
        TOOLS_DOC: tools_reference(),
        SETTINGS_DOC: settings_reference(),
    }


def stale(pages: dict[Path, str]) -> list[Path]:
    """The pages whose text on disk differs from what the code says."""
    return [
        path
        for path, text in pages.items()
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare only; write nothing")
    args = parser.parse_args(argv)
    pages = references()
    differing = stale(pages)
    if args.check:
        for path in differing:
            print(f"{path.relative_to(REPO)} is out of date: run python scripts/gen_reference.py")
        return 1 if differing else 0
    for path in differing:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(pages[path], encoding="utf-8")
        print(f"wrote {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
