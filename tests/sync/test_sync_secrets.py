"""A sync never brings a secret in: a remote whose entries hold one (in any version of a
memory, not only the latest) is not merged, and a sync conflict whose texts hold one is
not kept here; either is one sentence of the sync's summary. Real git remotes in tmp
folders, the real command line on two machines."""

from __future__ import annotations

import json
import random
import shutil
import string
import subprocess
from pathlib import Path

import pygit2
import pytest
from test_sync import Machine

pytestmark = [
    pytest.mark.skipif(shutil.which("git") is None, reason="sync needs git"),
    pytest.mark.slow,  # syncs end to end over real git remotes
]

# made here in GitHub's published format: 'ghp_' and 36 letters and digits; not a real token
TOKEN = "ghp_" + "".join(random.Random(5).choices(string.ascii_letters + string.digits, k=36))
SECRET_TEXT = f"# Deploy\n\nThe CI token is {TOKEN}\n"
CLEAN_TEXT = "# Deploy\n\nThe CI token is <github-token>, in the CI's secret store.\n"


def remote_main(remote: Path) -> str:
    return str(pygit2.Repository(str(remote)).references["refs/heads/main"].target)


def history_secrets(machine: Machine) -> list[dict]:
    found = machine.run("memories", "check", "--secrets", "--json", check=False)
    return json.loads(found.stdout)["history"]


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    path = tmp_path / "shared" / "memories.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(path)], check=True)
    return path


def test_a_secret_only_in_the_remotes_history_is_held_back_until_it_is_purged(
    tmp_path: Path, remote: Path
) -> None:
    laptop, workstation = Machine(tmp_path / "a", remote), Machine(tmp_path / "b", remote)
    laptop.write("global/deploy", "# Deploy\n\nFirst notes.\n")
    laptop.sync()
    clean_start = remote_main(remote)
    workstation.sync()
    # pasted, then replaced: the memory is clean, its history is not
    laptop.run("memories", "write", "global/deploy", "--content", SECRET_TEXT, "--allow-secret")
    laptop.write("global/deploy", CLEAN_TEXT)
    laptop.sync()
    held_at = remote_main(remote)
    workstation.write("global/mine", "# Mine\n")

    result = workstation.sync(check=False)
    assert result.returncode == 1  # nothing came in or went out: not a sync a script may trust
    summary = result.stdout
    assert "Nothing was merged from" in summary and "nothing pushed to it" in summary
    assert "global/deploy (entry " in summary and "line 3: GitHub Token" in summary
    assert "purge it from that remote's history" in summary and TOKEN not in summary
    assert workstation.text("global/deploy") == "# Deploy\n\nFirst notes.\n"
    assert history_secrets(workstation) == []  # nothing of the remote's entries came in
    assert remote_main(remote) == held_at  # and nothing was pushed over them
    again = workstation.sync(check=False)
    assert again.returncode == 1 and "Nothing was merged from" in again.stdout

    # the remote's history purged (its branch back before the secret): the sync goes on
    subprocess.run(
        ["git", "--git-dir", str(remote), "update-ref", "refs/heads/main", clean_start],
        check=True,
    )
    result = workstation.sync()
    assert "Nothing was merged" not in result.stdout and "pushed" in result.stdout
    assert history_secrets(workstation) == []
    third = Machine(tmp_path / "c", remote)
    third.sync()
    assert third.text("global/mine") == "# Mine\n"


