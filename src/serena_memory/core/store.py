"""The memory store: every rule about memories, used by the CLI, MCP server and dashboard.

Agent context versus human context is a constructor parameter, not a second code path:
read-only patterns bind the agent; ignored patterns bind everyone.

:class:`MemoryStore` is built from one part per subject, each in its own module, each
building on the ones below it:

- ``store_access``: the folders, the configuration, the path gate and the access rules;
- ``store_journal``: the locks every change holds, and the rename journal run and
  recovered under them;
- ``store_recording``: how changes are announced to the history;
- ``store_reading``: listing and reading;
- ``store_writing``: creating, editing, updating and deleting texts;
- ``store_versions``: exact versions from a restore or a sync;
- ``store_rename``: renames, with the references they rewrite.

Callers import the store and its results from here.
"""

from __future__ import annotations

from serena_memory.core.store_access import Context, Names
from serena_memory.core.store_journal import JOURNAL_NAME, Folders
from serena_memory.core.store_reading import Memory, MemoryListing, decode_memory
from serena_memory.core.store_recording import HistoryFolders
from serena_memory.core.store_rename import RenameResult, StoreRenaming
from serena_memory.core.store_versions import PLAN_ATTEMPTS, StoreVersions
from serena_memory.core.store_writing import (
    EditResult,
    StoreWriting,
    WriteResult,
    encode_memory,
)

__all__ = [
    "JOURNAL_NAME",
    "PLAN_ATTEMPTS",
    "Context",
    "EditResult",
    "Folders",
    "HistoryFolders",
    "Memory",
    "MemoryListing",
    "MemoryStore",
    "Names",
    "RenameResult",
    "WriteResult",
    "decode_memory",
    "encode_memory",
]


class MemoryStore(StoreWriting, StoreVersions, StoreRenaming):
    """Project memories in ``<project>/.serena/memories`` plus global ones in
    ``$SERENA_HOME/memories/global``, named as :mod:`serena_memory.core.names` defines."""
