"""The store's read listener that counts reads (core/reads.py names it by default).

Each read appends one line to the usage file of its project, or to the global one for a
global memory (read from any project), under ``$SERENA_HOME/usage``. Counting never fails
nor slows a read noticeably: a usage folder that can't be written, or one held by another
process for long, counts nothing for that read.
"""

from __future__ import annotations

import contextlib
import re

from serena_memory.core import names as N
from serena_memory.core.changes import Provenance, clean
from serena_memory.core.reads import ReadEvent
from serena_memory.usage import log

_VERSION = re.compile(r"\s+v?[0-9][\w.+-]*$")


def client_of(provenance: Provenance) -> str:
    """Who a usage report names: the MCP client by the name it introduced itself with
    (without its version, so that an update is the same client), else the front-end
    (cli, dashboard)."""
    if provenance.entry_point != "mcp":
        return clean(provenance.entry_point, log.CLIENT_CHARS)
    return clean(_VERSION.sub("", provenance.who), log.CLIENT_CHARS)


def file_of(event: ReadEvent) -> str:
    if N.is_global(event.name):
        return log.GLOBAL_FILE
    return log.project_file(str(event.project_root))


class UsageCounter:
    """Appends every read it is told of to the usage files."""

    def memory_read(self, event: ReadEvent) -> None:
        if not log.COUNTING:
            return
        with contextlib.suppress(OSError):
            log.append(
                event.home, file_of(event), event.when, client_of(event.provenance), event.name
            )


LISTENER = UsageCounter()
