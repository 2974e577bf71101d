"""Writing memories: create, replace, edit, update and delete, one at a time or in bulk.

Each change normalizes the name and applies the access and secret gates before it takes
a lock, then reads, checks and writes with the folder locks held, so concurrent writers
(the agent, the dashboard, an editor that takes the same lock) never lose one another's
work; each is recorded as one history entry.
"""

from __future__ import annotations

import builtins
import os
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from serena_memory.core import names as N
from serena_memory.core.editing import EditMode, apply_edit
from serena_memory.core.errors import (
    ContentTooLongError,
    MemoryChangedError,
    MemoryEncodingError,
    MemoryNotFoundError,
    MemoryStoreError,
)
from serena_memory.core.files import atomic_write, remove_file
from serena_memory.core.store_reading import StoreReading


class WriteResult(NamedTuple):
    name: str
    created: bool
    chars: int


class EditResult(NamedTuple):
    name: str
    replacements: int


class StoreWriting(StoreReading):
    """Changes to memories' texts, each under its locks and recorded."""

    def write(
        self,
        name: str,
        content: str,
        max_chars: int | None = None,
        *,
        allow_secret: bool = False,
    ) -> WriteResult:
        """Create or replace a memory. ``max_chars`` None: no limit; -1: configured default."""
        if not isinstance(content, str):
            raise MemoryStoreError("memory content must be text")
        settings = self.settings
        name = self._accessible(name, write=True, settings=settings)
        if max_chars is not None:
            limit = (
                settings.global_config.default_max_tool_answer_chars if max_chars < 0 else max_chars
            )
            if len(content) > limit:
                raise ContentTooLongError(
                    f"content of '{name}' has {len(content)} characters, more than the limit of "
                    f"{limit}; split it into several memories (or raise max_chars)"
                )
        self.refuse_secrets({name: content}, allow_secret)
        path = self.real_path_of(name)
        if not path.exists():
            N.check_portable(name)  # before its folder is made
        with (
            self._changing(name, create=[name]),
            # the entry says whether the memory was created or replaced (the lock is held)
            self.recording(_write_summary(name, path.exists()), name, settings=settings) as record,
        ):
            created = not path.exists()
            if created:
                N.check_portable(name)
            refuse_folder(name, path)
            atomic_write(path, encode_memory(name, content), self._allowed(name))
            record.touched(name)
        return WriteResult(name, created, len(content))

    def create_if_absent(self, name: str, content: str) -> bool:
        """Write a new memory unless one exists (any file or link in its place counts);
        for seeding files a person may have customized. No access rules: callers seed
        what they own. Returns whether it was written."""
        name = N.normalize_name(name)
        self.refuse_secrets({name: content})
        path = self.real_path_of(name)
        with self._changing(name, create=[name]):
            if os.path.lexists(path):
                return False
            with self.recording(_write_summary(name, False), name) as record:
                atomic_write(path, encode_memory(name, content), self._allowed(name))
                record.touched(name)
        return True

    def delete(self, name: str, expected_version: str | None = None) -> str:
        """Delete a memory; with ``expected_version``, only if nobody changed it since.
        Returns the canonical name of the memory deleted."""
        name = self._accessible(name, write=True)
        path = self._entry_path(name)  # a link is removed itself, never its target
        with self._changing(name), self.recording(f"Delete {name}", name) as record:
            if expected_version is not None:
                current = self._read_text(name)
                if self.version_of(current) != expected_version:
                    raise MemoryChangedError(
                        f"memory '{name}' was changed since it was read; nothing was deleted",
                        name,
                        current,
                        self.version_of(current),
                    )
            try:
                remove_file(path, self._allowed(name))
            except (FileNotFoundError, NotADirectoryError):
                raise MemoryNotFoundError(self._not_found_message(name), name=name) from None
            except IsADirectoryError:
                raise MemoryNotFoundError(self._not_found_message(name), name=name) from None
            self._moved()
            record.touched(name)
            self._prune_empty_topics(path.parent)
        return name

    def edit(
        self,
        name: str,
        needle: str,
        repl: str,
        mode: str | EditMode = EditMode.LITERAL,
        allow_multiple_occurrences: bool = False,
        *,
        allow_secret: bool = False,
    ) -> EditResult:
        """Read-modify-write under the lock, so concurrent edits never lose one another."""
        name = self._accessible(name, write=True)
        path = self.real_path_of(name)
        with self._changing(name):
            text = self._read_text(name)
            new_text, count = apply_edit(text, needle, repl, mode, allow_multiple_occurrences)
            if new_text != text:
                self.refuse_secrets({name: new_text}, allow_secret)
                with self.recording(f"Edit {name}", name) as record:
                    atomic_write(path, encode_memory(name, new_text), self._allowed(name))
                    record.touched(name)
        return EditResult(name, count)

    def update(self, name: str, transform: Callable[[str], str]) -> bool:
        """Read-modify-write with a computed change (a reference fix, prefixing bare names).

        ``transform`` receives the current text under the folder lock, so an edit made
        meanwhile is never lost. Returns whether the memory changed.
        """
        name = self._accessible(name, write=True)
        path = self.real_path_of(name)
        with self._changing(name):
            text = self._read_text(name)
            new_text = transform(text)
            if new_text == text:
                return False
            self.refuse_secrets({name: new_text})
            with self.recording(f"Update {name}", name) as record:
                atomic_write(path, encode_memory(name, new_text), self._allowed(name))
                record.touched(name)
        return True

    def update_many(
        self, transforms: dict[str, Callable[[str], str]], summary: str
    ) -> builtins.list[str]:
        """:meth:`update` for several memories at once, recorded as one history entry.
        Returns the names that changed."""
        names = [self._accessible(n, write=True) for n in transforms]
        funcs = dict(zip(names, transforms.values(), strict=True))
        changed: list[str] = []
        with self._changing(*names):
            texts = {name: self._read_text(name) for name in names}
            new_texts = {name: funcs[name](texts[name]) for name in names}
            self.refuse_secrets({n: t for n, t in new_texts.items() if t != texts[n]})
            with self.recording(summary, *names) as record:
                for name in names:
                    new_text = new_texts[name]
                    if new_text == texts[name]:
                        continue
                    path = self.real_path_of(name)
                    atomic_write(path, encode_memory(name, new_text), self._allowed(name))
                    record.touched(name)
                    changed.append(name)
        return changed

    def create_many(
        self,
        contents: dict[str, str],
        summary: str,
        *,
        allow_secret: bool = False,
        appended: dict[str, str] | None = None,
    ) -> builtins.list[str]:
        """Create the memories of ``contents`` that do not exist yet, as one history entry
        (an import, undone in one restore); an existing one is left as it is, checked under
        the lock. Same gates as :meth:`write`. Returns the names created.

        ``appended``: a paragraph to add at the end of existing memories in the same entry
        (the reference an import leaves in a memory whose name its text could not take), once:
        a memory that already holds it, or can't be read as text, is left as it is."""
        settings = self.settings
        planned = {
            self._accessible(n, write=True, settings=settings): t for n, t in contents.items()
        }
        additions = {
            self._accessible(n, write=True, settings=settings): t
            for n, t in (appended or {}).items()
        }
        self.refuse_secrets({**planned, **additions}, allow_secret)
        data = {name: encode_memory(name, text) for name, text in planned.items()}
        for name in planned:
            if not os.path.lexists(self.real_path_of(name)):
                N.check_portable(name)  # before its folder is made
        created: list[str] = []
        with (
            self._changing(*planned, *additions, create=planned),
            self.recording(summary, *planned, *additions, settings=settings) as record,
        ):
            for name, raw in data.items():
                path = self.real_path_of(name)
                if os.path.lexists(path):
                    continue
                atomic_write(path, raw, self._allowed(name))
                record.touched(name)
                created.append(name)
            for name, paragraph in additions.items():
                if self._append_once(name, paragraph):
                    record.touched(name)
        return created

    def _append_once(self, name: str, paragraph: str) -> bool:
        """Add ``paragraph`` after the memory's text unless it holds it; under the lock."""
        try:
            text = self._read_bytes(name).decode("utf-8")
        except (OSError, UnicodeDecodeError, MemoryStoreError):
            return False
        if paragraph.strip() in text:
            return False
        joined = text.rstrip("\n") + "\n\n" + paragraph.strip("\n") + "\n"
        atomic_write(self.real_path_of(name), encode_memory(name, joined), self._allowed(name))
        return True

    # -- optimistic concurrency (the dashboard's "no lost work") ------------------------
    @staticmethod
    def version_of(content: str) -> str:
        """A memory's version token: the SHA-256 of its UTF-8 bytes."""
        import hashlib

        return hashlib.sha256(content.encode("utf-8")).hexdigest()

    def write_if_unchanged(
        self,
        name: str,
        content: str,
        expected_version: str | None,
        *,
        allow_secret: bool = False,
    ) -> WriteResult:
        """Write only if the memory still has ``expected_version`` (None: must not exist).

        The check and the write happen under the folder lock, so a change made in between
        by the agent, an editor or another tab is reported instead of overwritten.
        """
        if not isinstance(content, str):
            raise MemoryStoreError("memory content must be text")
        name = self._accessible(name, write=True)
        self.refuse_secrets({name: content}, allow_secret)
        path = self.real_path_of(name)
        with self._changing(name, create=[name]):
            try:
                current: str | None = self._read_text(name)
            except MemoryNotFoundError:
                current = None
            current_version = None if current is None else self.version_of(current)
            if current_version != expected_version:
                if expected_version is None:
                    why = "already exists"
                elif current is None:
                    why = "was deleted since it was read"
                else:
                    why = "was changed since it was read"
                raise MemoryChangedError(
                    f"memory '{name}' {why}; nothing was written", name, current, current_version
                )
            if current is None:
                N.check_portable(name)
            refuse_folder(name, path)
            with self.recording(_write_summary(name, current is not None), name) as record:
                atomic_write(path, encode_memory(name, content), self._allowed(name))
                record.touched(name)
        return WriteResult(name, current is None, len(content))


def _write_summary(name: str, replacing: bool) -> str:
    return f"{'Replace' if replacing else 'Create'} {name}"


def refuse_folder(name: str, path: Path) -> None:
    """A folder named like the memory's file (``t/a.md/``) can't be replaced by it."""
    if path.is_dir():
        raise MemoryStoreError(
            f"can't write memory '{name}': {path} is a folder; rename or remove that folder"
        )


def encode_memory(name: str, text: str) -> bytes:
    """UTF-8 bytes of a memory; text holding lone surrogates (undecodable input) is refused."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise MemoryEncodingError(
            f"content for memory '{name}' can't be stored as UTF-8 (character "
            f"{exc.start + 1} is {exc.object[exc.start]!r}); it probably came from "
            "undecodable input"
        ) from None
