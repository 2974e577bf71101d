"""The fact sheet: what the project says about itself, short enough to read at a glance."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# the kinds of command, in the order the sheet shows them, with their labels
KINDS: dict[str, str] = {
    "setup": "Set up",
    "test": "Test",
    "lint": "Lint",
    "format": "Format",
    "typecheck": "Type check",
    "build": "Build",
    "run": "Run",
}
# the sheet's room for commands, in characters, each shown with its quotes and comma: a
# project with many lint commands keeps them, a small project's sheet stays short; the
# tests have more room, being run in more forms (per member, per feature set, one file)
SHEET_BUDGET = 1800
KIND_BUDGET = {"setup": 160, "run": 200, "test": 600}
DEFAULT_KIND_BUDGET = 420
MAX_CI_FILES_SHOWN = 4
CI = "CI"


def plain_words(command: str) -> list[str]:
    """A command without its options (``cargo clippy --all-targets -- -D warnings`` is
    ``cargo clippy``), to tell the usual command from a narrower form of it; a script is
    the same with or without its ``./``."""
    words = command.split()
    if "--" in words:
        words = words[: words.index("--")]
    return [w.removeprefix("./") for w in words if not w.startswith("-")]


def _as_run(command: str) -> list[str]:
    """The plain words of what a command runs: ``bash scripts/x.sh`` runs ``scripts/x.sh``."""
    plain = plain_words(command)
    return plain[1:] if plain[:1] in (["bash"], ["sh"]) and len(plain) > 1 else plain


def shown_size(command: str) -> int:
    """The characters a command takes on the sheet: quotes, a comma and a space."""
    return len(command) + 4


@dataclass
class FactSheet:
    """What the project says about itself; every list is short and deduplicated."""

    languages: list[tuple[str, int]] = field(default_factory=list)
    files_scanned: int = 0
    # bytes of the source files counted (what a newcomer could read instead of the memories)
    code_bytes: int = 0
    truncated: bool = False
    build_files: list[tuple[str, str]] = field(default_factory=list)
    ci_files: list[str] = field(default_factory=list)
    commands: dict[str, list[str]] = field(default_factory=lambda: {k: [] for k in KINDS})
    # command -> the file it was read from (``CI`` for a CI step)
    sources: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # the plain words of tasks read and found to be none of the kinds (a coverage report, a
    # release): CI's or the docs' spelling of them is not offered either
    withheld: set[tuple[str, ...]] = field(default_factory=set)
    # commands the docs say are not enough in their plain form ("a simple `cargo doc` is
    # not sufficient"): that form is not offered, the same with options is
    withheld_plain: set[tuple[str, ...]] = field(default_factory=set)
    # a runner's pattern of names (`make check-`, from `check-%:`) -> the kind its recipe
    # runs: CI's `make check-release` is a type check whatever its stem says
    patterns: dict[str, str | None] = field(default_factory=dict)
    # the names the project publishes itself under (its crate, its Go module): installing
    # one of them puts the released program on the system, it sets nothing up
    own_packages: frozenset[str] = frozenset()
    # (command, source) -> how it is typed: a tool the project installs through its runner
    # (`uv run mypy`, `npx ava`), see environment_tools
    respell: Callable[[str, str], str] | None = None

    def pattern_kind(self, command: str) -> str | None:
        head = " ".join(command.split()[:2])
        matching = [p for p in self.patterns if head.startswith(p) and len(head) > len(p)]
        return self.patterns[max(matching, key=len)] if matching else None

    def withhold(self, command: str) -> None:
        self.withheld.add(tuple(_as_run(command)))

    def withhold_plain(self, command: str) -> None:
        self.withheld_plain.add(tuple(_as_run(command)))

    def is_withheld(self, command: str) -> bool:
        plain = _as_run(command)
        if tuple(plain) in self.withheld_plain:
            return True
        return any(tuple(plain[: len(known)]) == known for known in self.withheld)

    def add(self, kind: str, command: str, source: str) -> bool:
        """Offer ``command`` as a ``kind`` command; False when it is known or there is no
        room left for it."""
        if self.respell is not None:
            command = self.respell(command, source)
        bucket = self.commands.setdefault(kind, [])
        if command in bucket or self.room(kind) < shown_size(command):
            return False
        if self.is_withheld(command):
            return False
        bucket.append(command)
        self.sources.setdefault(command, source)
        return True

    def add_default(self, kind: str, command: str, source: str) -> None:
        """The ecosystem's usual command, unless the kind has it already, maybe with options."""
        if self.respell is not None:
            command = self.respell(command, source)
        if all(plain_words(known) != plain_words(command) for known in self.commands.get(kind, [])):
            self.add(kind, command, source)

    def room(self, kind: str) -> int:
        """The characters left for ``kind``: its own budget and the sheet's."""
        used = sum(shown_size(c) for c in self.commands.get(kind, []))
        total = sum(shown_size(c) for c in self.offered())
        return min(KIND_BUDGET.get(kind, DEFAULT_KIND_BUDGET) - used, SHEET_BUDGET - total)

    def has(self, kind: str) -> bool:
        return bool(self.commands.get(kind))

    def offered(self) -> set[str]:
        return {c for bucket in self.commands.values() for c in bucket}

    def is_empty(self) -> bool:
        return not (self.languages or self.build_files or self.ci_files)

    def to_dict(self) -> dict[str, Any]:
        return {
            "languages": [{"language": n, "files": c} for n, c in self.languages],
            "files_scanned": self.files_scanned,
            "code_bytes": self.code_bytes,
            "truncated": self.truncated,
            "build_files": [{"file": f, "kind": k} for f, k in self.build_files],
            "ci_files": self.ci_files,
            "commands": {k: v for k, v in self.commands.items() if v},
            "sources": dict(self.sources),
            "notes": self.notes,
        }

    def to_markdown(self) -> str:
        if self.is_empty():
            return "No source files or build files were found; the project looks empty."
        lines = self._language_lines()
        if self.build_files:
            shown = ", ".join(f"`{f}` ({k})" for f, k in self.build_files)
            lines.append(f"- Build and package files: {shown}.")
        for kind, label in KINDS.items():
            found = self.commands.get(kind) or []
            if found:
                lines.append(f"- {label}: {', '.join(self._shown(c) for c in found)}.")
        if any(source == CI for source in self.sources.values()):
            lines.append("- (CI) marks a step CI runs, not a task the project defines.")
        if self.ci_files:
            lines.append(f"- CI configuration: {self._ci_files_shown()}.")
        lines.extend(f"- {note}" for note in self.notes)
        return "\n".join(lines)

    def _shown(self, command: str) -> str:
        return f"`{command}` (CI)" if self.sources.get(command) == CI else f"`{command}`"

    def _ci_files_shown(self) -> str:
        shown = ", ".join(f"`{f}`" for f in self.ci_files[:MAX_CI_FILES_SHOWN])
        more = len(self.ci_files) - MAX_CI_FILES_SHOWN
        return f"{shown} and {more} more" if more > 0 else shown

    def _language_lines(self) -> list[str]:
        if not self.languages:
            return []
        total = sum(c for _, c in self.languages)
        shown = ", ".join(f"{n} ({c})" for n, c in self.languages[:8])
        more = " (file budget reached; counts are partial)" if self.truncated else ""
        files = "file" if total == 1 else "files"
        return [f"- Languages by file count: {shown}; {total} source {files}{more}."]
