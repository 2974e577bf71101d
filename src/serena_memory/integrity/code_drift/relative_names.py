"""Which file a name written from another file names (``./escape.js``,
``../arguments/escape.js``, ``from . import formatting``, ``..utils``): a memory seldom says
which file writes it, but the files it names with their folder are the likeliest
(``lib/arguments/command.js``), so it is read from their folders first; and when it is
read as any file of that name and all of them went, it is told moved when each gives it
the same new form (pure: what the project has is asked through ``at_root``).
"""

from __future__ import annotations

from collections.abc import Callable

from serena_memory.integrity.code_drift.forms import climbs, rewritten, written_from
from serena_memory.integrity.code_drift.mentions import Mention


def placed_from(
    m: Mention, groups: list[tuple[str, list[str]]], at_root: Callable[[str], bool]
) -> tuple[str, list[str]] | None:
    """(prefix, [file]) for a name written from a file when, read from the folders of
    the files its memory names (``m.bases``), it names one file the project has or git
    knew (``at_root``); None: none or several that way (it is read as any file of that
    name then). ``groups``: (prefix, files) it may name, from its own folder."""
    ups = climbs(m.text, m.form)
    if ups is None or not m.bases:
        return None
    found: dict[str, str] = {}
    for base in m.bases:
        for prefix, files in groups:
            paths = (written_from(base, ups, f) for f in files)
            hit = next((p for p in paths if p and at_root(p)), None)
            if hit is not None:
                found.setdefault(hit, prefix)
                break
    if len(found) != 1:
        return None
    ((file, prefix),) = found.items()
    return prefix, [file]


Moves = dict[str, tuple[str, str]]
"""Where a name's files went: new path -> (old path, commit)."""


def one_new_form(m: Mention, prefix: str, went: Moves, then: Callable[[Moves], Moves]) -> Moves:
    """``went``, or one place of it when it is several that all give the name the same
    new form (``../arguments/escape.js``, whose `lib/` and `test/` files were both renamed
    `quote.js`, is ``../arguments/quote.js`` either way): of those ``then`` keeps (the
    one there when the memory last changed), the first."""
    if len(went) < 2:
        return went
    written = {rewritten(m.text, m.form, prefix, old, new) for new, (old, _c) in went.items()}
    if len(written) != 1 or None in written:
        return went
    kept = then(went)
    first = min(kept)
    return {first: kept[first]}
