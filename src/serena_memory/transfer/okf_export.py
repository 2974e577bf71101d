"""A project's memories out as an Open Knowledge Format (OKF v0.2) bundle: a folder of
concepts (one per memory, :mod:`.okf_concept`), an ``index.md`` in every folder listing
its concepts with their descriptions, and ``log.md`` from the history.

The same memories, history and code give the same bytes, so ``--check`` can tell a stale
bundle. The bundle is written only inside the folder named (a link inside it that leads
out is refused, never followed); a file it wrote before for a memory deleted since is
removed, and nothing it did not write is touched.
"""

from __future__ import annotations

import os
import posixpath
import stat
from dataclasses import dataclass, field
from pathlib import Path

from serena_memory.core import names as N
from serena_memory.core import paths
from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.files import atomic_write, remove_file
from serena_memory.core.store import MemoryStore
from serena_memory.transfer import okf_concept as C
from serena_memory.transfer.okf_provenance import CodeFacts, derived_keys, history_facts, log_text
from serena_memory.transfer.sources import SourceError, decode_source

MAX_OWN_FILE_BYTES = 4 * 1024 * 1024  # a concept file looked at for our mark


@dataclass
class OkfResult:
    dest: Path
    memories: int
    written: list[str] = field(default_factory=list)  # bundle paths written (or to write)
    removed: list[str] = field(default_factory=list)  # our files of memories gone since

    @property
    def changed(self) -> bool:
        return bool(self.written or self.removed)


def bundle_files(
    store: MemoryStore, *, include_global: bool = False, code: CodeFacts | None = None
) -> dict[str, bytes]:
    """Every file of the bundle: bundle path -> bytes."""
    names = sorted(n for n in store.scan().files if include_global or not N.is_global(n))
    paths_of: dict[str, str] = {}
    for name in names:
        paths_of[name] = C.concept_path(name, set(paths_of.values()))
    history = history_facts(store, names)
    files: dict[str, bytes] = {}
    listed: dict[str, list[tuple[str, str, str]]] = {}  # folder -> (file, title, description)
    for name in names:
        text = _memory_text(store, name)
        keys, _, body = C.memory_front_matter(text)
        derived = {
            "type": C.CONCEPT_TYPE,
            "title": name,
            "description": C.description_of(keys, body),
            **derived_keys(
                name, text, history.facts.get(name), None if N.is_global(name) else code
            ),
        }
        path = paths_of[name]
        files[path] = C.concept_text(name, text, derived, paths_of).encode("utf-8")
        shown = {**derived, **keys}  # what the concept's front matter says
        listed.setdefault(posixpath.dirname(path), []).append(
            (posixpath.basename(path), str(shown.get("title") or name), C.description_of(shown, ""))
        )
    files.update(_indexes(listed))
    wanted = [
        e for e in history.entries if any(include_global or not N.is_global(n) for n in e.names())
    ]
    if wanted:
        files["log.md"] = log_text(wanted, paths_of).encode("utf-8")
    return files


def _memory_text(store: MemoryStore, name: str) -> str:
    data = store.read_bytes(name)
    try:
        return decode_source(f"memory {name!r}", data)
    except SourceError:
        raise SourceError(
            f"memory {name!r} is not valid UTF-8, so the bundle is not written; re-save that "
            "memory as UTF-8 and export again"
        ) from None


def _indexes(listed: dict[str, list[tuple[str, str, str]]]) -> dict[str, bytes]:
    """``index.md`` of every folder: its concepts, then its subfolders (each with the
    number of memories below it); the root's carries ``okf_version``."""
    folders = {""}
    below: dict[str, int] = {}
    for folder, items in listed.items():
        parts = folder.split("/") if folder else []
        for i in range(len(parts) + 1):
            key = "/".join(parts[:i])
            folders.add(key)
            below[key] = below.get(key, 0) + len(items)
    return {
        posixpath.join(folder, "index.md"): _index_text(folder, folders, listed, below)
        for folder in sorted(folders)
    }


def _index_text(
    folder: str,
    folders: set[str],
    listed: dict[str, list[tuple[str, str, str]]],
    below: dict[str, int],
) -> bytes:
    lines = [f'---\nokf_version: "{C.OKF_VERSION}"\n---\n'] if not folder else []
    items = sorted(listed.get(folder, []))
    if items:
        lines += ["# Memories", "", *(_entry(f, t, d) for f, t, d in items), ""]
    subs = sorted(f for f in folders if f and posixpath.dirname(f) == folder)
    if subs:
        lines += ["# Topics", ""]
        for sub in subs:
            count = f"{below[sub]} memor{'y' if below[sub] == 1 else 'ies'}"
            lines.append(
                _entry(f"{posixpath.basename(sub)}/index.md", posixpath.basename(sub), count)
            )
        lines.append("")
    return "\n".join(lines).encode("utf-8")


