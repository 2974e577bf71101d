"""One exception family, so every entry point can turn failures into a clear message."""


class MemoryStoreError(Exception):
    """Base of every error a user should see as a one-line message, never a traceback."""


class InvalidNameError(MemoryStoreError):
    """A memory name that cannot be used (empty, escaping its folder, reserved...)."""


class MemoryNotFoundError(MemoryStoreError):
    pass


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