@pytest.mark.parametrize("own_process", [True, False], ids=["commands", "one-process"])
def test_a_held_back_sync_says_what_to_purge_where_and_following_it_syncs_again(
    tmp_path: Path, remote: Path, own_process: bool
) -> None:
    """The laptop's steps as commands, each a process of its own, or all in one process,
    as a server or the dashboard runs them: its histories removed under it, it goes on."""
    laptop, workstation = Machine(tmp_path / "a", remote), Machine(tmp_path / "b", remote)
    laptop.own_process = own_process
    laptop.write("global/deploy", "# Deploy\n\nFirst notes.\n")
    laptop.sync()
    clean_start = remote_main(remote)
    workstation.sync()
    laptop.run("memories", "write", "global/deploy", "--content", SECRET_TEXT, "--allow-secret")
    laptop.sync()
    workstation.write("global/mine", "# Mine\n")

    held = workstation.sync(check=False).stdout
    # the one sentence, not a "synced: nothing to push" that the unpushed memory belies
    assert held.startswith(f"Nothing was merged from {remote} and nothing pushed to it")
    assert "Synced" not in held and "nothing to push" not in held
    assert "and from the history of the machine that wrote it" in held

    def purge_remote() -> None:
        subprocess.run(
            ["git", "--git-dir", str(remote), "update-ref", "refs/heads/main", clean_start],
            check=True,
        )

    # the remote alone purged: the laptop's history still holds it, and its sync pushes it
    purge_remote()
    laptop.sync()
    assert workstation.sync(check=False).stdout.startswith("Nothing was merged from")

    # as the sentence says (docs/secrets.md): the laptop replaces it and drops its history,
    # the remote is purged, and each machine syncs again
    laptop.run("memories", "edit", "global/deploy", "--needle", TOKEN, "--repl", "<github-token>")
    found = json.loads(laptop.run("memories", "check", "--secrets", "--json", check=False).stdout)
    for repository in found["history_repositories"]:
        shutil.rmtree(repository)
    assert laptop.run("memories", "check", "--secrets", check=False).returncode == 0
    purge_remote()
    laptop.sync()
    result = workstation.sync()
    assert "Nothing was merged" not in result.stdout and "pushed" in result.stdout
    assert "<github-token>" in workstation.text("global/deploy")
    assert history_secrets(workstation) == []
    laptop.sync()
    assert laptop.text("global/mine") == "# Mine\n"
    # and it records and syncs on as before
    laptop.write("global/deploy", CLEAN_TEXT + "Rotated.\n")
    shown = laptop.run("memories", "history", "global/deploy").stdout
    assert "Replace global/deploy" in shown and "History started" in shown
    assert "pushed" in laptop.sync().stdout
    workstation.sync()
    assert workstation.text("global/deploy") == CLEAN_TEXT + "Rotated.\n"
    assert history_secrets(laptop) == [] and history_secrets(workstation) == []


def test_a_conflicts_texts_holding_a_secret_are_not_kept_here(tmp_path: Path, remote: Path) -> None:
    laptop, workstation = Machine(tmp_path / "a", remote), Machine(tmp_path / "b", remote)
    laptop.write("global/deploy", "# Deploy\n\nline one\n")
    laptop.sync()
    workstation.sync()
    workstation.write("global/deploy", "# Deploy\n\nline one, the workstation's way\n")
    workstation.sync()
    # the laptop's person keeps a secret in the memory (overriding the gate) and its sync
    # finds the conflict: its record holds that text, and travels to the remote
    laptop.run("memories", "write", "global/deploy", "--content", SECRET_TEXT, "--allow-secret")
    found = laptop.sync()
    assert "Both sides changed the same lines of global/deploy" in found.stdout
    assert "refs/heads/serena-conflicts" in pygit2.Repository(str(remote)).references

    result = workstation.sync(check=False)
    assert result.returncode == 1  # held back too: the laptop's history holds the secret
    summary = result.stdout
    assert "The texts of a sync conflict were not kept here" in summary
    assert "global/deploy (line 3: GitHub Token)" in summary and TOKEN not in summary
    assert "`serena memories resolve`" in summary
    listed = json.loads(workstation.run("memories", "conflicts", "--json").stdout)
    assert listed == []
    kept = workstation.home / "history"
    assert all(TOKEN not in p.read_text(errors="replace") for p in kept.rglob("*.json"))
    assert workstation.text("global/deploy") == "# Deploy\n\nline one, the workstation's way\n"


