"""The store's facade: its verbs and a few collaborators, nothing that only forwards to a
part (the folders are the layout's, the history catch-up a function of the store's
module). A name added here is a name every caller can come to depend on."""

from __future__ import annotations

from pathlib import Path

from serena_memory.core.store import MemoryStore

MAX_PUBLIC_NAMES = 30


def test_the_store_has_at_most_thirty_public_names(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    store = MemoryStore(tmp_path / "project", home=tmp_path / "home")
    on_class = {n for n in dir(MemoryStore) if not n.startswith("_")}
    on_instance = {n for n in vars(store) if not n.startswith("_")}
    public = on_class | on_instance
    assert len(public) <= MAX_PUBLIC_NAMES, sorted(public)
    # the verbs a caller needs are all there
    assert {"list", "read", "write", "edit", "update", "delete", "rename", "history"} <= public
    # the folders are the layout's, given once
    assert store.layout.memories_dir == tmp_path / "project" / ".serena" / "memories"
    assert not {"memories_dir", "global_dir", "project_root", "home", "path_of"} & public
