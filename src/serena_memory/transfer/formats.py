"""Every importable format by name, and what a project and home folder hold of them."""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Protocol

from serena_memory.transfer import claude_md, export, folders, mcp_jsonl, okf_import
from serena_memory.transfer.plan import ImportPlan
from serena_memory.transfer.sources import Progress, Reach, SourceError, topic_name


class Planner(Protocol):
    def __call__(
        self, path: Path, topic: str, progress: Progress | None = None, *, reach: Reach | None
    ) -> ImportPlan: ...


PLANNERS: dict[str, Planner] = {
    "claude-md": partial(claude_md.plan_instructions, fmt="claude-md", filename="CLAUDE.md"),
    "agents-md": partial(claude_md.plan_instructions, fmt="agents-md", filename="AGENTS.md"),
    "cursor-rules": folders.plan_cursor_rules,
    "cline-memory-bank": folders.plan_cline,
    "claude-auto-memory": folders.plan_auto_memory,
    "basic-memory": folders.plan_basic_memory,
    "mcp-memory-jsonl": mcp_jsonl.plan_mcp_memory,
    "bundle": export.plan_bundle,
    "okf": okf_import.plan_okf,
}
DEFAULT_TOPICS = {
    "claude-md": "claude-md",
    "agents-md": "agents-md",
    "cursor-rules": "cursor-rules",
    "cline-memory-bank": "cline-memory-bank",
    "claude-auto-memory": "claude-memory",
    "basic-memory": "basic-memory",
    "mcp-memory-jsonl": "mcp-memory",
    "bundle": "",
    "okf": "",
}
FORMATS = (*PLANNERS, "auto")


def plan_import(
    fmt: str,
    path: str | Path,
    topic: str | None = None,
    progress: Progress | None = None,
    *,
    reach: Reach | None = None,
) -> ImportPlan:
    """The plan of importing ``fmt`` from ``path``, read only within ``reach`` (default:
    ``path`` is the person's own choice, and the source lies below it)."""
    if fmt not in PLANNERS:
        raise SourceError(f"unknown format {fmt!r}; one of: {', '.join(FORMATS)}")
    chosen = topic_name(topic) if topic else DEFAULT_TOPICS[fmt]
    return PLANNERS[fmt](Path(path).expanduser(), chosen, progress, reach=reach)


@dataclass(frozen=True)
class Found:
    """A source found by looking: in the project (``in_project``), or in the home folder;
    ``refused`` says why one the project names is out of reach (a link out). ``path`` is
    what an import takes (the project folder for CLAUDE.md and AGENTS.md), ``file`` what
    a reader opens."""

    format: str
    path: Path
    in_project: bool = True
    refused: str = ""
    file: Path | None = None

    def describe(self) -> str:
        return f"{self.format}: {self.path}"

    def command(self) -> str:
        """The command that imports it, named by its path."""
        return f"serena memories import {self.format} {shlex.quote(str(self.path))}"


# what a project may hold: format, path below the project, whether it is a folder
_IN_PROJECT = (
    ("claude-md", "CLAUDE.md", False),
    ("agents-md", "AGENTS.md", False),
    ("cursor-rules", ".cursor/rules", True),
    ("cline-memory-bank", "memory-bank", True),
    ("mcp-memory-jsonl", "memory.jsonl", False),
)


_SAME_TEXT_LIMIT = 1 << 20  # a guide larger than this is not compared: both are kept


def _one_of_each_text(found: list[Found]) -> list[Found]:
    """``found`` without AGENTS.md when it holds what CLAUDE.md holds (one file linked to
    the other, or a copy kept for each tool): imported twice, each memory would be told
    as a copy of the other."""
    # one out of reach (a link out of the project) is never opened
    guides = {
        f.format: f.file for f in found if f.format in ("claude-md", "agents-md") and not f.refused
    }
    claude, agents = guides.get("claude-md"), guides.get("agents-md")
    if claude is None or agents is None or not _same_text(claude, agents):
        return found
    return [f for f in found if f.format != "agents-md"]


def _same_text(a: Path, b: Path) -> bool:
    try:
        if os.path.realpath(a) == os.path.realpath(b):
            return True
        size = os.path.getsize(a)
        if size != os.path.getsize(b) or size > _SAME_TEXT_LIMIT:
            return False
        return a.read_bytes() == b.read_bytes()
    except OSError:
        return False


def detect(project: str | Path, home: str | Path | None = None) -> list[Found]:
    """The sources a project (and the person's home folder) hold, by existence only:
    cheap enough for an activation message. One the project holds through a link out of
    it is listed as refused, and never followed."""
    root = Path(project)
    reach = Reach.project(root)
    home_dir = Path(home) if home is not None else Path.home()
    found = []
    for fmt, rel, is_folder in _IN_PROJECT:
        path = root / rel
        if path.is_dir() if is_folder else path.is_file():
            # CLAUDE.md and AGENTS.md are read from the project folder itself
            shown = root if fmt in ("claude-md", "agents-md") else path
            found.append(Found(fmt, shown, refused=reach.refusal(path) or "", file=path))
    found = _one_of_each_text(found)
    auto = folders.claude_project_folder(root, home_dir)
    if auto.is_dir():
        found.append(Found("claude-auto-memory", auto, in_project=False))
    if (home_dir / "basic-memory").is_dir():
        found.append(Found("basic-memory", home_dir / "basic-memory", in_project=False))
    return found
