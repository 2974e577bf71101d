"""`python -m serena_memory.cli` runs the `serena` command."""

from serena_memory.cli import main

main()