def test_a_set_aside_text_holding_a_secret_from_a_remotes_records_is_withheld(
    tmp_path: Path, remote: Path
) -> None:
    laptop = Machine(tmp_path / "a", remote)
    laptop.write("global/deploy", CLEAN_TEXT)
    laptop.sync()
    # the remote's records as any machine (or anyone with the remote) could write them
    repo = pygit2.Repository(str(remote))
    record = {"id": "1", "remote_text": SECRET_TEXT, "local_text": CLEAN_TEXT, "at": "2026"}
    blob = repo.create_blob(json.dumps({"global/deploy": record}).encode())
    builder = repo.TreeBuilder()
    builder.insert("conflicts.json", blob, pygit2.GIT_FILEMODE_BLOB)
    sig = pygit2.Signature("Someone", "someone@example.org")
    commit = repo.create_commit(None, sig, sig, "records", builder.write(), [])
    repo.references.create("refs/heads/serena-conflicts", commit, force=True)

    result = laptop.sync()
    assert "The texts of a sync conflict were not kept here" in result.stdout
    assert "global/deploy (line 3: GitHub Token)" in result.stdout
    assert json.loads(laptop.run("memories", "conflicts", "--json").stdout) == []
    assert all(TOKEN not in p.read_text() for p in (laptop.home / "history").rglob("*.json"))
    assert laptop.text("global/deploy") == CLEAN_TEXT
    # the remote's own record is left as it is (not this machine's to drop)
    now = repo[repo.references["refs/heads/serena-conflicts"].target]
    assert "global/deploy" in json.loads(repo[now.tree["conflicts.json"].id].data)


def _raw_commit(remote: Path, text: str, encoding: str) -> None:
    """A commit on the remote's main, written byte by byte as anyone with the remote can
    (git itself stores any ``encoding`` header), whose deploy.md holds ``text``."""
    repo = pygit2.Repository(str(remote))
    parent = repo[repo.references["refs/heads/main"].target]
    builder = repo.TreeBuilder(parent.tree)
    builder.insert("deploy.md", repo.create_blob(text.encode()), pygit2.GIT_FILEMODE_BLOB)
    raw = (
        f"tree {builder.write()}\nparent {parent.id}\n"
        "author Some\xe9ne <x@example.org> 1796135300 +0000\n"
        f"committer x <x@example.org> 1796135300 +0000\nencoding {encoding}\n\n"
        "Changed \xff by hand\n"
    ).encode("latin-1")
    oid = repo.odb.write(pygit2.enums.ObjectType.COMMIT, raw)
    repo.references.create("refs/heads/main", oid, force=True)


@pytest.mark.parametrize("encoding", ["x-no-such-encoding", "base64", "idna"])
def test_a_remote_entry_in_an_encoding_python_lacks_is_read_not_a_traceback(
    tmp_path: Path, remote: Path, encoding: str
) -> None:
    laptop, workstation = Machine(tmp_path / "a", remote), Machine(tmp_path / "b", remote)
    laptop.write("global/deploy", "# Deploy\n\nFirst notes.\n")
    laptop.sync()
    workstation.sync()
    start = remote_main(remote)
    _raw_commit(remote, SECRET_TEXT, encoding)

    result = workstation.sync(check=False)  # Machine.run refuses a traceback
    assert result.returncode == 1 and "Nothing was merged from" in result.stdout
    assert "global/deploy (entry " in result.stdout and "line 3: GitHub Token" in result.stdout

    # the same entry without the secret is merged, and the history lists it
    subprocess.run(
        ["git", "--git-dir", str(remote), "update-ref", "refs/heads/main", start], check=True
    )
    _raw_commit(remote, CLEAN_TEXT, encoding)
    workstation.sync()
    assert workstation.text("global/deploy") == CLEAN_TEXT
    assert history_secrets(workstation) == []  # every entry read, the remote's too


