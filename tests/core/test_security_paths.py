"""The path gate: a hostile project's links, fifos and huge files never reach outside.

Every case builds real files (a stand-in for ``~/.ssh/id_rsa`` outside the project, real
fifos, real symlinks) and goes through the real entry points: the `serena` command line
in a subprocess, the MCP server over stdio, the dashboard over HTTP.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import anyio
import pytest
from conftest import run_cli, write_config
from mcp_support import over_stdio, refused

from serena_memory.core.errors import (
    MemoryStoreError,
    NotAMemoryFileError,
    NotAProjectError,
    OutsidePathError,
)
from serena_memory.core.paths import MAX_MEMORY_BYTES, project_folder
from serena_memory.core.store import MemoryStore
from serena_memory.wiring import build_store

SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- not-a-real-key"


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A private key outside the project, where a hostile link points."""
    key = tmp_path / "someone" / ".ssh" / "id_rsa"
    key.parent.mkdir(parents=True)
    key.write_text(SECRET, encoding="utf-8")
    return key


@pytest.fixture
def memories(project: Path) -> Path:
    folder = project / ".serena" / "memories"
    folder.mkdir(parents=True)
    (folder / "core.md").write_text("# core\nsee `mem:notes`\n", encoding="utf-8")
    return folder


def failed_with(done, *words: str) -> str:
    """A command that failed with one line on stderr, no traceback, nothing secret."""
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    line = done.stderr.strip()
    assert line.startswith("Error: ") and "\n" not in line, done.stderr
    for word in words:
        assert word in line, (word, line)
    assert SECRET not in done.stdout + done.stderr
    return line


def cli_json(*args: str) -> dict:
    done = run_cli(*args, "--json")
    assert "Traceback" not in done.stderr, done.stderr
    return json.loads(done.stdout)


# -- reading through links ------------------------------------------------------------------


def test_link_to_a_secret_outside_the_project_is_never_read(
    project: Path, memories: Path, secret: Path
) -> None:
    (memories / "notes.md").symlink_to(secret)
    failed_with(
        run_cli("memories", "read", "notes", str(project)), "symlink", str(secret), "outside"
    )
    listing = cli_json("memories", "list", str(project))
    assert listing["memories"] == ["core"]
    [skipped] = listing["skipped"]
    assert skipped["name"] == "notes" and "outside the project folder" in skipped["reason"]
    text = run_cli("memories", "list", str(project))
    assert "Skipped" in text.stdout and "notes.md" in text.stdout
    for command in (["check"], ["check", "--reachability"], ["graph"]):
        done = run_cli("memories", *command, str(project), "--json")
        assert "Traceback" not in done.stderr and SECRET not in done.stdout, command
    report = cli_json("memories", "check", str(project))
    assert [s["name"] for s in report["skipped"]] == ["notes"]
    assert "notes.md" in run_cli("memories", "check", str(project)).stdout


@pytest.mark.slow  # a real server process
def test_link_to_a_secret_is_refused_by_the_mcp_read_memory_tool(
    project: Path, memories: Path, secret: Path
) -> None:
    (memories / "notes.md").symlink_to(secret)

    async def go() -> None:
        async with over_stdio(["--project", str(project)]) as client:
            text = await refused(client, "read_memory", "outside", memory_name="notes")
            assert SECRET not in text
            listed = await client.call_tool("list_memories", {})
            shown = "".join(getattr(b, "text", "") for b in listed.content)
            assert SECRET not in shown and "core" in shown

    anyio.run(go)


def test_link_to_a_secret_is_refused_by_the_dashboard(
    project: Path, memories: Path, secret: Path, serena_home: Path
) -> None:
    import httpx

    from serena_memory.dashboard.server import DashboardServer

    (memories / "notes.md").symlink_to(secret)
    server = DashboardServer(project, home=serena_home, port=0)
    server.start()
    try:
        headers = {"Origin": server.base_url, "X-Serena-Token": server.token}
        with httpx.Client(base_url=server.base_url, headers=headers) as c:
            answer = c.get("/api/memory", params={"name": "notes"})
            assert answer.status_code >= 400 and SECRET not in answer.text
            assert "outside" in answer.json()["error"]
            for page in ("/api/state", "/api/graph", "/api/check?reachability=1"):
                got = c.get(page)
                assert got.status_code == 200 and SECRET not in got.text, page
    finally:
        server.stop()


