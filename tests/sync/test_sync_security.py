"""A sync remote is someone else's git repository: its trees are untrusted input. Trees
are built object by object (as a hostile remote could), fetched by the real command
line, and nothing they hold may become a memory unless a memory could be written so."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pygit2
import pytest
from cli_support import run_cli

from serena_memory.core.paths import MAX_MEMORY_BYTES
from serena_memory.core.store import MemoryStore
from serena_memory.history.location import history_folder, history_root, repository_path

pytestmark = [
    pytest.mark.skipif(shutil.which("git") is None, reason="sync needs git"),
    pytest.mark.slow,  # syncs end to end over real git remotes
]

BLOB, TREE, LINK, GITLINK = 0o100644, 0o040000, 0o120000, 0o160000


def raw_tree(repo: pygit2.Repository, entries: list[tuple[int, bytes, pygit2.Oid]]) -> pygit2.Oid:
    """A tree object written byte by byte: no name check, as any remote can send."""
    entries = sorted(entries, key=lambda e: e[1] + (b"/" if e[0] == TREE else b""))
    data = b"".join(b"%o %s\x00" % (mode, name) + oid.raw for mode, name, oid in entries)
    return repo.odb.write(pygit2.GIT_OBJECT_TREE, data)


def remote(tmp_path: Path, build) -> Path:
    bare = tmp_path / "remote.git"
    repo = pygit2.init_repository(str(bare), bare=True, initial_head="main")
    sig = pygit2.Signature("Someone", "someone@example.org")
    repo.create_commit("refs/heads/main", sig, sig, "memories", build(repo), [])
    return bare


def sync_args(kind: str, bare: Path) -> list[str]:
    team = ["--team"] if kind == "team" else []
    return ["memories", "sync", *team, "--remote", str(bare)]


def fine(repo: pygit2.Repository) -> pygit2.Oid:
    return repo.create_blob(b"fine\n")


def memory_files(home: Path) -> list[str]:
    memories = home / "memories"
    return sorted(str(p.relative_to(memories)) for p in memories.rglob("*.md"))


def test_a_team_tree_nested_deeper_than_any_name_is_left_out(
    tmp_path: Path, project: Path, serena_home: Path
) -> None:
    def build(repo: pygit2.Repository) -> pygit2.Oid:
        deep = raw_tree(repo, [(BLOB, b"deep.md", fine(repo))])
        for _ in range(1500):
            deep = raw_tree(repo, [(TREE, b"d", deep)])
        return raw_tree(repo, [(TREE, b"d", deep), (BLOB, b"top.md", fine(repo))])

    done = run_cli(*sync_args("team", remote(tmp_path, build)), cwd=project)
    assert done.returncode == 0, done.stderr
    assert memory_files(serena_home) == ["global/team/top.md"]


@pytest.mark.parametrize("kind", ["team", "personal"])
def test_a_remote_file_larger_than_a_memory_never_becomes_one(
    kind: str, tmp_path: Path, project: Path, serena_home: Path
) -> None:
    def build(repo: pygit2.Repository) -> pygit2.Oid:
        huge = repo.create_blob(b"a" * (MAX_MEMORY_BYTES + 1))
        return raw_tree(repo, [(BLOB, b"huge.md", huge), (BLOB, b"fine.md", fine(repo))])

    done = run_cli(*sync_args(kind, remote(tmp_path, build)), cwd=project)
    assert done.returncode == 0, done.stderr
    assert "huge.md" in done.stdout
    folder = "global/team/" if kind == "team" else "global/"
    assert memory_files(serena_home) == [f"{folder}fine.md"]


@pytest.mark.parametrize("kind", ["team", "personal"])
def test_links_submodules_and_odd_names_from_a_remote_are_left_out(
    kind: str, tmp_path: Path, project: Path, serena_home: Path
) -> None:
    def build(repo: pygit2.Repository) -> pygit2.Oid:
        sub = raw_tree(repo, [(BLOB, b"x.md", fine(repo))])
        entries = [
            (LINK, b"link.md", repo.create_blob(b"../../../../etc/passwd")),
            (GITLINK, b"module.md", pygit2.Oid(hex="1" * 40)),
            (BLOB, b"back\\slash.md", fine(repo)),
            (BLOB, b"bell\x07\x1b[31m.md", fine(repo)),
            (BLOB, b"bad\xff.md", fine(repo)),
            (BLOB, b"fine.md", fine(repo)),
        ]
        if kind == "team":  # a personal remote with these is refused whole (below)
            entries += [(TREE, b"..", sub), (TREE, b".git", sub)]
        return raw_tree(repo, entries)

    done = run_cli(*sync_args(kind, remote(tmp_path, build)), cwd=project)
    assert done.returncode == 0, done.stderr
    folder = "global/team/" if kind == "team" else "global/"
    assert memory_files(serena_home) == [f"{folder}fine.md"]
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    assert done.stdout.count("link.md") == 1  # named once, however often it was planned


@pytest.mark.parametrize("folder", [b"..", b".git"])
def test_a_personal_remote_with_a_parent_or_git_folder_is_refused_cleanly(
    folder: bytes, tmp_path: Path, project: Path, serena_home: Path
) -> None:
    def build(repo: pygit2.Repository) -> pygit2.Oid:
        sub = raw_tree(repo, [(BLOB, b"x.md", fine(repo))])
        return raw_tree(repo, [(TREE, folder, sub), (BLOB, b"fine.md", fine(repo))])

    done = run_cli(*sync_args("personal", remote(tmp_path, build)), cwd=project)
    assert done.returncode == 1 and "can't be merged" in done.stderr
    assert not (tmp_path / "x.md").exists() and not (serena_home / "x.md").exists()
    assert memory_files(serena_home) == []


@pytest.mark.parametrize(
    "content",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"global/a": "text", "global/b": ["x"], "../../evil": {"remote_text": "x"}}',
        "not json",
        '["global/a"]',
        '{"global/a": {"remote_text": ["x"], "remote": 1}}',
    ],
)
def test_a_tampered_conflict_record_never_breaks_a_command(
    content: str, project: Path, store: MemoryStore
) -> None:
    store.write("global/a", "mine\n")
    spec = history_folder(store, "global")
    record = repository_path(history_root(store), spec.root) / "serena-sync-conflicts.json"
    record.write_text(content, encoding="utf-8")
    for args in (("list",), ("conflicts",), ("conflicts", "--json")):
        done = run_cli("memories", *args, cwd=project)
        assert done.returncode == 0, done.stderr
    if '"global/a"' in content:
        run_cli("memories", "resolve", "global/a", "--keep", "remote", cwd=project)
    refused = run_cli("memories", "resolve", "../../evil", "--keep", "remote", cwd=project)
    assert refused.returncode == 1 and "Error: " in refused.stderr
    assert store.read("global/a") in ("mine\n", "['x']")
    json.dumps(store.list().memories)  # still answers


@pytest.mark.parametrize("kind", ["team", "personal"])
@pytest.mark.parametrize("target", ["blob", "tree", "tag"])
def test_a_remote_branch_that_is_not_a_commit_is_one_clear_error(
    kind: str, target: str, tmp_path: Path, project: Path, serena_home: Path
) -> None:
    bare = tmp_path / "remote.git"
    repo = pygit2.init_repository(str(bare), bare=True, initial_head="main")
    tree = raw_tree(repo, [(BLOB, b"a.md", fine(repo))])
    sig = pygit2.Signature("Someone", "someone@example.org")
    objects = {
        "blob": fine(repo),
        "tree": tree,
        "tag": repo.create_tag("v1", tree, pygit2.GIT_OBJECT_TREE, sig, "a tree"),
    }
    repo.references.create("refs/heads/main", objects[target])
    for _ in range(2):  # and again: the bad branch fetched before breaks nothing
        done = run_cli(*sync_args(kind, bare), cwd=project)
        assert done.returncode == 1 and "is not a commit" in done.stderr
    assert memory_files(serena_home) == []


def _with_records(bare: Path, records: object | bytes, *, target: str = "commit") -> None:
    """Give a remote a conflicts branch as a hostile remote could: any JSON, any object."""
    repo = pygit2.Repository(str(bare))
    raw = records if isinstance(records, bytes) else json.dumps(records).encode()
    blob = repo.create_blob(raw)
    tree = raw_tree(repo, [(BLOB, b"conflicts.json", blob)])
    sig = pygit2.Signature("Someone", "someone@example.org")
    objects = {
        "commit": lambda: repo.create_commit(None, sig, sig, "records", tree, []),
        "blob": lambda: blob,
        "tree": lambda: tree,
    }
    repo.references.create("refs/heads/serena-conflicts", objects[target](), force=True)


def test_a_remote_conflict_record_names_only_memories_of_the_folder(
    tmp_path: Path, project: Path, serena_home: Path
) -> None:
    bare = remote(tmp_path, lambda repo: raw_tree(repo, [(BLOB, b"a.md", fine(repo))]))
    good = {"id": "1", "remote_text": "theirs\n", "at": "2026-01-01T00:00:00+00:00"}
    _with_records(
        bare,
        {
            "global/a": good,
            "../../evil": good,
            "global/../b": good,
            "global/.hidden": good,
            "project-memory": good,  # a project's name in the global memories' records
            "global/big": {**good, "remote_text": "x" * (MAX_MEMORY_BYTES + 1)},
            "global/odd": {"remote_text": ["x"], "at": 5},
            "global/esc\x1b[31m": good,
            "global/list": ["not", "a", "record"],
        },
    )
    done = run_cli(*sync_args("personal", bare), cwd=project)
    assert done.returncode == 0, done.stderr
    listed = json.loads(run_cli("memories", "conflicts", "--json", cwd=project).stdout)
    assert [c["name"] for c in listed] == ["global/a"]
    shown = run_cli("memories", "conflicts", cwd=project)
    assert "\x1b" not in shown.stdout and "evil" not in shown.stdout
    taken = run_cli("memories", "resolve", "global/a", "--keep", "remote", cwd=project)
    assert taken.returncode == 0, taken.stderr
    assert (serena_home / "memories" / "global" / "a.md").read_text() == "theirs\n"
    assert memory_files(serena_home) == ["global/a.md"]


@pytest.mark.parametrize(
    ("records", "target"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "commit"),
        (b"not json", "commit"),
        (b"{}", "blob"),
        (b"{}", "tree"),
    ],
)
def test_a_conflicts_branch_of_another_shape_is_no_record(
    records: bytes, target: str, tmp_path: Path, project: Path, serena_home: Path
) -> None:
    bare = remote(tmp_path, lambda repo: raw_tree(repo, [(BLOB, b"a.md", fine(repo))]))
    _with_records(bare, records, target=target)
    for _ in range(2):
        done = run_cli(*sync_args("personal", bare), cwd=project)
        assert done.returncode == 0, done.stderr
    assert json.loads(run_cli("memories", "conflicts", "--json", cwd=project).stdout) == []
    assert memory_files(serena_home) == ["global/a.md"]
