"""Every importable format by name, and what a project and home folder hold of them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from serena_memory.transfer import claude_md, export, folders, mcp_jsonl
from serena_memory.transfer.plan import ImportPlan
from serena_memory.transfer.sources import Progress, SourceError, topic_name

Planner = Callable[[Path, str, Progress | None], ImportPlan]

PLANNERS: dict[str, Planner] = {
    "claude-md": partial(claude_md.plan_instructions, fmt="claude-md", filename="CLAUDE.md"),
    "agents-md": partial(claude_md.plan_instructions, fmt="agents-md", filename="AGENTS.md"),
    "cursor-rules": folders.plan_cursor_rules,
    "cline-memory-bank": folders.plan_cline,
    "claude-auto-memory": folders.plan_auto_memory,
    "basic-memory": folders.plan_basic_memory,
    "mcp-memory-jsonl": mcp_jsonl.plan_mcp_memory,
    "bundle": export.plan_bundle,
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
}
FORMATS = (*PLANNERS, "auto")


def plan_import(
    fmt: str, path: str | Path, topic: str | None = None, progress: Progress | None = None
) -> ImportPlan:
    if fmt not in PLANNERS:
        raise SourceError(f"unknown format {fmt!r}; one of: {', '.join(FORMATS)}")
    chosen = topic_name(topic) if topic else DEFAULT_TOPICS[fmt]
    return PLANNERS[fmt](Path(path).expanduser(), chosen, progress)


@dataclass(frozen=True)
class Found:
    format: str
    path: Path

    def describe(self) -> str:
        return f"{self.format}: {self.path}"


def detect(project: str | Path, home: str | Path | None = None) -> list[Found]:
    """The sources a project (and the person's home folder) hold, by existence only:
    cheap enough for an activation message."""
    root = Path(project)
    home_dir = Path(home) if home is not None else Path.home()
    found = []
    for fmt, name in (("claude-md", "CLAUDE.md"), ("agents-md", "AGENTS.md")):
        if (root / name).is_file():
            found.append(Found(fmt, root))
    if (root / ".cursor" / "rules").is_dir():
        found.append(Found("cursor-rules", root / ".cursor" / "rules"))
    if (root / "memory-bank").is_dir():
        found.append(Found("cline-memory-bank", root / "memory-bank"))
    auto = folders.claude_project_folder(root, home_dir)
    if auto.is_dir():
        found.append(Found("claude-auto-memory", auto))
    if (root / "memory.jsonl").is_file():
        found.append(Found("mcp-memory-jsonl", root / "memory.jsonl"))
    if (home_dir / "basic-memory").is_dir():
        found.append(Found("basic-memory", home_dir / "basic-memory"))
    return found
