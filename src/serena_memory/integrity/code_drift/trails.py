"""What a missing symbol's finding says of where git saw it go: the missing words of the
mention, each one's trail (:mod:`~serena_memory.integrity.code_drift.symbol_history`), a new
name only when every missing word was renamed, and of the files where the name changed the
one the mention points at (a file written on the same line, the module it is qualified
with).
"""

from __future__ import annotations

import re
from dataclasses import replace

from serena_memory.integrity.code_drift.code_report import MISSING, CodeFinding
from serena_memory.integrity.code_drift.mentions import PATH, SYMBOL, Mention
from serena_memory.integrity.code_drift.symbol_history import SymbolTrail


def earliest(words: dict[CodeFinding, list[str]], written: dict[str, float]) -> dict[str, float]:
    """For each missing word, the earliest time a memory mentioning it last changed."""
    since: dict[str, float] = {}
    for f, absent in words.items():
        when = written.get(f.memory)
        if when is None:
            continue
        for word in absent:
            since[word] = min(since.get(word, when), when)
    return since


def absent_words(f: CodeFinding, present: set[str]) -> list[str]:
    """The identifiers of a missing symbol's finding not in the code, in order (none for
    any other finding)."""
    if f.kind != SYMBOL or f.status != MISSING or f.new_path:
        return []
    return list(dict.fromkeys(w for w in re.findall(r"\w+", f.target) if w not in present))


def with_trails(
    f: CodeFinding, found: list[tuple[str, SymbolTrail | None]], near: list[str]
) -> CodeFinding:
    """A missing symbol's finding told where git saw its missing words go: a word removed
    or never seen is told; a new name only when every missing word was renamed."""
    known = [(word, t) for word, t in found if t is not None]
    gone = [(word, t) for word, t in known if not t.new_name]
    if gone:
        word, t = gone[0]
        alone = len(re.findall(r"\w+", f.target)) == 1
        note = t.describe() if alone else f"`{word}` {t.describe()}"
        return replace(f, commit=t.commit or None, note=note)
    if not known or len(known) < len(found):
        return f  # git could not tell for every word
    new_name = f.target
    for word, t in known:
        new_name = re.sub(rf"\b{re.escape(word)}\b", t.new_name, new_name)
    last = known[-1][1]
    place = _place(last, new_name, near)
    note = f"now `{new_name}` in `{place}`, commit {known[0][1].commit[:10]}"
    return replace(f, new_name=new_name, new_path=place, commit=known[0][1].commit, note=note)


def _place(found: SymbolTrail, new_name: str, near: list[str]) -> str:
    """Of the files where a symbol was renamed, the one the mention points at: a module
    renamed with its file; a file named like a part of the qualified name
    (``_speedups._escape_str`` -> ``_speedups.c``, ``pkg._x`` -> ``pkg/__init__.py``); a
    file written on the same line (but one that imports it: it uses the name, the file
    that defines it is its place); one in a folder named like a part; else the first (a
    definition's)."""
    files = found.new_files or (found.new_file,)
    if len(files) == 1:
        return files[0]
    *qualifiers, last = re.findall(r"\w+", new_name)
    parts = set(qualifiers)
    names = {n.rstrip("/").rsplit("/", 1)[-1] for n in near}
    stems = {n.split(".", 1)[0] for n in names}

    def score(path: str) -> int:
        folders = path.split("/")[:-1]
        name = path.rsplit("/", 1)[-1]
        stem = name.split(".", 1)[0]
        if stem == last:
            return 5  # a module renamed with its file
        if stem in parts or (stem == "__init__" and folders and folders[-1] in parts):
            return 4
        if path in found.importers:
            return 1 if parts & set(folders) else 0  # a file using it, not its home
        if name in names:
            return 3
        if stem in stems:
            return 2
        return 1 if parts & set(folders) else 0

    return max(files, key=lambda path: (score(path), -files.index(path)))


def paths_by_line(mentions: dict[str, list[Mention]]) -> dict[tuple[str, int], list[str]]:
    """The paths written on each (memory, line) of ``mentions`` (memory -> its mentions):
    where a symbol on that line most likely lives."""
    near: dict[tuple[str, int], list[str]] = {}
    for name, found in mentions.items():
        for m in found:
            if m.kind == PATH or m.where:
                near.setdefault((name, m.line), []).append(m.where or m.target)
    return near
