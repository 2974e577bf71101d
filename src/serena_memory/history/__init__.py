"""The history of memory changes: the git engine, recording, restores and the times and
revisions people type.

It implements the change recorder the store announces to (serena_memory.core.changes)."""