@pytest.mark.parametrize("field", ["machine", "remote", "at"])
def test_a_remote_record_holding_a_secret_in_any_field_is_withheld(
    tmp_path: Path, remote: Path, field: str
) -> None:
    laptop = Machine(tmp_path / "a", remote)
    laptop.write("global/deploy", CLEAN_TEXT)
    laptop.sync()
    # a record whose texts are clean, written by anyone with the remote
    repo = pygit2.Repository(str(remote))
    record = {"id": "1", "remote_text": "# Other\n", "local_text": CLEAN_TEXT, "at": "2026"}
    record[field] = f"token={TOKEN}"
    blob = repo.create_blob(json.dumps({"global/deploy": record}).encode())
    builder = repo.TreeBuilder()
    builder.insert("conflicts.json", blob, pygit2.GIT_FILEMODE_BLOB)
    sig = pygit2.Signature("Someone", "someone@example.org")
    commit = repo.create_commit(None, sig, sig, "records", builder.write(), [])
    repo.references.create("refs/heads/serena-conflicts", commit, force=True)

    result = laptop.sync()
    assert "The texts of a sync conflict were not kept here" in result.stdout
    assert TOKEN not in result.stdout
    listed = laptop.run("memories", "conflicts", "--json").stdout
    assert TOKEN not in listed and json.loads(listed) == []
    assert all(TOKEN not in p.read_text() for p in (laptop.home / "history").rglob("*.json"))


