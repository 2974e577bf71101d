"""Small slips an agent makes get the same help a person gets on the command line."""

from __future__ import annotations

from pathlib import Path

import anyio
from mcp_support import in_memory, refused, write_memory_file


def test_a_mistyped_name_is_answered_with_the_closest_ones(
    project: Path, serena_home: Path
) -> None:
    write_memory_file(project, "core", "# Core\n")
    write_memory_file(project, "auth/login", "# Login\n")

    async def main() -> None:
        async with in_memory(project) as client:
            await refused(
                client, "read_memory", "not found", "did you mean 'core'?", memory_name="cor"
            )
            await refused(
                client, "delete_memory", "did you mean 'auth/login'?", memory_name="auth/logn"
            )

    anyio.run(main)


def test_an_ambiguous_edit_names_the_argument_that_allows_it(
    project: Path, serena_home: Path
) -> None:
    write_memory_file(project, "core", "x x\n")

    async def main() -> None:
        async with in_memory(project) as client:
            await refused(
                client,
                "edit_memory",
                "matches 2 times",
                "`allow_multiple_occurrences: true`",
                memory_name="core",
                needle="x",
                repl="y",
                mode="literal",
            )

    anyio.run(main)
