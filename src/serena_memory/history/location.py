"""Where a memories folder's history lives: one bare repository per folder, under the
history root. Naming it loads nothing of git, so a listing can look for a folder's sync
conflicts beside its repository cheaply. Which folders have a history, and where the
repositories go, is said here too (from the store's folders and settings)."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from serena_memory.core import names as N
from serena_memory.core.changes import Folder

if TYPE_CHECKING:
    from serena_memory.core.config import Settings, SyncConfig
    from serena_memory.core.layout import Layout, Scopes
    from serena_memory.core.store import MemoryStore


def repository_path(history_root: Path, folder: Path) -> Path:
    """One repository per memories folder, keyed by the folder's resolved path; the
    readable part of the name is only for a person browsing the history folder."""
    real = os.path.realpath(folder)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    parts = [p for p in Path(real).parts if p not in ("/", ".serena", "memories")]
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", "-".join(parts[-2:])).strip("-.")[:40] or "root"
    return history_root / f"{slug}-{digest}.git"


def history_root(store: MemoryStore, settings: Settings | None = None) -> Path:
    """The folder of every history repository (``memory_history_dir``, else
    ``$SERENA_HOME/history``)."""
    configured = (settings or store.settings).global_config.memory_history_dir
    return configured if configured is not None else store.layout.home / "history"


def history_folders(store: MemoryStore, settings: Settings | None = None) -> list[Folder]:
    """The project's memories folder and the global one, as the history sees them: the
    real folders (those the store's locks are taken on) with their path-gate scopes, so
    the history reads exactly what the store may read."""
    scopes = store.layout.scopes(settings or store.settings)
    return scope_folders(store.layout, scopes, store.sync_config)


def scope_folders(
    layout: Layout, scopes: Scopes, sync: SyncConfig, project_folder: Path | None = None
) -> list[Folder]:
    """:func:`history_folders` of a change, from the scopes and sync settings of its
    snapshot (a change hands them: the history reads no settings of its own), and the
    project's real memories folder when the change resolved it already."""
    return [
        project_scope_folder(layout, scopes, project_folder),
        global_scope_folder(layout, scopes, sync),
    ]


def project_scope_folder(
    layout: Layout, scopes: Scopes, project_folder: Path | None = None
) -> Folder:
    """The project's memories folder as its history sees it (see :func:`scope_folders`)."""
    project = scopes[0]
    root = project_folder or layout.real_folder(project)
    return Folder(root, "", frozenset({N.GLOBAL_TOPIC}), "project", project)


def global_scope_folder(layout: Layout, scopes: Scopes, sync: SyncConfig) -> Folder:
    """The global memories folder as its history sees it: the team's memories have their
    own history, their repository (sync/merge.py)."""
    global_ = scopes[1]
    team = sync.team_topic_pulled()
    skipped = frozenset({team} if team else ())
    return Folder(layout.real_folder(global_), N.GLOBAL_TOPIC + "/", skipped, "global", global_)


def history_folder(store: MemoryStore, scope: str, settings: Settings | None = None) -> Folder:
    """The project's ("project") or the global ("global") memories folder."""
    return next(f for f in history_folders(store, settings) if f.label == scope)