@pytest.mark.parametrize("path", ["notes.txt", ".private/deploy.md", "deploy.md.bak"])
def test_a_secret_in_a_file_no_memory_is_from_is_held_back_too(
    tmp_path: Path, remote: Path, path: str
) -> None:
    laptop, workstation = Machine(tmp_path / "a", remote), Machine(tmp_path / "b", remote)
    laptop.write("global/deploy", "# Deploy\n\nFirst notes.\n")
    laptop.sync()
    workstation.sync()
    # anyone with the remote may commit any file: the folder skips it, yet a merge entry
    # would make it part of this history, pushed wherever this machine syncs next
    repo = pygit2.Repository(str(remote))
    parent = repo[repo.references["refs/heads/main"].target]
    index = pygit2.Index()
    index.read_tree(parent.tree)
    blob = repo.create_blob(SECRET_TEXT.encode())
    index.add(pygit2.IndexEntry(path, blob, pygit2.GIT_FILEMODE_BLOB))
    sig = pygit2.Signature("Someone", "someone@example.org")
    repo.create_commit("refs/heads/main", sig, sig, "notes", index.write_tree(repo), [parent.id])

    result = workstation.sync(check=False)
    assert result.returncode == 1 and "Nothing was merged from" in result.stdout
    assert f"{path} (entry " in result.stdout and "line 3: GitHub Token" in result.stdout
    history = next((workstation.home / "history").glob("*.git"))
    logged = subprocess.run(
        ["git", "--git-dir", str(history), "log", "-p", "refs/heads/main"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert TOKEN not in logged


def test_a_secret_in_a_remote_entrys_message_is_held_back_too(tmp_path: Path, remote: Path) -> None:
    laptop, workstation = Machine(tmp_path / "a", remote), Machine(tmp_path / "b", remote)
    laptop.write("global/deploy", "# Deploy\n\nFirst notes.\n")
    laptop.sync()
    workstation.sync()
    # the message of an entry is part of the history too (`serena memories history` shows it)
    repo = pygit2.Repository(str(remote))
    parent = repo[repo.references["refs/heads/main"].target]
    builder = repo.TreeBuilder(parent.tree)
    builder.insert("deploy.md", repo.create_blob(CLEAN_TEXT.encode()), pygit2.GIT_FILEMODE_BLOB)
    sig = pygit2.Signature("Someone", "someone@example.org")
    message = f"Deploy notes\n\nUsed {TOKEN} to test it\n"
    repo.create_commit("refs/heads/main", sig, sig, message, builder.write(), [parent.id])

    result = workstation.sync(check=False)
    assert result.returncode == 1 and "Nothing was merged from" in result.stdout
    assert "line 3: GitHub Token" in result.stdout and TOKEN not in result.stdout
    assert workstation.text("global/deploy") == "# Deploy\n\nFirst notes.\n"
    assert TOKEN not in workstation.run("memories", "history").stdout


GH = "ghp_" + "".join(random.Random(12).choices(string.ascii_letters + string.digits, k=36))


def test_a_remote_memory_whose_name_holds_a_token_is_held_back_without_repeating_it(
    tmp_path: Path, remote: Path
) -> None:
    laptop, workstation = Machine(tmp_path / "a", remote), Machine(tmp_path / "b", remote)
    laptop.write("global/deploy", "# Deploy\n\nFirst notes.\n")
    laptop.sync()
    workstation.sync()
    # a person forced it through on the laptop: the token is a file name of its history now
    laptop.run("memories", "write", f"global/creds/{GH}", "--content", "# CI\n", "--allow-secret")
    laptop.sync()

    result = workstation.sync(check=False)
    assert result.returncode == 1 and "Nothing was merged from" in result.stdout
    assert "a file's name (entry " in result.stdout and "GitHub Token" in result.stdout
    assert GH not in result.stdout + result.stderr
    assert workstation.names() == {"global/deploy"}


def _store(machine: Machine):
    from serena_memory.wiring import build_store

    return build_store(machine.project, home=machine.home)


def test_the_incoming_scan_stops_at_its_bound_and_the_next_syncs_go_on_from_there(
    tmp_path: Path, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from serena_memory.history import secret_scan
    from serena_memory.sync.merge import sync

    laptop, workstation = Machine(tmp_path / "a", remote), Machine(tmp_path / "b", remote)
    laptop.write("global/deploy", "# Deploy\n\nFirst notes.\n")
    laptop.sync()
    workstation.sync()
    for i in range(3):
        laptop.write(f"global/notes/n{i}", f"# Notes {i}\n\n" + "A line of notes.\n" * 40)
    laptop.sync()
    # about one version per sync: a remote of many new versions is checked over several
    monkeypatch.setattr(secret_scan, "INCOMING_SCAN_BYTES", 700)
    store = _store(workstation)

    first = sync(store, "global", str(remote))
    assert first.secrets_unchecked and not first.changed and not first.pushed
    said = first.summary()
    assert "Nothing was merged from" in said and "check for secrets" in said
    assert "sync again to go on" in said
    for _ in range(5):
        result = sync(store, "global", str(remote))
        if not result.secrets_unchecked:
            break
    assert not result.secrets_unchecked and len(result.changed) == 3
    assert workstation.names() == {"global/deploy", *(f"global/notes/n{i}" for i in range(3))}


def test_a_secret_in_a_form_people_paste_is_found_in_the_history_and_held_back(
    tmp_path: Path, remote: Path
) -> None:
    """A name with a suffix (`SECRET_KEY_BASE=`), pasted past the gate by a person: the
    history's check finds it and a team sync does not bring it to the other machine."""
    rng = random.Random(41)
    value = "".join(rng.choice("0123456789abcdef") for _ in range(96))
    laptop, workstation = Machine(tmp_path / "a", remote), Machine(tmp_path / "b", remote)
    laptop.write("global/rails", "# Rails\n\nFirst notes.\n")
    laptop.sync()
    workstation.sync()
    pasted = f"# Rails\n\nSECRET_KEY_BASE={value}\n"
    laptop.run("memories", "write", "global/rails", "--content", pasted, "--allow-secret")
    assert [item["line"] for item in history_secrets(laptop)] == [3]
    laptop.sync()
    result = workstation.sync(check=False)
    assert result.returncode == 1 and "Nothing was merged from" in result.stdout
    assert "value assigned to SECRET_KEY_BASE" in result.stdout and value not in result.stdout
    assert workstation.text("global/rails") == "# Rails\n\nFirst notes.\n"
