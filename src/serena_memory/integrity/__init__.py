"""Checks on the memories, one folder per check, and what every check shares.

- ``references/``: stale `mem:` references, bare mentions, near-misses, reachability, the
  reference graph and auto-prefix, with the check's cache and report.
- ``duplicates/``: near-duplicate memories and sections and contradicting statements, with
  the check's cache and index, and the note a write is told.
- ``code_drift/``: the files, folders and symbols memories mention, checked against git,
  and the drifted memories named where an agent starts.
- ``plugins/``: each check as a plug-in of `serena memories check` behind one interface
  (``base``), listed in ``registry``; the unused memories (``plugins/unused``, engine in
  ``serena_memory.usage``) and front matter (``plugins/lifecycle``) checks are plug-ins only.

Shared: ``service`` (what the command line, the MCP server and the dashboard call),
``listing`` (the memory files a check reads) and ``workers`` (work split over forked
processes).
"""
