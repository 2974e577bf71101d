"""Problems of the history, said once to the operation that met them.

Recording never fails a write: what went wrong is told to the open operation
(:mod:`serena_memory.core.operation`), whose front-end shows it after the operation it
concerns. Kept apart from the engine so that a front-end can take the notices without
loading git.
"""

from __future__ import annotations

from serena_memory.core import operation


def report(key: str, message: str) -> None:
    """Say a problem of the history once (until it is cleared by a success) to the open
    operation (core/operation.py), whose front-end shows it; outside any operation, to the
    process-wide receiver that :func:`take_notices` empties. A problem that is over is
    cleared on the receiver itself (:meth:`~serena_memory.core.operation.Operation.clear`)."""
    if not operation.receiver().tell(operation.HISTORY, message, key):
        return
    import logging  # only when there is something to report: keeps the CLI's start quick

    logging.getLogger("serena_memory.history").warning(message)


def take_notices() -> list[str]:
    """Problems met while recording since the last call, each said once (front-ends show
    them after the operation they concern): the open operation's, else those met outside
    any operation."""
    return operation.receiver().take(operation.HISTORY)
