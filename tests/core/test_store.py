"""The memory store: listing, reading, writing, deleting, read-only and ignored rules,
undecodable files and symlinked folders."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import write_config

from serena_memory.core.errors import (
    ContentTooLongError,
    IgnoredMemoryError,
    InvalidNameError,
    MemoryEncodingError,
    MemoryNotFoundError,
    MemoryStoreError,
    ReadOnlyMemoryError,
)
from serena_memory.core.store import Context, MemoryStore
from serena_memory.wiring import build_store


def _fill(s: MemoryStore, names: list[str]) -> None:
    for name in names:
        s.write(name, f"# {name}\n")


# -- layout --------------------------------------------------------------------------------


def test_files_land_where_the_spec_says(store: MemoryStore, project: Path, serena_home: Path):
    store.write("auth/login", "login")
    store.write("global/style", "style")
    assert (project / ".serena" / "memories" / "auth" / "login.md").read_text() == "login"
    assert (serena_home / "memories" / "global" / "style.md").read_text() == "style"


def test_a_project_needs_nothing_before_the_first_write(store: MemoryStore, project: Path):
    assert store.list().all == []
    assert not (project / ".serena").exists()
    store.write("core", "x")
    assert (project / ".serena" / "memories" / "core.md").is_file()


def test_global_memories_are_shared_by_projects(tmp_path: Path, serena_home: Path) -> None:
    one = build_store(tmp_path / "one", home=serena_home)
    two = build_store(tmp_path / "two", home=serena_home)
    one.write("global/style", "tabs")
    one.write("local", "only one")
    assert two.read("global/style") == "tabs"
    assert two.list().all == ["global/style"]
    with pytest.raises(MemoryNotFoundError):
        two.read("local")


def test_a_project_folder_named_global_is_not_a_global_memory(store: MemoryStore) -> None:
    hand_made = store.layout.memories_dir / "global" / "fake.md"
    hand_made.parent.mkdir(parents=True)
    hand_made.write_text("not global")
    store.write("global/real", "real")
    assert store.list().all == ["global/real"]


# -- list ------------------------------------------------------------------------------------


NAMES = [
    "core",
    "auth/login",
    "auth/session/tokens",
    "authx",
    "auth_notes",
    "db/migrations",
    "global/style",
    "global/team/rules",
    "Zeta",
]


def test_list_is_sorted_and_complete(store: MemoryStore) -> None:
    _fill(store, list(reversed(NAMES)))
    listing = store.list()
    assert listing.memories == sorted(NAMES)
    assert listing.read_only_memories == []


@pytest.mark.parametrize(
    ("topic", "expected"),
    [
        ("auth", ["auth/login", "auth/session/tokens"]),
        ("auth/", ["auth/login", "auth/session/tokens"]),
        ("auth/session", ["auth/session/tokens"]),
        ("global", ["global/style", "global/team/rules"]),
        ("global/team", ["global/team/rules"]),
        ("db", ["db/migrations"]),
        ("nothing", []),
        ("", sorted(NAMES)),
    ],
)
def test_list_by_topic(store: MemoryStore, topic: str, expected: list[str]) -> None:
    _fill(store, NAMES)
    assert store.list(topic).all == expected


@pytest.mark.parametrize("topic", ["..", "../", "../..", "auth/../.."])
def test_a_topic_cannot_escape_the_memories_folder(store: MemoryStore, topic: str) -> None:
    store.write("core", "x")
    with pytest.raises(InvalidNameError):
        store.list(topic)


def test_read_only_memories_are_listed_apart(project: Path, serena_home: Path) -> None:
    write_config(serena_home / "serena_config.yml", "read_only_memory_patterns: ['global/.*']\n")
    write_config(project / ".serena" / "project.yml", "read_only_memory_patterns: ['db/.*']\n")
    for context in (Context.HUMAN, Context.AGENT):
        s = build_store(project, home=serena_home, context=context)
        if context is Context.HUMAN:
            _fill(s, NAMES)
        listing = s.list()
        writable = ["Zeta", "auth/login", "auth/session/tokens", "auth_notes", "authx", "core"]
        assert listing.memories == writable
        assert listing.read_only_memories == [
            "db/migrations",
            "global/style",
            "global/team/rules",
        ]
        assert s.list("global").memories == []
        assert s.list("global").read_only_memories == ["global/style", "global/team/rules"]


# -- read / write / delete -------------------------------------------------------------------


def test_write_then_read_keeps_content_exactly(store: MemoryStore) -> None:
    content = "# Título\r\nline with trailing spaces   \n\n\tcode\nno newline at end ✓"
    result = store.write("notes", content)
    assert result.created and result.name == "notes" and result.chars == len(content)
    assert store.read("notes") == content
    assert store.read("mem:notes.md") == content


def test_write_replaces_and_says_so(store: MemoryStore) -> None:
    assert store.write("a", "one").created is True
    assert store.write("mem:a.md", "two").created is False
    assert store.read("a") == "two"
    assert store.list().all == ["a"]


def test_write_creates_topic_folders(store: MemoryStore) -> None:
    store.write("a/b/c/d", "deep")
    assert (store.layout.memories_dir / "a" / "b" / "c" / "d.md").read_text() == "deep"
    assert store.list("a/b").all == ["a/b/c/d"]


def test_write_respects_a_length_limit_when_asked(store: MemoryStore, serena_home: Path) -> None:
    with pytest.raises(ContentTooLongError, match="11 characters"):
        store.write("a", "x" * 11, max_chars=10)
    assert not store.exists("a")
    write_config(serena_home / "serena_config.yml", "default_max_tool_answer_chars: 5\n")
    with pytest.raises(ContentTooLongError):
        store.write("a", "x" * 6, max_chars=-1)
    store.write("a", "x" * 6)  # no limit unless asked
    assert store.read("a") == "xxxxxx"


def test_read_missing_memory(store: MemoryStore) -> None:
    with pytest.raises(MemoryNotFoundError, match="'nope' not found"):
        store.read("nope")


def test_read_of_a_topic_says_it_is_a_topic(store: MemoryStore) -> None:
    store.write("auth/login", "x")
    with pytest.raises(MemoryNotFoundError, match="topic"):
        store.read("auth")


def test_delete_removes_and_prunes_empty_topic_folders(store: MemoryStore) -> None:
    store.write("a/b/c", "1")
    store.write("a/keep", "2")
    store.write("global/t/x", "3")
    store.delete("a/b/c")
    assert not (store.layout.memories_dir / "a" / "b").exists()
    assert (store.layout.memories_dir / "a").is_dir()  # still holds a/keep
    store.delete("mem:a/keep.md")
    assert not (store.layout.memories_dir / "a").exists()
    assert store.layout.memories_dir.is_dir()  # the root stays
    store.delete("global/t/x")
    assert not (store.layout.global_dir / "t").exists()
    assert store.layout.global_dir.is_dir()
    assert store.list().all == []


def test_load_and_delete_answer_with_the_canonical_name(protected) -> None:
    """Front-ends show and link what the store answers; they never normalize again."""
    human, agent = protected
    assert agent.load(" mem:frozen/decisions.md ") == ("frozen/decisions", "decided\n", True)
    assert human.load("free.md") == ("free", "free\n", False)
    assert human.delete("mem:free.md") == "free"


def test_delete_missing_memory(store: MemoryStore) -> None:
    store.write("a/x", "1")
    with pytest.raises(MemoryNotFoundError):
        store.delete("nope")
    with pytest.raises(MemoryNotFoundError):
        store.delete("a")  # a topic, not a memory
    assert store.read("a/x") == "1"


def test_no_temporary_files_left_behind(store: MemoryStore) -> None:
    for i in range(5):
        store.write("t/x", f"v{i}")
        store.edit("t/x", f"v{i}", f"w{i}")
    assert sorted(p.name for p in (store.layout.memories_dir / "t").iterdir()) == ["x.md"]


# -- read-only -------------------------------------------------------------------------------


@pytest.fixture
def protected(project: Path, serena_home: Path) -> tuple[MemoryStore, MemoryStore]:
    write_config(serena_home / "serena_config.yml", "read_only_memory_patterns: ['global/.*']\n")
    write_config(project / ".serena" / "project.yml", "read_only_memory_patterns: ['frozen/.*']\n")
    human = build_store(project, home=serena_home, context=Context.HUMAN)
    human.write("frozen/decisions", "decided\n")
    human.write("global/style", "tabs\n")
    human.write("free", "free\n")
    return human, build_store(project, home=serena_home, context=Context.AGENT)


@pytest.mark.parametrize(
    ("name", "pattern"), [("frozen/decisions", "frozen/.*"), ("global/style", "global/.*")]
)
def test_agent_cannot_change_read_only_memories(protected, name: str, pattern: str) -> None:
    human, agent = protected
    before = human.read(name)
    calls = {
        "write": lambda: agent.write(name, "changed"),
        "write-alias": lambda: agent.write(f"mem:{name}.md", "changed"),
        "edit": lambda: agent.edit(name, before, "changed"),
        "delete": lambda: agent.delete(name),
        "rename-source": lambda: agent.rename(name, "elsewhere"),
        "rename-target": lambda: agent.rename("free", name),
        "create-new": lambda: agent.write(name.rsplit("/", 1)[0] + "/brand_new", "x"),
    }
    for op, call in calls.items():
        with pytest.raises(ReadOnlyMemoryError) as info:
            call()
        assert repr(pattern) in str(info.value), op
    assert agent.read(name) == before  # reading stays allowed
    assert human.read("free") == "free\n"
    assert sorted(human.list().all) == ["free", "frozen/decisions", "global/style"]


def test_people_can_change_read_only_memories(protected) -> None:
    human, agent = protected
    human.write("frozen/decisions", "revised\n")
    human.edit("frozen/decisions", "revised", "final")
    human.rename("frozen/decisions", "frozen/archive")
    human.rename("free", "frozen/free")
    human.delete("global/style")
    assert human.read("frozen/archive") == "final\n"
    assert agent.list().read_only_memories == ["frozen/archive", "frozen/free"]
    assert agent.list().memories == []


# -- ignored ---------------------------------------------------------------------------------


@pytest.fixture
def with_ignored(project: Path, serena_home: Path) -> MemoryStore:
    write_config(
        serena_home / "serena_config.yml", "ignored_memory_patterns: ['global/_private/.*']\n"
    )
    write_config(project / ".serena" / "project.yml", "ignored_memory_patterns: ['_archive/.*']\n")
    s = build_store(project, home=serena_home)
    for rel, root in (
        ("_archive/old.md", s.layout.memories_dir),
        ("_private/secret.md", s.layout.global_dir),
    ):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("raw\n")
    s.write("core", "core\n")
    s.write("global/style", "style\n")
    return s


def test_ignored_memories_are_absent_from_every_listing(with_ignored: MemoryStore) -> None:
    s = with_ignored
    assert s.list().all == ["core", "global/style"]
    assert s.list("_archive").all == []
    assert s.list("global/_private").all == []
    assert s.list("global").all == ["global/style"]
    assert sorted(s.scan(include_ignored=True).files) == [
        "_archive/old",
        "core",
        "global/_private/secret",
        "global/style",
    ]


@pytest.mark.parametrize("context", [Context.HUMAN, Context.AGENT])
@pytest.mark.parametrize("name", ["_archive/old", "global/_private/secret", "_archive/new"])
def test_every_operation_on_an_ignored_memory_is_refused(
    with_ignored: MemoryStore, context: Context, name: str
) -> None:
    s = build_store(
        with_ignored.layout.project_root, home=with_ignored.layout.home, context=context
    )
    raw = s.layout.path_of(name)
    for call in (
        lambda: s.read(name),
        lambda: s.write(name, "x"),
        lambda: s.edit(name, "raw", "x"),
        lambda: s.delete(name),
        lambda: s.rename(name, "elsewhere"),
        lambda: s.rename("core", name),
    ):
        with pytest.raises(IgnoredMemoryError) as info:
            call()
        assert str(raw) in str(info.value)
        assert "ignored" in str(info.value)
    assert s.read("core") == "core\n"
    assert not s.exists("elsewhere")
    if raw.exists():
        assert raw.read_text() == "raw\n"
    else:
        assert not raw.parent.joinpath("new.md").exists()


# -- undecodable files -----------------------------------------------------------------------


def test_non_utf8_memory_gives_a_clear_error_and_the_rest_keeps_working(store: MemoryStore):
    store.write("good", "fine\n")
    store.write("topic/other", "also fine\n")
    bad = store.layout.memories_dir / "topic" / "latin1.md"
    bad.write_bytes("caf\xe9 cr\xe8me\n".encode("latin-1"))
    with pytest.raises(MemoryEncodingError) as info:
        store.read("topic/latin1")
    assert "'topic/latin1'" in str(info.value) and "UTF-8" in str(info.value)
    with pytest.raises(MemoryEncodingError):
        store.edit("topic/latin1", "caf", "tea")
    assert bad.read_bytes() == "caf\xe9 cr\xe8me\n".encode("latin-1")
    assert store.list().all == ["good", "topic/latin1", "topic/other"]
    assert store.read("good") == "fine\n"
    assert store.read("topic/other") == "also fine\n"
    store.write("good", "refers to mem:good\n")
    store.rename("good", "better")  # propagation passes over the undecodable file
    assert store.read("better") == "refers to mem:better\n"
    store.write("topic/latin1", "now utf-8 ✓\n")  # replacing it fixes it
    assert store.read("topic/latin1") == "now utf-8 ✓\n"


def test_content_that_cannot_be_utf8_is_refused(store: MemoryStore) -> None:
    """Lone surrogates come from undecodable input; storing them would need another codec."""
    store.write("a", "clean\n")
    with pytest.raises(MemoryEncodingError, match="'a'"):
        store.write("a", "bad \udcff byte")
    with pytest.raises(MemoryEncodingError):
        store.edit("a", "clean", "\ud800")
    assert store.read("a") == "clean\n"


# -- symlinks --------------------------------------------------------------------------------


def test_directory_symlinks_are_followed_for_list_and_read(
    store: MemoryStore, tmp_path: Path, serena_home: Path
):
    shared = tmp_path / "team-shared"
    # outside the project: followed because the person allowed it in the global configuration
    write_config(serena_home / "serena_config.yml", f"allowed_memory_roots: ['{shared}']\n")
    (shared / "deep").mkdir(parents=True)
    (shared / "conventions.md").write_text("shared conventions\n")
    (shared / "deep" / "x.md").write_text("deep x\n")
    store.write("core", "core\n")
    os.symlink(shared, store.layout.memories_dir / "team", target_is_directory=True)
    assert store.list().all == ["core", "team/conventions", "team/deep/x"]
    assert store.list("team").all == ["team/conventions", "team/deep/x"]
    assert store.read("team/conventions") == "shared conventions\n"
    assert store.read("team/deep/x") == "deep x\n"
    store.write("team/new", "written through the link\n")
    assert (shared / "new.md").read_text() == "written through the link\n"
    store.delete("team/new")
    assert (store.layout.memories_dir / "team").is_symlink()  # pruning never removes the link


def test_global_folder_may_be_a_symlink(serena_home: Path, tmp_path: Path, project: Path) -> None:
    real = tmp_path / "dotfiles-global"
    real.mkdir()
    write_config(serena_home / "serena_config.yml", f"allowed_memory_roots: ['{real}']\n")
    (real / "style.md").write_text("style\n")
    (serena_home / "memories").mkdir()
    os.symlink(real, serena_home / "memories" / "global", target_is_directory=True)
    s = build_store(project, home=serena_home)
    assert s.list().all == ["global/style"]
    assert s.read("global/style") == "style\n"


def test_a_symlink_loop_does_not_hang_listing(store: MemoryStore) -> None:
    store.write("a/x", "x\n")
    os.symlink("..", store.layout.memories_dir / "a" / "up", target_is_directory=True)
    os.symlink(".", store.layout.memories_dir / "self", target_is_directory=True)
    os.symlink("nowhere", store.layout.memories_dir / "dangling")
    listing = store.list()
    names = listing.all
    assert "a/x" in names
    assert [(s.name, s.reason.split(" (")[0]) for s in listing.skipped] == [
        ("dangling", "broken symlink")
    ]
    assert len(names) == len(set(names))
    assert store.read("a/x") == "x\n"


def test_a_memory_file_where_a_topic_folder_must_go_is_a_clear_error(store: MemoryStore):
    store.write("a", "memory a\n")
    store.write("b", "links `mem:b`\n")
    with pytest.raises(MemoryStoreError, match="in the way"):
        store.write("a.md/child", "x")  # `a.md` is memory a's file, not a folder
    with pytest.raises(MemoryStoreError, match="in the way"):
        store.rename("b", "a.md/b")
    # nothing half-done: no journal left to block the next operations
    assert store.list().all == ["a", "b"]
    assert store.read("a") == "memory a\n"
    assert store.read("b") == "links `mem:b`\n"


def test_a_memories_folder_that_is_a_file_is_a_clear_error(store: MemoryStore) -> None:
    """Not "No memories" (that would hide the file) and not a bare OS error."""
    store.layout.memories_dir.parent.mkdir(parents=True)
    store.layout.memories_dir.write_text("not a folder")
    with pytest.raises(MemoryStoreError, match="memories folder .* is a file"):
        store.list()
    with pytest.raises(MemoryStoreError, match="a file is in the way"):
        store.write("x", "y")
    assert store.layout.memories_dir.read_text() == "not a folder"
