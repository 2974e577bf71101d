"""serena-memory: plain-Markdown memories for coding agents.

The library owns every rule (names, storage, configuration, references, onboarding);
the command line, the MCP server and the dashboard are thin layers over it.
"""

from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.store import Context, MemoryStore

__all__ = ["Context", "MemoryStore", "MemoryStoreError"]


def __getattr__(name: str) -> str:
    """``__version__`` is read from the installed package's metadata (pyproject's
    ``version``, written nowhere else), on first use: importing importlib.metadata costs
    the command line's cold start about 20 ms, which only a version printed needs."""
    if name == "__version__":
        from importlib.metadata import version

        return version("serena-memory")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
