"""Where a memories folder's history lives: one bare repository per folder, under the
history root. Naming it loads nothing of git, so a listing can look for a folder's sync
conflicts beside its repository cheaply."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path


def repository_path(history_root: Path, folder: Path) -> Path:
    """One repository per memories folder, keyed by the folder's resolved path; the
    readable part of the name is only for a person browsing the history folder."""
    real = os.path.realpath(folder)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    parts = [p for p in Path(real).parts if p not in ("/", ".serena", "memories")]
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", "-".join(parts[-2:])).strip("-.")[:40] or "root"
    return history_root / f"{slug}-{digest}.git"
