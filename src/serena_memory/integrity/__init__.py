"""Checks on the memories, one folder per check, and what every check shares.

- ``references/``: stale `mem:` references, bare mentions, near-misses, reachability, the
  reference graph and auto-prefix, with the check's cache and report; ``check`` runs it on
  a store, ``snapshot`` keeps it for the dashboard, ``links`` (backlinks, the graph, a
  reference's fix) and ``missing_names`` answer the front-ends.
- ``duplicates/``: near-duplicate memories and sections and contradicting statements, with
  the check's cache and index, and the note a write is told.
- ``code_drift/``: the files, folders and symbols memories mention, checked against git
  (``check``), the fixes written to a store (``fixing``), the note a read is told
  (``read_note``) and the drifted memories named where an agent starts.
- ``plugins/``: each check as a plug-in of `serena memories check` behind one interface
  (``base``), listed in ``registry``; the unused memories (``plugins/unused``, engine in
  ``serena_memory.usage``) and front matter (``plugins/lifecycle``) checks are plug-ins only.

A check's folder imports no other check's folder. Shared: ``listing`` (the memory files a
check reads, and what another check reads along in the same pass) and ``workers`` (work
split over forked processes, the cycle collector paused while a check runs).
"""
