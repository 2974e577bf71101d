"""Setting memories to exact bytes: a restore from the history, a sync's merge.

These write versions computed elsewhere (old texts, merged texts, the team's files) as
they are, without reading the current text as an edit does. A restore is one change like
any other; a sync computes its plan with the locks held (:meth:`apply_planned`), since
only the plan knows which memories it will change.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

from serena_memory.core import names as N
from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.files import atomic_write, ensure_folder, remove_file
from serena_memory.core.store_reading import StoreReading
from serena_memory.core.store_writing import refuse_folder

PLAN_ATTEMPTS = 5  # a sync re-plans when memories change between its plan and its locks


class StoreVersions(StoreReading):
    """Exact versions written under the locks: restores and syncs."""

    def apply_versions(
        self, versions: dict[str, bytes | None], summary: str, *, allow_secret: bool = False
    ) -> dict[str, str]:
        """Set memories to exact bytes (None: delete them) as one history entry, under the
        lock; a restore is such a change, never a rewrite of the history."""
        settings = self.settings
        planned = {
            self._accessible(n, write=True, settings=settings): v for n, v in versions.items()
        }
        self.refuse_secrets(dict(planned), allow_secret)
        done: dict[str, str] = {}
        created = [n for n, data in planned.items() if data is not None]
        for name in created:
            if not self.real_path_of(name).exists():
                N.check_portable(name)  # before its folder is made
        with (
            self._changing(*planned, create=created),
            self.recording(summary, *planned, settings=settings) as record,
        ):
            for name, data in planned.items():
                what = self._set_version(name, data)
                if what:
                    done[name] = "restored" if what != "deleted" else what
                record.touched(name)
        return done

    def _set_version(self, name: str, data: bytes | None) -> str | None:
        """Write exact bytes to a memory (None: delete it), through the path gate, with its
        locks held; returns "created", "changed", "deleted" or None (nothing to delete)."""
        if data is None:
            path = self._entry_path(name)
            try:
                remove_file(path, self._allowed(name))
            except (FileNotFoundError, NotADirectoryError):
                return None
            self._moved()
            self._prune_empty_topics(path.parent)
            return "deleted"
        path = self.real_path_of(name)
        created = not path.exists()
        refuse_folder(name, path)
        atomic_write(path, data, self._allowed(name))
        return "created" if created else "changed"

    @contextlib.contextmanager
    def _planned_change(
        self, root: Path, plan: Callable[[], dict[str, bytes | None] | None]
    ) -> Iterator[dict[str, bytes | None] | None]:
        """Run ``plan`` under the locks of the memories it will change, which only the plan
        knows: it runs under the folder's lock first, then again under the locks of the
        memories it named, until they are the same (usually the second time). Yields the
        final plan with those locks held."""
        ensure_folder(root)
        names: list[str] = []
        created: list[str] = []
        for _ in range(PLAN_ATTEMPTS):
            with self._changing(*names, create=created, real_folders=[root]):
                versions = plan()
                wanted = [] if versions is None else sorted(versions)
                if versions is None or set(wanted) <= set(names):
                    yield versions
                    return
            names = wanted
            created = [n for n in wanted if versions and versions[n] is not None]
        raise MemoryStoreError(
            f"the memories in {root} kept changing while a sync was written; sync again"
        )

    def apply_planned(
        self,
        scope: str,
        plan: Callable[[], dict[str, bytes | None] | None],
        written: Callable[[dict[str, bytes | None]], None] | None = None,
    ) -> dict[str, str]:
        """Write the memories that ``plan`` computes in one folder ("project" or "global"),
        under their locks, through the path gate; ``written`` then runs with the locks
        still held (a sync records its entry there). Read-only patterns do not apply: a
        sync carries the person's own changes from another machine, or the team's."""
        spec = self.history_folder(scope)
        done: dict[str, str] = {}
        with self._planned_change(spec.root, plan) as found:
            if found is None:
                return {}
            self.refuse_secrets(dict(found))  # a sync keeps them out before; never written
            for name, data in found.items():
                what = self._set_version(name, data)
                if what:
                    done[name] = what
            if written is not None:
                written(found)
        return done

    def apply_pulled(self, plan: Callable[[], dict[str, bytes | None]]) -> dict[str, str]:
        """Write the team's memories that ``plan`` computes, under their locks. They have
        their own history, the team's repository, so nothing is recorded here."""
        return self.apply_planned("global", plan)
