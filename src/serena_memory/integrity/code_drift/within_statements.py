"""What is told of the names inside a code span that holds a whole statement (``from
.recipes import *``, ``{ assertString(str); ... }``, ``const x = require('./lib/x')``,
``git mv a.py b.py``): such a span is often an example or another library's code, so a
name in it is told only when git saw it go (a symbol renamed or removed in a commit, a
file moved, or gone after git knew it); one git never knew stays quiet. A module an
import names is read both as a file and as a name: it is told once, by its file (or by
its new name when git saw the name itself renamed), and not at all when its file is
there or git never knew it (another library's module).
"""

from __future__ import annotations

from serena_memory.integrity.code_drift.code_report import MOVED, CodeFinding
from serena_memory.integrity.code_drift.forms import MEMBER, MODULE
from serena_memory.integrity.code_drift.mentions import PATH, SYMBOL, Mention

_Key = tuple[str, int, str]  # memory, line, mention as written


def told_once(findings: list[CodeFinding], mentions: dict[str, list[Mention]]) -> list[CodeFinding]:
    """``findings`` of the memories whose ``mentions`` are given (name -> mentions), but
    the names inside statements git never saw go, and each module told once."""
    inner, whole, modules = _kinds(mentions)
    renamed = {_key(f) for f in findings if f.kind == SYMBOL and f.new_name}
    out = []
    for f in findings:
        key = _key(f)
        if (key, f.kind) in inner and (key, f.kind) not in whole and not _seen_gone(f):
            continue  # a name of a statement git never saw go: an example, a library's
        if f.form in (MODULE, MEMBER) and key in renamed:
            continue  # the module's name renamed: told with its new name
        if (
            f.kind == SYMBOL
            and key not in renamed
            and f.target.replace(".", "/") in modules.get(key, ())
        ):
            continue  # a module's name: told by its file (none: there, or not the project's)
        out.append(f)
    return out


def _kinds(
    mentions: dict[str, list[Mention]],
) -> tuple[set[tuple[_Key, str]], set[tuple[_Key, str]], dict[_Key, set[str]]]:
    """(inner, whole): the (mention, kind) written inside statements, and on their own;
    and the modules each mention names, as ``/``-joined parts."""
    inner: set[tuple[_Key, str]] = set()
    whole: set[tuple[_Key, str]] = set()
    modules: dict[_Key, set[str]] = {}
    for memory, found in mentions.items():
        for m in found:
            key = (memory, m.line, m.text)
            (inner if m.inner else whole).add((key, m.kind))
            if m.kind == PATH and m.form in (MODULE, MEMBER):
                modules.setdefault(key, set()).add(m.target)
    return inner, whole, modules


def _key(f: CodeFinding) -> _Key:
    return (f.memory, f.line, f.mention)


def _seen_gone(f: CodeFinding) -> bool:
    """Whether git saw what a finding names go: a file moved (a path's other findings
    come only for files git knew: the names of a statement are weak), a symbol renamed
    or removed in a commit."""
    if f.kind == PATH:
        return True
    return bool(f.commit) or f.status == MOVED
