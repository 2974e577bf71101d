"""The references check: stale `mem:` references, names written without `mem:`,
near-misses and reachability from `mem:core`.

``analysis`` asks the questions of a ``{name: text}`` mapping (pure), with ``scanning``
(a text scanned for references and names) and ``similarity`` (how close two names are);
``reading`` reads a store's memories into it, at once or over forked workers;
``check_report`` holds what it finds and ``check_report_text`` words it for people;
``check_cache`` (its rows in ``check_cache_rows``) keeps what earlier runs learned;
``graph`` draws who references whom and ``prefixing`` adds `mem:` to bare mentions.
What the front-ends call: ``check`` (the check run on a store), ``snapshot`` (the memories
read once, for the dashboard), ``links`` (backlinks, the graph, a reference's fix, what a
delete is told) and ``missing_names`` (what a name that is no memory is told).
"""
