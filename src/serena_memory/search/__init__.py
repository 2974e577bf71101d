"""Ranked search over the memories: the index and its embedding model."""
