"""The error vocabulary: one exception family, and the one sentence a user sees for any
failure.

Every front-end (command line, MCP server, dashboard) turns an exception into words with
:func:`describe` and nothing else, so the same failure reads the same everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Remedy:
    """What to do next, as an operation of the library rather than a command: each
    front-end words it (`serena memories history NAME` on the command line, the
    `memory_history` tool for an agent)."""

    operation: str  # "history", "list", "conflicts"; or "" with an option
    memory: str = ""
    option: str = ""  # a parameter of the same operation to give: "allow_multiple_occurrences"


Wording = Callable[[Remedy], str]


def command_line_wording(remedy: Remedy) -> str:
    """A remedy as the command a person types."""
    if remedy.option:
        return f"`--{remedy.option.replace('_', '-')}`"
    memory = f" {remedy.memory}" if remedy.memory else ""
    return f"`serena memories {remedy.operation}{memory}`"


class MemoryStoreError(Exception):
    """Base of every error a user should see as a one-line message, never a traceback.

    ``remedy``: what to do, worded by the front-end after the message (which ends where
    the remedy's words go, e.g. "pick an entry with ")."""

    def __init__(self, *args: object, remedy: Remedy | None = None) -> None:
        super().__init__(*args)
        self.remedy = remedy

    def worded(self, wording: Wording) -> str:
        text = super().__str__()
        return text + wording(self.remedy) if self.remedy is not None else text

    def __str__(self) -> str:
        return self.worded(command_line_wording)


class InvalidNameError(MemoryStoreError):
    """A memory name that cannot be used (empty, escaping its folder, reserved...)."""


class MemoryNotFoundError(MemoryStoreError):
    """``name``: the memory that was asked for, when known, so a front-end can suggest the
    closest existing names."""

    def __init__(self, *args: object, remedy: Remedy | None = None, name: str = "") -> None:
        super().__init__(*args, remedy=remedy)
        self.name = name


class MemoryExistsError(MemoryStoreError):
    pass


class ReadOnlyMemoryError(MemoryStoreError):
    pass


class IgnoredMemoryError(MemoryStoreError):
    pass


class EditError(MemoryStoreError):
    """An edit whose needle matched nothing, too much, or ambiguously."""


class MemoryEncodingError(MemoryStoreError):
    pass


class ContentTooLongError(MemoryStoreError):
    pass


class PatternError(MemoryStoreError):
    """A regular expression from outside that does not compile or cannot run."""


class PatternTimeoutError(PatternError):
    """A regular expression from outside that ran past its time limit and was stopped."""


class ConfigError(MemoryStoreError):
    """A configuration file that is unreadable, mistyped or holds an invalid regex."""


class NoProjectError(MemoryStoreError):
    """A memory operation attempted before any project was activated."""


class NotAProjectError(MemoryStoreError):
    """A project folder that is missing, a file, or a folder that is never a project (the
    file-system root, the home folder)."""


class OutsidePathError(MemoryStoreError):
    """A memory file or folder that is a symlink leading outside the allowed folders."""


class NotAMemoryFileError(MemoryStoreError):
    """A memory that is not a regular file (a fifo, a socket, a device)."""


class MemoryTooLargeError(MemoryStoreError):
    """A memory file over the size limit, refused before it is read whole."""


class MemoryChangedError(MemoryStoreError):
    """A conditional write refused because the memory changed since it was read; carries
    what is on disk now so the caller can show both versions."""

    def __init__(
        self, message: str, name: str, current: str | None, current_version: str | None
    ) -> None:
        super().__init__(message)
        self.name = name
        self.current = current  # None: the memory does not exist (any more)
        self.current_version = current_version


class AgentWritesError(MemoryStoreError):
    """The agent's change is refused by ``memory_agent_writes`` (read-only, or a change
    that review mode can't turn into a proposal)."""


class ProposalError(MemoryStoreError):
    """A proposal can't be found, read or applied (a conflict, a damaged file)."""


class RenameJournalError(MemoryStoreError):
    """A rename journal that is not replayed (malformed, foreign or unsafe): changes wait
    until a person removes it, reading and listing go on."""


class HistoryError(MemoryStoreError):
    """The history of a memories folder can't be read or has no such revision."""


class SyncError(MemoryStoreError):
    """A sync could not be done: no remote, the remote can't be reached, git is missing."""


EXPECTED_ERRORS: tuple[type[BaseException], ...] = (
    MemoryStoreError,
    OSError,
    UnicodeError,
    RecursionError,
    MemoryError,
)
"""Failures caused by the input or the machine, not by a bug: a front-end reports them with
:func:`describe` and goes on (or exits with status 1)."""


def describe(exc: BaseException, wording: Wording = command_line_wording) -> str:
    """The one sentence a person or an agent reads for ``exc``; never a traceback.

    Library errors carry their own sentence, with their remedy in the front-end's
    ``wording`` (commands by default). The others come from Python or the operating
    system and are worded here: a file-system error names the file it concerns, input that
    is not UTF-8 says so, input nested too deeply to process says to simplify it.
    """
    if isinstance(exc, MemoryStoreError):
        return exc.worded(wording)
    if isinstance(exc, UnicodeDecodeError):
        return (
            f"the input is not valid UTF-8 ({exc.reason} at byte {exc.start}); "
            "save it as UTF-8 and try again"
        )
    if isinstance(exc, UnicodeError):
        return f"the text can't be encoded ({exc}); remove the characters it names"
    if isinstance(exc, RecursionError):
        return "the input is nested too deeply to process (a pattern or a document); simplify it"
    if isinstance(exc, MemoryError):
        return "the input is too large to process; split it into smaller parts"
    if isinstance(exc, OSError):
        where = exc.filename2 or exc.filename  # a rename's target, not its temporary file
        reason = exc.strerror or str(exc) or type(exc).__name__
        return f"file system error: {reason}" + (f" ({where})" if where else "")
    return f"unexpected {type(exc).__name__}: {exc}"