def _entry(target: str, title: str, description: str) -> str:
    label = title.replace("[", "(").replace("]", ")")
    told = C.plain_text(description)
    return f"* [{label}]({target})" + (f" - {told}" if told else "")


def export_okf(
    store: MemoryStore,
    dest: str | Path,
    *,
    include_global: bool = False,
    check: bool = False,
    code: CodeFacts | None = None,
) -> OkfResult:
    """Write the bundle into the folder ``dest`` (with ``check``: only compare)."""
    folder = Path(dest).expanduser().absolute()
    _refuse_memories_folder(store, folder)
    real = _destination(folder, create=not check)
    files = bundle_files(store, include_global=include_global, code=code)
    memories = sum(1 for p in files if posixpath.basename(p) not in C.RESERVED)
    result = OkfResult(folder, memories)
    for rel, data in files.items():
        current = _current(real, rel)
        if current != data:
            result.written.append(rel)
            if current is not None and not check and not _ours(rel, current):
                raise SourceError(
                    f"{Path(folder, rel)} exists and no export of memories wrote it, so it is "
                    "left as it is and nothing was written; move it, or export into another folder"
                )
    result.removed = _ours_gone(real, set(files)) if real else []
    if check or real is None:
        return result
    for rel in result.written:
        target = Path(real, rel)
        _folders(real, posixpath.dirname(rel))
        atomic_write(target, files[rel], (real,))
    for rel in result.removed:
        remove_file(Path(real, rel), (real,))
    return result


def _refuse_memories_folder(store: MemoryStore, folder: Path) -> None:
    """A bundle written into a memories folder would be read back as memories."""
    real = os.path.realpath(folder)
    for memories in (store.layout.memories_dir, store.layout.global_dir):
        if paths.is_inside(real, (os.path.realpath(memories),)):
            raise SourceError(
                f"{folder} lies in the memories folder {memories}, where its files would "
                "become memories; give a folder outside it"
            )


def _destination(folder: Path, create: bool) -> str | None:
    """The real path of the bundle folder (None: absent, and ``check`` creates nothing)."""
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        if not create:
            return None
        folder.mkdir(parents=True)
        st = os.lstat(folder)
    except OSError as exc:
        raise SourceError(f"{folder} can't be used ({exc.strerror or exc})") from None
    if stat.S_ISLNK(st.st_mode):
        raise SourceError(
            f"{folder} is a symlink, which an export never writes through; give the folder itself"
        )
    if not stat.S_ISDIR(st.st_mode):
        raise SourceError(f"{folder} is {paths.file_kind(st.st_mode)}, not a folder; give a folder")
    return os.path.realpath(folder)


def _folders(real: str, rel: str) -> None:
    """Create the folders of ``rel`` below ``real``, refusing one that leads out of it."""
    at = real
    for part in [p for p in rel.split("/") if p]:
        at = os.path.join(at, part)
        if not os.path.lexists(at):
            os.mkdir(at)
        if not paths.is_inside(os.path.realpath(at), (real,)) or not os.path.isdir(at):
            raise SourceError(
                f"{at} is a link out of the bundle folder {real} (or not a folder), so the "
                "bundle is not written there; remove it and export again"
            )


def _current(real: str | None, rel: str) -> bytes | None:
    """The bytes at ``rel`` in the bundle folder now (None: absent or not a regular file
    inside it)."""
    if real is None:
        return None
    try:
        target = os.path.realpath(os.path.join(real, rel))
        return paths.read_regular_file(target, (real,), rel, MAX_OWN_FILE_BYTES)
    except (OSError, MemoryStoreError):
        return None


def _ours_gone(real: str | None, keep: set[str]) -> list[str]:
    """The files an earlier export wrote that this one does not: concepts carrying our
    mark, and our index and log files of folders it no longer writes."""
    if real is None:
        return []
    folders = {posixpath.dirname(p) for p in keep}
    gone = []
    for folder, dirs, found in os.walk(real, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(found):
            rel = Path(folder, name).relative_to(real).as_posix()
            if rel in keep or not name.endswith(".md"):
                continue
            data = _current(real, rel)
            if name in C.RESERVED:
                if posixpath.dirname(rel) not in folders and (data or b"").startswith(_OUR_HEADS):
                    gone.append(rel)
            elif _marked(data):
                gone.append(rel)
    return gone


_OUR_HEADS = (b"# Memories", b"# Topics", b"# Memory history")


def _ours(rel: str, data: bytes) -> bool:
    """Whether a file of the bundle folder is one an export of ours wrote."""
    if posixpath.basename(rel) in C.RESERVED:
        return data.startswith(_OUR_HEADS) or data.startswith(b'---\nokf_version: "')
    return _marked(data)


def _marked(data: bytes | None) -> bool:
    """Whether a concept file is one an export of ours wrote (it carries our mark)."""
    if not data:
        return False
    try:
        keys = C.split_front_matter(data.decode("utf-8"))[0]
    except UnicodeDecodeError:
        return False
    return isinstance(keys.get(C.MARK), dict)
