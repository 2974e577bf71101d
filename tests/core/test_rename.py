"""Renaming: moves across topics and scopes, reference propagation, crash recovery."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from conftest import write_config

import serena_memory.core.recovery as store_module
from serena_memory.core.errors import (
    MemoryExistsError,
    MemoryNotFoundError,
    MemoryStoreError,
)
from serena_memory.core.store import JOURNAL_NAME, Context, MemoryStore
from serena_memory.wiring import build_store


def _stamp(s: MemoryStore, name: str) -> tuple[int, int, bytes]:
    path = s.layout.path_of(name)
    st = path.stat()
    return st.st_ino, st.st_mtime_ns, path.read_bytes()


def test_rename_across_topics(store: MemoryStore) -> None:
    store.write("login", "how login works\n")
    result = store.rename("login", "auth/login")
    assert (result.old, result.new) == ("login", "auth/login")
    assert store.read("auth/login") == "how login works\n"
    assert not store.exists("login")
    store.rename("auth/login", "flows/auth/login")
    assert store.list().all == ["flows/auth/login"]
    assert not (store.layout.memories_dir / "auth").exists()  # emptied topic pruned


def test_rename_between_project_and_global_scope(store: MemoryStore, serena_home: Path) -> None:
    store.write("style", "tabs\n")
    store.write("core", "see `mem:style`\n")
    result = store.rename("style", "global/style")
    assert result.references_rewritten == 1
    assert (serena_home / "memories" / "global" / "style.md").read_text() == "tabs\n"
    assert not (store.layout.memories_dir / "style.md").exists()
    assert store.read("core") == "see `mem:global/style`\n"
    store.rename("mem:global/style.md", "conventions/style")
    assert store.read("conventions/style") == "tabs\n"
    assert store.read("core") == "see `mem:conventions/style`\n"
    assert store.list().all == ["conventions/style", "core"]


def test_rename_refuses_to_overwrite(store: MemoryStore) -> None:
    store.write("a", "A\n")
    store.write("b", "B refers to mem:a\n")
    with pytest.raises(MemoryExistsError, match="'b' already exists"):
        store.rename("a", "b")
    assert store.read("a") == "A\n"
    assert store.read("b") == "B refers to mem:a\n"


def test_rename_of_a_missing_memory(store: MemoryStore) -> None:
    store.write("other", "mentions mem:ghost\n")
    with pytest.raises(MemoryNotFoundError):
        store.rename("ghost", "spirit")
    assert store.read("other") == "mentions mem:ghost\n"
    assert store.list().all == ["other"]


def test_rename_to_itself_is_refused(store: MemoryStore) -> None:
    store.write("a", "A\n")
    with pytest.raises(MemoryStoreError, match="same memory"):
        store.rename("a", "mem:a.md")
    assert store.read("a") == "A\n"


def test_only_whole_name_references_are_rewritten(store: MemoryStore) -> None:
    store.write("auth", "the auth memory; see also `mem:auth` itself\n")
    store.write("auth/login", "login\n")
    store.write("authx", "x\n")
    text = (
        "Read `mem:auth` first. Then mem:auth, mem:auth. and (mem:auth)\n"
        "Not these: `mem:auth/login` `mem:authx` `mem:auth-old` `mem:auth_v2` mem:auth2\n"
        "Plain auth is not a reference either.\n"
        "Last one at the very end: mem:auth"
    )
    store.write("core", text)
    store.write("global/notes", "global side: `mem:auth`\n")
    result = store.rename("auth", "security/auth")
    assert store.read("core") == (
        "Read `mem:security/auth` first. Then mem:security/auth, mem:security/auth. and "
        "(mem:security/auth)\n"
        "Not these: `mem:auth/login` `mem:authx` `mem:auth-old` `mem:auth_v2` mem:auth2\n"
        "Plain auth is not a reference either.\n"
        "Last one at the very end: mem:security/auth"
    )
    assert store.read("security/auth") == "the auth memory; see also `mem:security/auth` itself\n"
    # a global memory's `mem:auth` names every project's own `auth`: reported, kept
    assert store.read("global/notes") == "global side: `mem:auth`\n"
    assert result.global_not_rewritten == ["global/notes"]
    assert result.references_rewritten == 5 + 1
    assert result.memories_rewritten == ["core", "security/auth"]
    assert "rewrote 6 references in 2 memories" in result.summary()
    assert store.read("auth/login") == "login\n"


def test_reference_boundaries_in_a_rename(store: MemoryStore) -> None:
    """`mem:` glued to a name character, or a run going on with `/`, is not a reference."""
    store.write("auth", "a\n")
    line = (
        "A `mem:auth` B `mem:auth/login` C mem:authx D (mem:auth) E `mem:auth.md` "
        'F mem:auth/ G mem:auth-x H "mem:auth" I xmem:auth J _mem:auth K -mem:auth\n'
    )
    store.write("notes", line)
    result = store.rename("auth", "auth2")
    assert result.references_rewritten == 4
    assert store.read("notes") == (
        "A `mem:auth2` B `mem:auth/login` C mem:authx D (mem:auth2) E `mem:auth2.md` "
        'F mem:auth/ G mem:auth-x H "mem:auth2" I xmem:auth J _mem:auth K -mem:auth\n'
    )


def test_memories_without_the_reference_are_not_rewritten(store: MemoryStore) -> None:
    store.write("old", "old\n")
    store.write("refers", "see mem:old\n")
    store.write("unrelated", "nothing here\n")
    store.write("near_miss", "mem:old/child and mem:older and `mem:old_notes`\n")
    store.write("global/far", "global, unrelated\n")
    before = {n: _stamp(store, n) for n in ("unrelated", "near_miss", "global/far")}
    result = store.rename("old", "new")
    assert result.memories_rewritten == ["refers"]
    assert result.references_rewritten == 1
    for name, stamp in before.items():
        assert _stamp(store, name) == stamp, f"{name} was rewritten"


def test_agent_rename_leaves_read_only_memories_and_says_so(
    project: Path, serena_home: Path
) -> None:
    write_config(project / ".serena" / "project.yml", "read_only_memory_patterns: ['frozen/.*']\n")
    write_config(serena_home / "serena_config.yml", "read_only_memory_patterns: ['global/.*']\n")
    human = build_store(project, home=serena_home, context=Context.HUMAN)
    human.write("auth", "auth\n")
    human.write("frozen/decisions", "we chose `mem:auth`\n")
    human.write("global/team", "team uses `mem:auth`\n")
    human.write("core", "start at `mem:auth`\n")
    frozen_before = _stamp(human, "frozen/decisions")
    global_before = _stamp(human, "global/team")

    agent = build_store(project, home=serena_home, context=Context.AGENT)
    result = agent.rename("auth", "security")
    assert result.read_only_skipped == ["frozen/decisions"]
    assert result.global_not_rewritten == ["global/team"]
    assert result.memories_rewritten == ["core"]
    assert result.references_rewritten == 1
    summary = result.summary()
    assert "frozen/decisions" in summary and "global/team" in summary and "read-only" in summary
    assert _stamp(human, "frozen/decisions") == frozen_before
    assert _stamp(human, "global/team") == global_before
    assert human.read("core") == "start at `mem:security`\n"

    # a person renaming back also rewrites the read-only ones
    human.write("frozen/decisions", "we chose `mem:security`\n")
    result = human.rename("security", "auth")
    assert result.read_only_skipped == []
    assert human.read("frozen/decisions") == "we chose `mem:auth`\n"


def test_ignored_memories_are_not_rewritten(project: Path, serena_home: Path) -> None:
    write_config(project / ".serena" / "project.yml", "ignored_memory_patterns: ['_archive/.*']\n")
    s = build_store(project, home=serena_home)
    s.write("auth", "auth\n")
    archived = s.layout.memories_dir / "_archive" / "old.md"
    archived.parent.mkdir(parents=True)
    archived.write_text("old notes on `mem:auth`\n")
    result = s.rename("auth", "security")
    assert result.memories_rewritten == []
    assert archived.read_text() == "old notes on `mem:auth`\n"


# -- crash recovery, deterministic: crash at every step of the plan ---------------------------


class _Crash(BaseException):
    """Stands in for the process dying: nothing after it runs, no cleanup."""


def _corpus(s: MemoryStore) -> dict[str, str]:
    files = {
        "auth/login": "login flow, self link `mem:auth/login`\n" + "body\n" * 50,
        "core": "start: `mem:auth/login`, `mem:auth/login/extra`\n",
        "db/schema": "tables; login table used by `mem:auth/login`\n",
        "global/team": "team-wide: mem:auth/login\n",
        "untouched": "no links\n",
    }
    for name, text in files.items():
        s.write(name, text)
    return files


def _expected_after(files: dict[str, str], old: str, new: str) -> dict[str, str]:
    out = {}
    for name, text in files.items():
        if name.startswith("global/") and not old.startswith("global/"):
            out[name] = text  # a project rename leaves global memories alone
            continue
        text = text.replace(f"mem:{old}`", f"mem:{new}`").replace(f"mem:{old}\n", f"mem:{new}\n")
        out[new if name == old else name] = text
    return out


def _contents(s: MemoryStore) -> dict[str, str]:
    return {name: s.read(name) for name in s.list().all}


@pytest.mark.slow  # a crash at every step of a rename
@pytest.mark.parametrize("new", ["security/login", "global/login"])
def test_rename_crash_at_every_step_is_finished_by_the_next_operation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new: str
) -> None:
    old = "auth/login"
    real_write = store_module.atomic_write
    step = 0
    while True:
        home = tmp_path / f"home{step}"
        s = build_store(tmp_path / f"p{step}", home=home)
        files = _corpus(s)
        calls = 0

        def crashing_write(path: Path, data: bytes, _limit: int = step) -> None:
            nonlocal calls
            calls += 1
            if calls > _limit:
                raise _Crash
            real_write(path, data)

        monkeypatch.setattr(store_module, "atomic_write", crashing_write)
        try:
            s.rename(old, new)
            crashed = False
        except _Crash:
            crashed = True
        monkeypatch.setattr(store_module, "atomic_write", real_write)

        fresh = build_store(tmp_path / f"p{step}", home=home)  # "the next process"
        if step == 0:
            # died before the journal existed: nothing changed at all
            assert crashed
            assert _contents(fresh) == files
        else:
            assert _contents(fresh) == _expected_after(files, old, new)
        assert not (fresh.layout.memories_dir / JOURNAL_NAME).exists()
        assert not (fresh.layout.global_root / JOURNAL_NAME).exists()
        if not crashed:
            assert step >= 4  # journal + new memory + 2 project memories referring to it
            break
        step += 1


@pytest.mark.parametrize(
    "operation",
    [
        lambda s: s.list(),
        lambda s: s.read("core"),
        lambda s: s.write("other", "x"),
        lambda s: s.edit("untouched", "no links", "still no links"),
        lambda s: s.delete("untouched"),
    ],
    ids=["list", "read", "write", "edit", "delete"],
)
def test_a_hand_written_journal_is_applied_by_any_operation(store: MemoryStore, operation) -> None:
    """A journal left by a crash after the new file was written and one reference
    rewritten: the next operation completes the rest."""
    files = _corpus(store)
    old_path, new_path = store.layout.path_of("auth/login"), store.layout.path_of("security/login")
    expected = _expected_after(files, "auth/login", "security/login")
    new_path.parent.mkdir(parents=True)
    new_path.write_text(expected["security/login"])  # applied before the crash
    store.layout.path_of("core").write_text(expected["core"])  # applied before the crash

    def change(name: str, content: str | None) -> dict:
        before = files[name].encode() if name in files else None
        return {"memory": name, "expect": before and _sha(before), "content": content}

    journal = {
        "version": 2,
        "old": "auth/login",
        "new": "security/login",
        "changes": [
            change("security/login", expected["security/login"]),
            change("core", expected["core"]),
            change("db/schema", expected["db/schema"]),
            change("auth/login", None),
        ],
    }
    (store.layout.memories_dir / JOURNAL_NAME).write_text(json.dumps(journal))
    operation(store)
    assert not (store.layout.memories_dir / JOURNAL_NAME).exists()
    assert not old_path.exists()
    after = _contents(store)
    for name in ("security/login", "core", "db/schema"):
        assert after[name] == expected[name]
    assert after["global/team"] == files["global/team"]  # not part of this journal


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_journal_and_temporary_files_never_show_as_memories(store: MemoryStore) -> None:
    store.write("a", "a\n")
    (store.layout.memories_dir / ".a.md.1234.deadbeef.tmp").write_text("torn")
    assert store.list().all == ["a"]
    os.unlink(store.layout.memories_dir / ".a.md.1234.deadbeef.tmp")


def test_rename_reports_undecodable_memory_it_could_not_rewrite(store) -> None:
    store.write("target", "t")
    store.write("good", "see `mem:target`")
    bad = store.layout.memories_dir / "bad.md"
    bad.write_bytes(b"see `mem:target` \xff\xfe")
    result = store.rename("target", "renamed")
    assert result.memories_rewritten == ["good"]
    assert result.undecodable_skipped == ["bad"]
    assert "bad" in result.summary() and "UTF-8" in result.summary()
    assert bad.read_bytes() == b"see `mem:target` \xff\xfe"


def test_rename_rewrites_files_whose_names_no_tool_would_accept(store: MemoryStore) -> None:
    """Files saved by hand under names the name rules refuse or alias (a colon, a trailing
    space, a doubled .md) neither stop a rename nor keep their stale references."""
    store.write("target", "t")
    odd = {
        "we:ird.md": store.layout.memories_dir / "we:ird.md",
        "notes .md": store.layout.memories_dir / "notes .md",
        "twice.md.md": store.layout.memories_dir / "twice.md.md",
    }
    for path in odd.values():
        path.write_text("see `mem:target`\n", encoding="utf-8")
    result = store.rename("target", "renamed")
    assert result.references_rewritten == 3
    for path in odd.values():
        assert path.read_text(encoding="utf-8") == "see `mem:renamed`\n"
    assert store.read("renamed") == "t"
