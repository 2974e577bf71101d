"""Bringing memories in from the tools people use today, and out for agents without MCP.

Each source format has a module that reads its files (untrusted input: :mod:`.sources`
checks sizes, links and encodings) into an :class:`~.plan.ImportPlan`; :mod:`.plan` writes
a plan through the store as one history entry. :mod:`.export` writes the generated
section of an ``AGENTS.md`` or ``CLAUDE.md`` and the bundle of every memory.
"""
