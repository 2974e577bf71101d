"""The open histories of a process: a handle replaced because its folder is described
differently (a changed skip list) gives its folder watch back, so a long-running server
keeps watching however often that happens."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from serena_memory.core.changes import Folder
from serena_memory.history.registry import folder_history, forget_open_histories
from serena_memory.history.watching import MAX_WATCHES, WATCH_AFTER


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the folder watch is inotify")
def test_a_replaced_handle_gives_its_folder_watch_back(tmp_path: Path) -> None:
    root = (tmp_path / "memories").resolve()
    root.mkdir()
    (root / "fact.md").write_text("a fact\n", encoding="utf-8")
    forget_open_histories()  # the watches of earlier tests' folders are given back first
    try:
        for i in range(MAX_WATCHES + 3):
            folder = Folder(root, "", skip_top=frozenset({f"skipped-{i}"}))
            handle = folder_history(tmp_path / "history", folder)
            for _ in range(WATCH_AFTER):
                handle.watch.looked_at_everything()
            assert handle.watch.watching, f"no folder watch left after {i} replacements"
    finally:
        forget_open_histories()
