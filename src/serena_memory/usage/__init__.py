"""How often each memory is read, counted on this machine only.

The counts live under ``$SERENA_HOME/usage/`` (outside every project: never committed,
never synced), one small append-only file per project and one for the global memories.
:mod:`serena_memory.usage.log` keeps the files, :mod:`serena_memory.usage.counting` is the
store's read listener that appends to them, :mod:`serena_memory.usage.report` turns them
into each memory's reads, last read and clients.
"""
