"""Sync through git remotes: transport, merges, conflicts, automatic sync, team memories.

A merge is written through the store's public operations and recorded in the history."""
