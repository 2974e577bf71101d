"""serena-memory: plain-Markdown memories for coding agents.

The library owns every rule (names, storage, configuration, references, onboarding);
the command line, the MCP server and the dashboard are thin layers over it.
"""

from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.store import Context, MemoryStore

__all__ = ["Context", "MemoryStore", "MemoryStoreError"]
__version__ = "0.1.0"
