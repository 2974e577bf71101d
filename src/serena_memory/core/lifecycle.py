"""Where a memory stands in its life, from its front matter (core/front_matter.py):
``status: draft|stable|deprecated``, ``superseded_by: NAME`` (or ``mem:NAME``) and
``stale_after: YYYY-MM-DD``.

A deprecated memory, or one past its ``stale_after`` date, is not current: a read says so
(with its successor), search ranks it after the current ones, listings mark it, `check
--stale` reports it, and a sync or an import never makes its old text current again. A
memory without front matter is current, as every memory always was.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from serena_memory.core import front_matter_cache as cache
from serena_memory.core import names as N
from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.front_matter import FrontMatter, parse, with_keys

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore

STATUSES = ("draft", "stable", "deprecated")
DEPRECATED = "deprecated"
STALE = "stale"
MARKS = (DEPRECATED, STALE)  # what a listing marks, in this order


@dataclass(frozen=True)
class Lifecycle:
    """A memory's status as its front matter says it (status '' when it says none)."""

    status: str = ""
    successor: str = ""  # the name ``superseded_by`` gives, normalized ('' when none)
    stale_after: dt.date | None = None

    @property
    def deprecated(self) -> bool:
        return self.status == DEPRECATED

    def stale(self, today: dt.date | None = None) -> bool:
        """Whether its ``stale_after`` date has passed."""
        return self.stale_after is not None and (today or dt.date.today()) > self.stale_after

    def current(self, today: dt.date | None = None) -> bool:
        """Neither deprecated nor stale: what search ranks first."""
        return not self.deprecated and not self.stale(today)

    def mark(self, today: dt.date | None = None) -> str:
        """'deprecated', 'stale' or '' (what a listing writes after a name)."""
        if self.deprecated:
            return DEPRECATED
        return STALE if self.stale(today) else ""

    def note(self, exists: bool = True, today: dt.date | None = None) -> str:
        """The sentence a read ends with when the memory is not current ('' when it is);
        ``exists``: whether the successor is a memory."""
        if self.deprecated:
            told = "This memory is deprecated"
            if self.successor and exists:
                return f"{told}: read `mem:{self.successor}` instead, which supersedes it."
            if self.successor:
                return f"{told}; its successor `mem:{self.successor}` does not exist."
            return f"{told}: don't rely on it; ask the user what replaces it."
        if self.stale(today):
            return (
                f"This memory was to be checked by {self.stale_after}: verify what it says in "
                "the code before relying on it, then update it and its stale_after date."
            )
        return ""


def of_front_matter(found: FrontMatter) -> Lifecycle:
    """The lifecycle a parsed front matter states; an unknown status counts as none."""
    status = found.text("status").lower()
    return Lifecycle(
        status if status in STATUSES else "",
        successor_name(found.text("superseded_by")),
        found.date("stale_after"),
    )


def of_text(text: str) -> Lifecycle:
    """The lifecycle a memory's text states."""
    return of_front_matter(parse(text))


def read_note(store: MemoryStore, text: str, today: dt.date | None = None) -> str:
    """What a read of a memory whose text is ``text`` says of its lifecycle: deprecated
    (with its successor, and whether that is a memory) or stale; '' when it is current."""
    state = of_text(text)
    return state.note(bool(state.successor) and store.exists(state.successor), today)


def successor_name(raw: str) -> str:
    """The memory ``superseded_by`` names (``mem:`` prefix, backticks and ``.md`` allowed);
    '' when it is no memory name."""
    raw = raw.strip().strip("`").strip()
    if not raw:
        return ""
    try:
        return N.normalize_name(raw)
    except MemoryStoreError:
        return ""


def deprecated_text(data: bytes | str | None) -> bool:
    """Whether a memory's stored text (bytes from a history, or text) is deprecated."""
    if data is None:
        return False
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return of_text(text).deprecated


@dataclass(frozen=True)
class Described:
    """What a listing shows after a memory's name: its summary and its mark."""

    summary: str = ""
    mark: str = ""  # 'deprecated', 'stale' or ''


def summaries_and_marks(
    store: MemoryStore, names: Iterable[str], today: dt.date | None = None, *, write: bool = True
) -> dict[str, Described]:
    """The summary and mark of each of ``names`` that has either (a memory that can't be
    read, or has no front matter, is left out); ``write``: see :func:`fronts`."""
    found: dict[str, Described] = {}
    for name, told in fronts(store, names, write=write).items():
        if told is not None and (told[0] or told[1].mark(today)):
            found[name] = Described(told[0], told[1].mark(today))
    return found


