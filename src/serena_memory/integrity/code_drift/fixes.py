"""The replacements that bring a memory's mentions of code up to date: a moved path to
where git saw it go, a renamed symbol to its new name, each in the form the memory wrote
it (`./x.py:3` keeps its `./` and its line, `build_index()` its call). One list serves
the read note (which offers them), `edit_memory` in drift mode (which applies one
memory's) and `fix-code-references` (which applies every memory's).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from serena_memory.integrity.code_drift.code_report import MOVED, CodeFinding
from serena_memory.integrity.code_drift.forms import MEMBER, RELATIVE, UP
from serena_memory.integrity.code_drift.mentions import CODE_SPAN, PATH, SYMBOL


@dataclass(frozen=True)
class Replacement:
    """``old`` (a mention as written on ``line`` of ``memory``) becomes ``new``;
    ``findings`` are the findings it settles (a path and a symbol written together,
    `a.py::test_x`, are one)."""

    memory: str
    line: int
    old: str
    new: str
    findings: tuple[CodeFinding, ...]

    def told(self) -> str:
        return f"`{self.old}` -> `{self.new}`"


def _rewritten(written: str, f: CodeFinding) -> str | None:
    """``written`` with what ``f`` found changed, or None when the finding has no exact
    replacement (a missing file, a symbol git did not see renamed, a module moved out
    of the folder it was imported from: told, never guessed)."""
    if f.status == MOVED and f.kind == PATH:
        if f.new_mention is not None and written == f.mention:
            return f.new_mention
        if f.form in _WRITTEN_FROM_A_FILE:
            return None  # its path from the root in a name written from a file is no fix
        old = f.target.rstrip("/")
        new = (f.new_path or "").rstrip("/")
        if "/" not in old and not f.form:  # a bare name stays bare: `filesize.py` -> `sizes.py`
            new = new.rsplit("/", 1)[-1]
        elif old not in written:
            old, new = _as_written(written, old, new)
    elif f.kind == SYMBOL and f.new_name:
        old, new = f.target, f.new_name
    else:
        return None
    index = written.find(old) if old and new else -1
    if index < 0:
        return None
    return written[:index] + new + written[index + len(old) :]


_WRITTEN_FROM_A_FILE = (RELATIVE, UP, MEMBER)
"""The forms of a name written from the file that imports it (``./x.js``, ``../x.js``,
``from . import x``): fixed only in the new form the check found, never by its path."""


def _as_written(written: str, old: str, new: str) -> tuple[str, str]:
    """The tail of a moved path that the memory wrote (`parse-options.js` listed under
    `internal/` for `internal/parse-options.js`) and the same tail of its new path, when
    the folders it left unwritten did not change and it stayed as deep below them; ('', '')
    otherwise (a file that left its folder can't be named in a form that leaves the folder
    out, and a name in a drawn tree that went one folder down, `dictionaries/` to
    `admin/dictionaries/`, belongs under another entry of the drawing: told, not guessed)."""
    parts = old.split("/")
    for i in range(1, len(parts)):
        head = "/".join(parts[:i]) + "/"
        tail = old[len(head) :]
        if tail in written and new.startswith(head):
            moved_tail = new[len(head) :]
            return (tail, moved_tail) if moved_tail.count("/") == tail.count("/") else ("", "")
    return "", ""


def replacements(findings: Iterable[CodeFinding]) -> list[Replacement]:
    """The exact replacements ``findings`` allow in writable memories, one per mention
    and line, in the order written."""
    grouped: dict[tuple[str, int, str], list[CodeFinding]] = {}
    for f in findings:
        if not f.read_only:
            grouped.setdefault((f.memory, f.line, f.mention), []).append(f)
    out = []
    for (memory, line, mention), found in grouped.items():
        new, used = mention, []
        for f in sorted(found, key=lambda f: f.kind != PATH):  # a path first, then its symbol
            changed = _rewritten(new, f)
            if changed is not None:
                new = changed
                used.append(f)
        if used and new != mention:
            out.append(Replacement(memory, line, mention, new, tuple(used)))
    return out  # grouped in the order the findings came: by memory, then line


def _literally(text: str) -> Callable[[re.Match[str]], str]:
    return lambda _match: text


def apply(text: str, wanted: Iterable[Replacement]) -> tuple[str, list[Replacement]]:
    """``text`` with each replacement made on its line wherever the mention stands whole
    there; with the replacements made (one whose line no longer holds it is left out)."""
    lines = text.split("\n")
    done = []
    for r in wanted:
        if not 0 < r.line <= len(lines):
            continue
        pattern = re.compile(rf"(?<![\w./-]){re.escape(r.old)}(?![\w/-])")
        lines[r.line - 1], count = _replaced(pattern, r, lines[r.line - 1])
        if count:
            done.append(r)
    return "\n".join(lines), done


def _replaced(pattern: re.Pattern[str], r: Replacement, line: str) -> tuple[str, int]:
    """``line`` with ``pattern`` made ``r.new``: a bare name inside the code spans that
    hold it, when one does (`load` renamed in `{ load(x); }` stays a word in the prose
    around it), else wherever it stands; a path or dotted name wherever it stands."""
    # a function, not a template: the new text is taken as written (no \\1, no \\g<>)
    new = r.new
    bare = "`" in line and not any(c in r.old for c in "./")
    spans = [m.span(2) for m in CODE_SPAN.finditer(line)] if bare else []
    holding = [(a, b) for a, b in spans if pattern.search(line[a:b])]
    if not holding:
        return pattern.subn(_literally(new), line)
    out: list[str] = []
    count = last = 0
    for a, b in holding:
        inside, made = pattern.subn(_literally(new), line[a:b])
        out += [line[last:a], inside]
        count, last = count + made, b
    return "".join(out) + line[last:], count