def test_link_to_dev_zero_is_refused_at_once(project: Path, memories: Path) -> None:
    (memories / "notes.md").symlink_to("/dev/zero")
    failed_with(run_cli("memories", "read", "notes", str(project)), "outside")
    assert cli_json("memories", "list", str(project))["memories"] == ["core"]


def test_a_fifo_is_not_a_memory_and_never_blocks(project: Path, memories: Path) -> None:
    os.mkfifo(memories / "notes.md")
    os.mkfifo(memories / "pipe-target")
    (memories / "linked.md").symlink_to("pipe-target")  # inside, but still a fifo
    for name in ("notes", "linked"):
        failed_with(run_cli("memories", "read", name, str(project)), "a fifo", "regular file")
    listing = cli_json("memories", "list", str(project))
    assert listing["memories"] == ["core"]
    assert sorted(s["name"] for s in listing["skipped"]) == ["linked", "notes"]
    report = cli_json("memories", "check", str(project))
    assert sorted(s["name"] for s in report["skipped"]) == ["linked", "notes"]


def test_a_socket_is_not_a_memory(store: MemoryStore, memories: Path) -> None:
    import socket

    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(memories / "s.md"))
        with pytest.raises(NotAMemoryFileError, match="a socket"):
            store.read("s")
        assert [s.name for s in store.list().skipped] == ["s"]
    finally:
        sock.close()


def test_broken_links_are_reported_by_list_and_check(project: Path, memories: Path) -> None:
    (memories / "gone.md").symlink_to(memories / "deleted-long-ago.md")
    (memories / "loop.md").symlink_to("loop.md")
    listing = cli_json("memories", "list", str(project))
    reasons = {s["name"]: s["reason"] for s in listing["skipped"]}
    assert reasons["gone"].startswith("broken symlink")
    assert reasons["loop"].startswith("symlink loop")
    text = run_cli("memories", "check", str(project)).stdout
    assert "gone.md: broken symlink" in text and "loop.md: symlink loop" in text


# -- folders ----------------------------------------------------------------------------------


def test_a_topic_folder_linked_outside_is_neither_read_nor_written(
    project: Path, memories: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "x.md").write_text(SECRET, encoding="utf-8")
    (memories / "team").symlink_to(outside, target_is_directory=True)
    failed_with(run_cli("memories", "read", "team/x", str(project)), "outside")
    failed_with(run_cli("memories", "write", "team/new", str(project), "-c", "hi"), "outside")
    failed_with(run_cli("memories", "delete", "team/x", str(project)), "outside")
    failed_with(
        run_cli("memories", "edit", "team/x", str(project), "-n", "not", "-r", "was"), "outside"
    )
    failed_with(run_cli("memories", "rename", "core", "team/core", str(project)), "outside")
    assert sorted(p.name for p in outside.iterdir()) == ["x.md"]
    assert (outside / "x.md").read_text(encoding="utf-8") == SECRET
    listing = cli_json("memories", "list", str(project))
    assert listing["memories"] == ["core"] and listing["skipped"][0]["name"] == "team"