def fronts(
    store: MemoryStore,
    names: Iterable[str],
    files: dict[str, str] | None = None,
    *,
    write: bool = True,
) -> dict[str, tuple[str, Lifecycle] | None]:
    """The summary and lifecycle of each of ``names`` that can be read (None: no front
    matter). A file is read only when it changed since its front matter was last read, by
    any command (core/front_matter_cache.py); ``write``: what was read is written down for
    the next command (a server keeps it in memory only). ``files``: the store's scan."""
    files = store.scan().files if files is None else files
    kept = cache.held(store.layout.home)
    found: dict[str, tuple[str, Lifecycle] | None] = {}
    unread: list[str] = []
    for name in names:
        real = files.get(name)
        held = kept.get(real) if real is not None else None
        if held is not None and held[0] == cache.stamp_of(real or ""):
            found[name] = _from_front(held[1])
        else:
            unread.append(name)
    new: dict[str, tuple[cache.Stamp, cache.Front | None]] = {}
    for name, text in store.read_many(unread, files):
        if text is None:
            continue
        front = _front_of(text)
        found[name] = _from_front(front)
        real = files.get(name)
        stamp = cache.stamp_of(real) if real is not None else None
        if real is not None and stamp is not None:
            new[real] = (stamp, front)
    cache.keep(store.layout.home, new, write)
    return found


def _front_of(text: str) -> cache.Front | None:
    if not text.startswith("---"):
        return None
    matter = parse(text)
    if not matter.present:
        return None
    state = of_front_matter(matter)
    stale = state.stale_after.isoformat() if state.stale_after else ""
    return matter.summary, state.status, state.successor, stale


def _from_front(front: cache.Front | None) -> tuple[str, Lifecycle] | None:
    if front is None:
        return None
    summary, status, successor, stale = front
    try:
        when = dt.date.fromisoformat(stale) if stale else None
    except ValueError:
        when = None
    return summary, Lifecycle(status if status in STATUSES else "", successor, when)


@dataclass
class Survey:
    """What `check` finds of the memories' front matter: those without a summary where
    others of their folder have one, and (asked with ``--stale``) the deprecated ones, those
    past their ``stale_after`` date and the successors that name no memory."""

    missing_summary: list[str]
    deprecated: list[tuple[str, str]]  # (name, its successor or '')
    stale: list[tuple[str, str]]  # (name, its stale_after date)
    unknown_successors: list[tuple[str, str]]  # (name, the successor it names)
    scanned: int = 0


def survey(store: MemoryStore, today: dt.date | None = None) -> Survey:
    """Every memory's front matter (see :class:`Survey`). The seeded conventions memory's
    summary is the template's, not the folder's habit: it asks no other memory for one."""
    files = store.scan().files  # every memory but the ignored ones, as a listing has them
    names = sorted(files)
    summarized: dict[bool, list[str]] = {}  # per folder (global or not): those with one
    unsummarized: dict[bool, list[str]] = {}
    found = Survey([], [], [], [], len(names))
    for name, told in fronts(store, names, files).items():
        summary, state = told if told is not None else ("", Lifecycle())
        seeded = name.removeprefix(N.GLOBAL_TOPIC + "/") == N.MAINTENANCE  # the template's own
        if not (summary and seeded):
            kept = summarized if summary else unsummarized
            kept.setdefault(N.is_global(name), []).append(name)
        if state.deprecated:
            found.deprecated.append((name, state.successor))
        elif state.stale(today):
            found.stale.append((name, str(state.stale_after)))
        if state.successor and not store.exists(state.successor):
            found.unknown_successors.append((name, state.successor))
    for folder, without in unsummarized.items():
        if summarized.get(folder):
            found.missing_summary.extend(without)
    for listed in (found.missing_summary, found.deprecated, found.stale, found.unknown_successors):
        listed.sort()
    return found


KEPT_KEYS = ("status", "superseded_by")
"""What an agent's write never changes in a deprecated memory: a person retired it."""


def keep_deprecation(old: str, new: str) -> str:
    """``new`` with ``old``'s deprecation (its ``status`` and ``superseded_by`` as written)
    when ``old`` is deprecated, the rest of ``new`` as given; else ``new`` itself. An agent
    replaces a memory's whole text, front matter included, and may know nothing of it."""
    before = parse(old)
    if not of_front_matter(before).deprecated:
        return new
    return with_keys(new, {key: before.keys.get(key) for key in KEPT_KEYS})


def kept_note(store: MemoryStore, text: str) -> str:
    """What an agent is told after writing to a deprecated memory (``text``, as written):
    that it stays so, and where what is current belongs."""
    successor = of_text(text).successor
    told = "It stays deprecated, as a person marked it (your text is kept under that)"
    if successor and store.exists(successor):
        return f"{told}; put what is current in `mem:{successor}`, which supersedes it."
    if successor:
        return f"{told}; write what is current in its successor `mem:{successor}` (no memory yet)."
    return f"{told}; ask the user which memory should hold what is current."
