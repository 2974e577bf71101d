"""The store's read listener that counts reads (core/reads.py names it by default).

Each read appends one line to the usage file of its project, or to the global one for a
global memory (read from any project), under ``$SERENA_HOME/usage``. Counting never fails
nor slows a read noticeably: a usage folder that can't be written, or one held by another
process for long, counts nothing for that read.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

from serena_memory.core import names as N
from serena_memory.core.changes import Provenance, clean
from serena_memory.core.reads import ReadEvent, RenameEvent
from serena_memory.usage import log

_VERSION = re.compile(r"\s+v?[0-9][\w.+-]*$")


def client_of(provenance: Provenance) -> str:
    """Who a usage report names: the MCP client by the name it introduced itself with
    (without its version, so that an update is the same client), else the front-end
    (cli, dashboard)."""
    if provenance.entry_point != "mcp":
        return clean(provenance.entry_point, log.CLIENT_CHARS)
    return clean(_VERSION.sub("", provenance.who), log.CLIENT_CHARS)


def file_of(name: str, project_root: Path) -> str:
    """The usage file that counts ``name``: the global one for a global memory."""
    if N.is_global(name):
        return log.GLOBAL_FILE
    return log.project_file(str(project_root))


class UsageCounter:
    """Appends every read it is told of to the usage files."""

    def memory_read(self, event: ReadEvent) -> None:
        if not log.COUNTING:
            return
        with contextlib.suppress(OSError):
            log.append(
                event.home,
                file_of(event.name, event.project_root),
                event.when,
                client_of(event.provenance),
                event.name,
            )

    def memory_renamed(self, event: RenameEvent) -> None:
        """The old name's reads become the new name's (in the global file when it moved
        between a project and the global memories)."""
        if not log.COUNTING:
            return
        with contextlib.suppress(OSError):
            log.move(
                event.home,
                (file_of(event.old, event.project_root), event.old),
                (file_of(event.new, event.project_root), event.new),
                event.when,
            )


LISTENER = UsageCounter()
