"""The meaning vectors made in the background, so that no answer waits for them.

A server (the MCP server, the dashboard) starts :func:`prepare` when it starts: the words
index is brought up to date first (what the first search needs anyway), then the model is
loaded and the memories without a vector are embedded a chunk at a time, each chunk
stored in its own short transaction. Searches meanwhile are answered by words and say
that meaning-based ranking is still being prepared; a search in this process goes first
(the build waits for it between chunks). Another process may search, write or build the
same index file at the same time: a vector is stored only if its memory is still indexed
as it was when its text was read, and only while the file's vectors are of the same
model, so a build never stores a stale or foreign vector, and two builds store the same.
A process that ends stops its build between two steps (`core.background`).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

from serena_memory.core import background
from serena_memory.core.process import PROCESS

if TYPE_CHECKING:
    from serena_memory.core.store import MemoryStore
    from serena_memory.search.database import Index

CHUNK = 256  # memories embedded between two looks at whether a search is waiting
log = logging.getLogger(__name__)


class _Builds:
    """The builds of vectors this process runs, and the searches they wait for."""

    def __init__(self) -> None:
        self.guard = threading.Condition()
        self.searching = 0  # searches under way
        self.by_index: dict[str, threading.Thread] = {}  # by index key: each index's build
        self.background: set[str] = set()  # indexes whose vectors are made in the background


def _builds() -> _Builds:
    return PROCESS.owned(_Builds)


@contextlib.contextmanager
def searching() -> Iterator[None]:
    """Around a search: the builds of this process wait until it is answered."""
    builds = _builds()
    with builds.guard:
        builds.searching += 1
    try:
        yield
    finally:
        with builds.guard:
            builds.searching -= 1
            builds.guard.notify_all()


def _wait_for_searches() -> None:
    builds = _builds()
    with builds.guard:
        builds.guard.wait_for(lambda: builds.searching == 0)


def running(index: Index) -> bool:
    """Whether this process is making the vectors of ``index`` in the background."""
    builds = _builds()
    with builds.guard:
        build = builds.by_index.get(index.key)
        return build is not None and build.is_alive()


def in_background(index: Index) -> bool:
    """Whether vectors this index lacks are made in the background in this process (it
    is a server's), rather than by the search that needs them."""
    builds = _builds()
    with builds.guard:
        return index.key in builds.background


def start(store: MemoryStore) -> threading.Thread | None:
    """Make the vectors of ``store``'s index in a background thread (once at a time per
    index); from now on, searches of this process needing many vectors don't make them."""
    from serena_memory.search.database import index_for

    index = index_for(store)
    builds = _builds()
    with builds.guard:
        builds.background.add(index.key)
        build = builds.by_index.get(index.key)
        if build is not None and build.is_alive():
            return None
        build = background.start(_prepare_quietly, store, name="search-vectors")
        builds.by_index[index.key] = build
    return build


def _prepare_quietly(store: MemoryStore) -> None:
    try:
        prepare(store)
    except Exception as exc:  # searches make what is missing themselves; never a traceback
        log.warning("the search's meaning vectors could not be prepared: %s", exc)


def prepare(store: MemoryStore) -> int:
    """The words index brought up to date, then every missing vector made; the number of
    vectors stored."""
    from serena_memory.search.database import index_for
    from serena_memory.search.semantic import model_for

    index = index_for(store)
    with index.lock:
        index.refresh(store, index.current_stamps(store), None)
    if background.stopping():
        return 0
    embedder = model_for(store.layout.home)
    if embedder is None:
        return 0
    stored = 0
    tried: set[int] = set()
    while not background.stopping():
        with index.lock:
            work = [item for item in index.vector_work(embedder, CHUNK) if item[0] not in tried]
        if not work:
            return stored
        tried.update(item[0] for item in work)
        _wait_for_searches()
        vectors = embedder.embed([text for _, text, _, _, _ in work])
        with index.lock:
            before = index.vectors_missing()
            index.add_vectors(embedder, work, vectors)
            stored += max(before - index.vectors_missing(), 0)
    return stored
