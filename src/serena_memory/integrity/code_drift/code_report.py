"""What a code check finds and how it is told: a mention of a path or a symbol that is
missing now, a path git saw move (and where to), a file that changed a lot since the
memory last changed; the report of one check, as text (each name and mention escaped, so
a memory can't forge lines of the report) or as JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from serena_memory.core.display import counted
from serena_memory.integrity.code_drift.mentions import PATH

WORK_TREE = "work-tree"  # the "commit" of a change not committed yet


def in_commit(commit: object) -> str:
    """Where a change was made, as a person reads it: ``in commit 1a2b3c4d5e``, or ``in the
    work tree, not committed yet``."""
    if commit == WORK_TREE:
        return "in the work tree, not committed yet"
    return f"in commit {str(commit)[:10]}"


MISSING = "missing"
MOVED = "moved"
CHANGED = "changed"
CASE_ONLY = "written in another case than the project's"
"""The note of a path that names a project path only when case is ignored: told as moved,
with no commit (git saw nothing move; the memory wrote it so)."""


@dataclass(frozen=True)
class CodeFinding:
    memory: str
    line: int
    mention: str
    kind: str
    status: str
    target: str = ""
    new_path: str | None = None
    commit: str | None = None
    commits_since: int | None = None
    note: str = ""
    read_only: bool = False
    new_name: str | None = None  # a symbol git saw renamed: its name now (in new_path)
    new_mention: str | None = None  # a moved file named in another form than its path
    # (`tests.types`, `./testHelpers.js`): the mention as it is written now, in that form
    form: str = ""  # the form the file was named in (`module`, `relative`, `up`)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "memory": self.memory,
            "line": self.line,
            "mention": self.mention,
            "kind": self.kind,
            "status": self.status,
        }
        if self.status == MOVED or self.new_path:
            data["new_path"] = self.new_path
        if self.new_name:
            data["new_name"] = self.new_name
        if self.new_mention:
            data["new_mention"] = self.new_mention
        if self.commit:
            data["commit"] = self.commit
        if self.status == CHANGED:
            data["commits_since"] = self.commits_since
        if self.note:
            data["note"] = self.note
        return data

    def told(self) -> str:
        """What the note on reading the memory says of this finding."""
        return f"`{self.mention}` (line {self.line}) {self.news()}"

    def news(self) -> str:
        """What changed of the mention, as the read note says it after the mention."""
        if self.status == MOVED and self.kind == PATH:
            if self.note == CASE_ONLY:
                return f"is `{self.new_path}` in the project (the case differs)"
            if self.new_mention and self.new_mention != self.new_path:
                return f"is now `{self.new_mention}` (`{self.new_path}`)"
            return f"is now `{self.new_path}`"
        if self.status == CHANGED:
            return f"changed in {self.commits_since} commits since this memory"
        if self.kind == PATH:
            return "names no file of the project now"
        if self.new_name and self.new_path:
            return f"is now `{self.new_name}` in `{self.new_path}`"
        if self.new_path:
            return f"is now in `{self.new_path}`"
        return "names no symbol of the code now" + (f" ({self.note})" if self.note else "")

    def describe(self) -> str:
        if self.status == MOVED and self.note == CASE_ONLY:
            return f"`{self.mention}` is `{self.new_path}` in the project (the case differs)"
        if self.status == MOVED:
            now = f"`{self.new_path}`"
            if self.new_mention and self.new_mention != self.new_path:
                now = f"`{self.new_mention}` (`{self.new_path}`)"
            return f"`{self.mention}` moved to {now} ({in_commit(self.commit)})"
        if self.status == CHANGED:
            return f"`{self.mention}` changed in {self.commits_since} commits since the memory"
        if self.new_name and self.new_path and self.commit:
            return (
                f"`{self.mention}` is now `{self.new_name}` in `{self.new_path}` "
                f"({in_commit(self.commit)})"
            )
        what = "file or folder" if self.kind == PATH else "symbol"
        return f"`{self.mention}`: no such {what} now" + (f" ({self.note})" if self.note else "")


NO_CODE = (
    "the project folder holds nothing but its memories, so there is no code to check them "
    "against: run the check in the project's own folder"
)


def _fix_hint(findings: list[CodeFinding]) -> list[str]:
    """The line naming the command that fixes moved paths and renamed symbols, if any."""
    moved = any(f.status == MOVED for f in findings)
    renamed = any(f.new_name for f in findings)  # told "renamed"
    what = " and ".join(w for w, ok in (("moved paths", moved), ("renamed symbols", renamed)) if ok)
    return [f"Fix {what} with `serena memories fix-code-references`."] if what else []


@dataclass
class CodeReport:
    findings: list[CodeFinding] = field(default_factory=list)
    scanned: int = 0
    mentions: int = 0
    git: bool = False
    since: str | None = None
    notes: list[str] = field(default_factory=list)  # what went without git, and why

    @property
    def failing(self) -> list[CodeFinding]:
        return [f for f in self.findings if f.status in (MISSING, MOVED)]

    def drifted(self) -> list[str]:
        return sorted({f.memory for f in self.failing})

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "code": [f.to_dict() for f in self.findings],
            "code_mentions": self.mentions,
            "code_git": self.git,
        }
        if self.notes:
            data["code_notes"] = list(self.notes)
        return data

    def to_text(self) -> str:
        from serena_memory.core.display import escape_line

        notes = "".join(f"  ({escape_line(n)})\n" for n in self.notes)
        if NO_CODE in self.notes:
            return f"Code: not checked: {NO_CODE}.\n"
        if not self.findings:
            where = "git's list of files" if self.git else "the files on disk"
            # (with --since, only what those commits changed: say so, not "none drifted")
            verdict = (
                f"none drifted in the commits since {self.since}"
                if self.since
                else ("none drifted")
            )
            return (
                f"Code: {counted(self.mentions, 'mention')} of code in "
                f"{counted(self.scanned, 'memory', 'memories')} "
                f"checked against {where}; {verdict}.\n" + notes
            )
        memories = len({f.memory for f in self.findings})
        out = [
            f"Code: {counted(len(self.findings), 'finding')} in "
            f"{counted(memories, 'memory', 'memories')}:"
        ]
        for f in self.findings:
            status = "renamed" if f.new_name else f.status  # still missing as written
            out.append(f"  {escape_line(f.memory)}:{f.line}: {status}: {escape_line(f.describe())}")
        if not self.git and not self.notes:
            out.append("  (not a git work tree: moved and changed need git)")
        out += _fix_hint(self.findings)
        return "\n".join(out) + "\n" + notes
