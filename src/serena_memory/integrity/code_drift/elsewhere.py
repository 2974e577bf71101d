"""Mentions a memory says are another project's files: "a fork of Node `lib/path.js`",
"ported from Go's `path/filepath`", "`src/x.c` in zlib's repo", "upstream `lib/a.js`".
Such a path names a file of the project it came from, not of this one, so that this
project has no such file is no drift.

Only the mention's own clause is read (as for :mod:`~serena_memory.integrity.code_drift.
negations`): a cue a few words before it, or right after it. The patterns are anchored
and bounded, with no nested quantifiers: a line of any length costs little.
"""

from __future__ import annotations

import re

_NEAR = 80
"""How far before a mention its cue is looked for."""
_AFTER = 60
"""How far after a mention its cue is looked for."""

_OWNER = (
    r"(?!(?:this|our|its|my|your|the|project|repo|repository|app|codebase|package|module"
    r"|library|server|client|frontend|backend)'s)[\w@.+-]+"
)
"""Another owner: a name, but not a word that may mean this project ("the project's")."""
_WORD = r"(?:[\w@.+-]+(?:'s)?\s+)"
_BEFORE = re.compile(
    r"(?:\b(?:fork(?:ed)?\s+(?:of|from)|port(?:ed)?\s+(?:of|from)|vendored\s+(?:from|in)"
    r"|upstream|mirrors?\s+(?:of\s+)?upstream)\s+"
    rf"{_WORD}{{0,3}}|\b(?:from|in|of)\s+(?:the\s+)?{_OWNER}'s\s+{_WORD}{{0,2}})`?$",
    re.IGNORECASE,
)
"""A cue before the mention: a fork, port or vendored copy "of"/"from" something (at
most three words between: "fork of Node `lib/path.js`"), "upstream `x`", or a possessive
other owner ("from Go's `path/filepath`", "in zlib's repo `src/a.c`")."""
_AFTER_CUE = re.compile(
    rf"`?\s*(?:\(\s*upstream\b|(?:in|from|of)\s+(?:the\s+)?(?:upstream\b|{_OWNER}'s\s+"
    r"(?:repo|repository|codebase|source|project|tree)\b))",
    re.IGNORECASE,
)
"""A cue right after the mention: "`x.c` (upstream)", "`lib/a.js` from Node's repo"."""
_CUE_WORDS = ("fork", "port", "vendored", "upstream", "'s ")


def may_be_elsewhere(line: str) -> bool:
    """A quick test for a whole line: without a cue word no mention of it is another
    project's."""
    low = line.lower()
    return any(word in low for word in _CUE_WORDS)


def said_elsewhere(line: str, start: int, end: int) -> bool:
    """Whether the text around ``line[start:end]`` (a mention) says it is a path of
    another project (for a line :func:`may_be_elsewhere`)."""
    before = line[max(0, start - _NEAR) : start]
    for stop in (". ", "; ", "! ", "? "):
        cut = before.rfind(stop)
        if cut >= 0:
            before = before[cut + 2 :]
    if _BEFORE.search(before):
        return True
    return _AFTER_CUE.match(line, end, min(len(line), end + _AFTER)) is not None
