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


class ConfigError(MemoryStoreError):
    """A configuration file that is unreadable, mistyped or holds an invalid regex."""


class NoProjectError(MemoryStoreError):
    """A memory operation attempted before any project was activated."""
