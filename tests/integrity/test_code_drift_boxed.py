"""`check --code` on the shapes of a third set of real memories, each in a real git
repository whose files go after the memory is written: the modules a box diagram names
by file name, moved with their package folder; and what the memory itself says is gone:
a table row whose status says the plan is archived, a list item whose description says
the file was replaced."""

from __future__ import annotations

from pathlib import Path

from test_code_drift import commit, findings, git, memory, repo, write

__all__ = ["repo"]  # the fixture, shared

_DIAGRAM = """# Implementation Guide

## Architecture

```
                 +-----------------+
                 |   CLI (cli.py)  |
                 +--------+--------+
                          |
          +---------------+----------------+
          v                                v
+------------------+             +------------------+
|     Daemon       |<----------->|  PauseMonitorApp |
|  (daemon.py)     |             |   (tui/app.py)   |
+------------------+             +------------------+
          |                                |
+------------------+             +------------------+
|   TierManager    |             |    Planner       |
|  (sentinel.py)   |             |  (planner.py)    |
+------------------+             +------------------+
```

Run it with:

```
python daemon.py --help
```
"""


def _told(root: Path) -> dict[str, tuple[str, str | None]]:
    """mention -> (status, new path) of the missing and moved paths."""
    return {
        f["mention"]: (f["status"], f.get("new_path"))
        for f in findings(root)
        if f["kind"] == "path" and f["status"] in ("missing", "moved")
    }


def test_a_box_diagram_names_modules_that_moved_with_their_package(repo: Path) -> None:
    for name in ("cli", "daemon", "sentinel", "tui/app"):
        write(repo, f"src/pause_monitor/{name}.py", f"# the {name} module\nVALUE = 1\n")
    memory(repo, "implementation_guide", _DIAGRAM)
    commit(repo)
    git(repo, "mv", "src/pause_monitor", "src/rogue_hunter")
    commit(repo, "rename the package to rogue_hunter")
    git(repo, "rm", "-q", "src/rogue_hunter/sentinel.py")
    commit(repo, "fold the sentinel into the daemon")
    told = _told(repo)
    assert told["cli.py"] == ("moved", "src/rogue_hunter/cli.py")
    assert told["daemon.py"] == ("moved", "src/rogue_hunter/daemon.py")
    assert told["tui/app.py"] == ("moved", "src/rogue_hunter/tui/app.py")
    assert told["sentinel.py"][0] == "missing"
    assert "planner.py" not in told  # drawn, never written: a plan, not drift


_TABLE = """# Design Spec

## Source Documents

| Document | Date Processed | Status |
|----------|----------------|--------|
| docs/plans/phase-4-socket-server.md | 2026-01-23 | Archived |
| docs/plans/tui-redesign-design.md | 2026-01-24 | Active |

## Components

- `stress.py` — Replaced by per-process scoring
- `scoring.py` — per-process scores, one per process
"""


def test_what_a_row_or_an_item_says_is_archived_or_replaced_is_no_drift(repo: Path) -> None:
    write(repo, "docs/plans/phase-4-socket-server.md", "# Phase 4\n")
    write(repo, "docs/plans/tui-redesign-design.md", "# TUI\n")
    write(repo, "src/stress.py", "STRESS = 1\n")
    write(repo, "src/scoring.py", "SCORE = 1\n")
    commit(repo)
    (repo / "docs/plans/archived").mkdir()
    git(repo, "mv", "docs/plans/phase-4-socket-server.md", "docs/plans/archived/")
    git(repo, "rm", "-q", "src/stress.py")
    commit(repo, "archive phase 4; per-process scoring replaces stress")
    memory(repo, "design_spec", _TABLE)
    commit(repo, "the design spec")
    git(repo, "mv", "docs/plans/tui-redesign-design.md", "docs/plans/archived/")
    git(repo, "rm", "-q", "src/scoring.py")
    commit(repo, "archive the TUI plan; scores move into the collector")
    told = _told(repo)
    assert "docs/plans/phase-4-socket-server.md" not in told  # the memory says: archived
    assert "stress.py" not in told  # the memory says: replaced
    assert told["docs/plans/tui-redesign-design.md"] == (
        "moved",
        "docs/plans/archived/tui-redesign-design.md",
    )
    assert told["scoring.py"][0] == "missing"


_GONE_LIST = """# Implementation Guide

## Deleted Components

- `src/stress.py` — per-process scoring took its place
- `src/powermetrics.py`

## Archived Plans

- docs/plans/phase-6-cleanup.md
- docs/plans/archived/phase-7.md

## Components

These no longer exist:
- `src/calibrate.py`

- `src/collector.py` — samples `top` once a second
"""


def test_items_under_a_heading_or_line_that_says_they_are_gone_are_no_drift(
    repo: Path,
) -> None:
    for name in ("stress", "powermetrics", "calibrate", "collector"):
        write(repo, f"src/{name}.py", f"{name.upper()} = 1\n")
    write(repo, "docs/plans/phase-6-cleanup.md", "# Phase 6\n")
    write(repo, "docs/plans/archived/phase-7.md", "# Phase 7\n")
    commit(repo)
    git(repo, "rm", "-q", "src/stress.py", "src/powermetrics.py", "src/calibrate.py")
    git(repo, "mv", "docs/plans/phase-6-cleanup.md", "docs/plans/archived/")
    commit(repo, "per-process scoring; archive phase 6")
    memory(repo, "implementation_guide", _GONE_LIST)
    commit(repo, "the guide")
    git(repo, "rm", "-q", "src/collector.py", "docs/plans/archived/phase-7.md")
    commit(repo, "a new collector; phase 7 dropped")
    told = _told(repo)
    for gone in ("src/stress.py", "src/powermetrics.py", "src/calibrate.py"):
        assert gone not in told  # the memory says: deleted, no longer there
    assert "docs/plans/phase-6-cleanup.md" not in told  # the memory says: archived
    assert told["docs/plans/archived/phase-7.md"][0] == "missing"  # where it went: a claim
    assert told["src/collector.py"][0] == "missing"  # after the list: a claim again