def test_a_serena_folder_linked_outside_is_refused_before_anything_is_created(
    project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    (outside / "memories").mkdir(parents=True)
    (outside / "memories" / "core.md").write_text(SECRET, encoding="utf-8")
    (project / ".serena").symlink_to(outside, target_is_directory=True)
    failed_with(run_cli("memories", "read", "core", str(project)), "outside")
    failed_with(run_cli("memories", "write", "new", str(project), "-c", "hi"), "outside")
    assert sorted(p.name for p in (outside / "memories").iterdir()) == ["core.md"]
    listing = cli_json("memories", "list", str(project))
    assert listing["memories"] == [] and listing["skipped"][0]["name"] == ""


def test_a_monorepo_linking_sub_projects_memories_keeps_working(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    sub = repo / "services" / "api" / ".serena" / "memories"
    sub.mkdir(parents=True)
    (sub / "endpoints.md").write_text("the api endpoints\n", encoding="utf-8")
    top = repo / ".serena" / "memories"
    top.mkdir(parents=True)
    (top / "core.md").write_text("see `mem:api/endpoints`\n", encoding="utf-8")
    (top / "api").symlink_to(Path("../../services/api/.serena/memories"))
    (top / "style.md").symlink_to(Path("../../docs-style.md"))  # a file link, inside too
    (repo / "docs-style.md").write_text("style\n", encoding="utf-8")
    listing = cli_json("memories", "list", str(repo))
    assert listing["memories"] == ["api/endpoints", "core", "style"]
    assert "skipped" not in listing
    assert run_cli("memories", "read", "api/endpoints", str(repo)).stdout == "the api endpoints\n"
    assert run_cli("memories", "write", "api/auth", str(repo), "-c", "tokens").returncode == 0
    assert (sub / "auth.md").read_text(encoding="utf-8") == "tokens"
    assert run_cli("memories", "write", "style", str(repo), "-c", "new style").returncode == 0
    assert (top / "style.md").is_symlink()  # written through the link, which stays
    assert (repo / "docs-style.md").read_text(encoding="utf-8") == "new style"
    done = run_cli("memories", "rename", "api/endpoints", "api/routes", str(repo))
    assert done.returncode == 0, done.stderr
    assert (sub / "routes.md").exists() and not (sub / "endpoints.md").exists()
    assert "mem:api/routes" in (top / "core.md").read_text(encoding="utf-8")
    assert cli_json("memories", "check", str(repo))["clean"] is True


def test_an_allowed_root_from_the_global_configuration_is_followed(
    project: Path, memories: Path, serena_home: Path, tmp_path: Path
) -> None:
    shared = tmp_path / "team-memories"
    shared.mkdir()
    (shared / "conventions.md").write_text("shared conventions\n", encoding="utf-8")
    (memories / "team").symlink_to(shared, target_is_directory=True)
    write_config(serena_home / "serena_config.yml", f"allowed_memory_roots: ['{shared}']\n")
    assert run_cli("memories", "read", "team/conventions", str(project)).stdout == (
        "shared conventions\n"
    )
    assert run_cli("memories", "write", "team/new", str(project), "-c", "x").returncode == 0
    assert (shared / "new.md").read_text(encoding="utf-8") == "x"
    assert "skipped" not in cli_json("memories", "list", str(project))


def test_an_allowed_root_in_the_projects_own_configuration_is_refused_never_followed(
    project: Path, memories: Path, secret: Path
) -> None:
    write_config(
        project / ".serena" / "project.yml", f"allowed_memory_roots: ['{secret.parent}']\n"
    )
    (memories / "notes.md").symlink_to(secret)
    read = run_cli("memories", "read", "notes", str(project))
    failed_with(read, "allowed_memory_roots", "serena_config.yml")
    assert secret.read_text() not in read.stdout + read.stderr
    write_config(project / ".serena" / "project.yml", "")
    failed_with(run_cli("memories", "read", "notes", str(project)), "outside")
    assert cli_json("memories", "list", str(project))["memories"] == ["core"]


def test_allowed_roots_must_be_absolute_and_not_the_root(
    project: Path, memories: Path, serena_home: Path
) -> None:
    config = serena_home / "serena_config.yml"
    write_config(config, "allowed_memory_roots: ['shared']\n")
    failed_with(run_cli("memories", "list", str(project)), "allowed_memory_roots", "absolute")
    write_config(config, "allowed_memory_roots: ['/']\n")
    failed_with(run_cli("memories", "list", str(project)), "allowed_memory_roots", "root")


# -- writes, deletes and renames ------------------------------------------------------------


def test_writing_through_a_link_that_leads_outside_is_refused(
    project: Path, memories: Path, secret: Path, tmp_path: Path
) -> None:
    (memories / "notes.md").symlink_to(secret)
    (memories / "planted.md").symlink_to(tmp_path / "bashrc-to-be")  # dangling, outside
    failed_with(run_cli("memories", "write", "notes", str(project), "-c", "x"), "outside")
    failed_with(run_cli("memories", "write", "planted", str(project), "-c", "x"), "outside")
    failed_with(
        run_cli("memories", "edit", "notes", str(project), "-n", "KEY", "-r", "x"), "outside"
    )
    assert secret.read_text(encoding="utf-8") == SECRET
    assert not (tmp_path / "bashrc-to-be").exists()
    # deleting removes the link itself, never what it points to
    assert run_cli("memories", "delete", "notes", str(project)).returncode == 0
    assert not (memories / "notes.md").is_symlink() and secret.exists()


def test_a_rename_never_reads_or_rewrites_files_behind_outside_links(
    project: Path, memories: Path, tmp_path: Path
) -> None:
    victim = tmp_path / "victim.md"
    victim.write_text("uses `mem:core`\n", encoding="utf-8")
    (memories / "evil.md").symlink_to(victim)
    done = run_cli("memories", "rename", "core", "start", str(project))
    assert done.returncode == 0, done.stderr
    assert victim.read_text(encoding="utf-8") == "uses `mem:core`\n"


def test_the_projects_configuration_file_goes_through_the_gate(
    project: Path, memories: Path, secret: Path
) -> None:
    config = project / ".serena" / "project.yml"
    config.symlink_to("/dev/zero")
    failed_with(run_cli("memories", "list", str(project)), "project.yml", "outside")
    config.unlink()
    config.symlink_to(secret)
    failed_with(run_cli("memories", "list", str(project)), "project.yml", "outside")


# -- size ---------------------------------------------------------------------------------------


def test_a_memory_over_the_size_limit_is_refused_before_it_is_read(
    project: Path, memories: Path
) -> None:
    with open(memories / "huge.md", "wb") as handle:
        handle.truncate(MAX_MEMORY_BYTES + 1)  # sparse: costs no disk
    line = failed_with(run_cli("memories", "read", "huge", str(project)), "limit")
    assert f"{MAX_MEMORY_BYTES:,}" in line
    report = cli_json("memories", "check", str(project))
    assert [s["name"] for s in report["skipped"]] == ["huge"]
    failed_with(run_cli("memories", "edit", "huge", str(project), "-n", "a", "-r", "b"), "limit")


# -- projects -----------------------------------------------------------------------------------


def test_root_and_home_are_never_a_project_on_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    failed_with(run_cli("memories", "list", "/"), "root of the file system")
    home = tmp_path / "fake-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    failed_with(run_cli("memories", "list", str(home)), "home folder")
    failed_with(run_cli("memories", "list", cwd=home), "home folder")
    failed_with(run_cli("memories", "write", "x", str(tmp_path), "-c", "x"), "home folder")
    failed_with(run_cli("start-mcp-server", "--project", str(home)), "home folder")
    assert not (home / ".serena").exists() and not (tmp_path / ".serena").exists()


@pytest.mark.slow  # a real server process
def test_root_and_home_are_refused_by_activate_project(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "fake-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))

    async def go() -> None:
        async with over_stdio([], cwd=project) as client:
            for folder, words in (("/", "root of the file system"), (str(home), "home folder")):
                await refused(client, "activate_project", words, project=folder)
            text = await refused(client, "read_file", relative_path="etc/passwd")
            assert "root:" not in text

    anyio.run(go)


def test_project_folder_is_the_one_check_for_every_entry_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / "work").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    (tmp_path / "link-to-root").symlink_to("/")
    for folder in ("/", str(home), str(tmp_path), str(tmp_path / "link-to-root"), "~"):
        with pytest.raises(NotAProjectError):
            project_folder(folder)
        with pytest.raises(NotAProjectError):
            build_store(os.path.expanduser(folder))
    assert project_folder("~/work") == home / "work"
    with pytest.raises(NotAProjectError, match="does not exist"):
        project_folder(str(home / "missing"))


def test_outside_path_error_names_the_link_and_how_to_allow_it(
    store: MemoryStore, memories: Path, secret: Path, serena_home: Path
) -> None:
    (memories / "notes.md").symlink_to(secret)
    with pytest.raises(OutsidePathError) as caught:
        store.read("notes")
    message = str(caught.value)
    assert str(secret) in message and "allowed_memory_roots" in message
    assert str(serena_home / "serena_config.yml") in message


def test_onboarding_facts_never_read_build_files_through_outside_links(
    tmp_path: Path,
) -> None:
    from serena_memory.agent.project_facts import detect_facts

    other = tmp_path / "private-repo"
    other.mkdir()
    (other / "Makefile").write_text("test-with-secret-token:\n\ttrue\n", encoding="utf-8")
    project = tmp_path / "cloned"
    project.mkdir()
    (project / "Makefile").symlink_to(other / "Makefile")
    (project / "package.json").symlink_to("/dev/zero")
    sheet = detect_facts(project)
    assert "test-with-secret-token" not in sheet.to_markdown()
    (project / "Makefile").unlink()
    (project / "Makefile").write_text("test:\n\ttrue\n", encoding="utf-8")
    assert "make test" in detect_facts(project).commands["test"]


def test_a_link_swapped_in_after_the_check_is_caught_when_the_file_is_open(
    project: Path, tmp_path: Path
) -> None:
    """The gate resolves a path, then opens it; a folder on that path replaced by a link in
    between (simulated here by handing the open a path through such a link) is refused by
    the check made on the open file or folder, for reads, writes and removals alike."""
    from serena_memory.core.files import atomic_write, remove_file
    from serena_memory.core.paths import read_regular_file

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "x.md").write_text(SECRET, encoding="utf-8")
    (project / "swapped").symlink_to(outside, target_is_directory=True)
    inside = (str(project),)
    with pytest.raises(OutsidePathError, match="once opened"):
        read_regular_file(str(project / "swapped" / "x.md"), inside, "memory 'x'")
    with pytest.raises(OutsidePathError, match="once opened"):
        atomic_write(project / "swapped" / "new.md", b"planted", inside)
    with pytest.raises(OutsidePathError, match="once opened"):
        remove_file(project / "swapped" / "x.md", inside)
    assert sorted(p.name for p in outside.iterdir()) == ["x.md"]
    assert (outside / "x.md").read_text(encoding="utf-8") == SECRET


@pytest.mark.parametrize("loop", ["self", "pair"])
def test_a_topic_folder_whose_links_loop_is_one_sentence_for_every_operation(
    project: Path, serena_home: Path, loop: str
) -> None:
    """A link that leads back to itself (or two that lead to each other) on the way to a
    memory: every operation answers with one sentence naming it, nothing is created."""
    folder = serena_home / "memories" / "global"
    folder.mkdir(parents=True)
    if loop == "self":
        (folder / "t").symlink_to(folder / "t")
    else:
        (folder / "t").symlink_to(folder / "u")
        (folder / "u").symlink_to(folder / "t")
    before = sorted(p.name for p in folder.iterdir())
    store = build_store(project, home=serena_home)
    for operation in (
        lambda: store.write("global/t/a", "text\n"),
        lambda: store.read("global/t/a"),
        lambda: store.delete("global/t/a"),
        lambda: store.rename("global/t/a", "b"),
    ):
        with pytest.raises(MemoryStoreError) as refused_with:
            operation()
        assert "can't be reached" in str(refused_with.value) or "not found" in str(
            refused_with.value
        )
    assert sorted(p.name for p in folder.iterdir()) == before
    done = run_cli("memories", "write", "global/t/a", str(project), "--content", "x")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "can't be reached" in done.stderr and len(done.stderr.strip().splitlines()) == 1
