"""Review mode: with ``memory_agent_writes: propose`` the agent's changes wait for a person,
who lists, shows, accepts or rejects them; with ``read-only`` they are refused. Real MCP
servers over stdio, the real command line in subprocesses, real files and history."""

from __future__ import annotations

import json
import os
import random
import string
from pathlib import Path

import anyio
import pytest
from conftest import run_cli, write_config
from mcp_support import call, mem_file, ok, over_stdio, refused, write_memory_file
from proposing import propose_delete, propose_edit, propose_write

from serena_memory.core import proposals as P
from serena_memory.core.errors import ConfigError, ProposalError
from serena_memory.core.store import Context
from serena_memory.history.restore import MemoryHistory
from serena_memory.wiring import build_store

TOKEN = "ghp_" + "".join(random.Random(11).choices(string.ascii_letters + string.digits, k=36))


def set_mode(home: Path, project: Path | None, global_mode: str, project_mode: str | None = None):
    write_config(home / "serena_config.yml", f"memory_agent_writes: {global_mode}\n")
    if project is not None and project_mode is not None:
        write_config(project / ".serena" / "project.yml", f"memory_agent_writes: {project_mode}\n")


def entries(project: Path) -> list:
    return list(MemoryHistory(build_store(project)).entries())


def listed(project: Path) -> list[dict]:
    result = run_cli("memories", "review", "--json", "-p", str(project))
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["proposals"]


# -- configuration --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("global_mode", "project_mode", "expected"),
    [
        ("direct", None, "direct"),
        ("direct", "propose", "propose"),
        ("propose", "direct", "propose"),  # a project's file can't loosen the gate
        ("read-only", "propose", "read-only"),
        ("read-only", "direct", "read-only"),
        ("propose", "read-only", "read-only"),
    ],
)
def test_a_project_file_may_only_make_the_mode_stricter(
    project: Path, serena_home: Path, global_mode: str, project_mode: str | None, expected: str
) -> None:
    set_mode(serena_home, project, global_mode, project_mode)
    assert build_store(project, home=serena_home).settings.agent_writes == expected


def test_an_unknown_mode_is_one_sentence_naming_the_file(project: Path, serena_home: Path) -> None:
    write_config(project / ".serena" / "project.yml", "memory_agent_writes: sometimes\n")
    with pytest.raises(ConfigError) as caught:
        _ = build_store(project, home=serena_home).settings
    message = str(caught.value)
    assert "project.yml" in message and "memory_agent_writes" in message
    assert "direct, propose or read-only" in message and "\n" not in message


# -- the agent proposes, over stdio ---------------------------------------------------------
@pytest.mark.slow  # a real server process
def test_agent_write_edit_delete_rename_become_proposals_over_stdio(
    project: Path, serena_home: Path
) -> None:
    set_mode(serena_home, project, "propose")
    write_memory_file(project, "core", "# Core\n\nUse uv.\n")
    write_memory_file(project, "old", "# Old\n")
    write_memory_file(project, "misc", "# Misc\n")
    before = entries(project)

    async def go() -> None:
        async with over_stdio(["--project", str(project)]) as client:
            text = await ok(client, "write_memory", memory_name="auth", content="# Auth\n")
            assert "proposal" in text and "accepts" in text
            text = await ok(
                client, "edit_memory", memory_name="core", needle="uv", repl="pip", mode="literal"
            )
            assert "proposal" in text
            # a second edit builds on the pending one, and replaces it
            await ok(
                client, "edit_memory", memory_name="core", needle="pip", repl="pdm", mode="literal"
            )
            await ok(client, "delete_memory", memory_name="old")
            await refused(
                client, "rename_memory", "pending proposal", old_name="core", new_name="core2"
            )
            await ok(client, "rename_memory", old_name="misc", new_name="misc2")
            read = await ok(client, "read_memory", memory_name="core")
            assert read.startswith("# Core\n\nUse uv.\n")  # the memory itself is unchanged
            assert "Pending proposal" in read and "Use pdm." in read
            read = await ok(client, "read_memory", memory_name="auth")
            assert "does not exist yet" in read and "# Auth" in read
            # the secret gate applies to proposals too
            await refused(
                client,
                "write_memory",
                "placeholder",
                memory_name="deploy",
                content=f"token {TOKEN}\n",
            )

    anyio.run(go)
    # nothing changed in the project, nothing in the history
    assert mem_file(project, "core").read_text() == "# Core\n\nUse uv.\n"
    assert mem_file(project, "old").exists() and not mem_file(project, "auth").exists()
    assert len(entries(project)) == len(before)
    found = listed(project)
    kinds = sorted((p["action"], p["memory"]) for p in found)
    assert kinds == [("delete", "old"), ("edit", "core"), ("rename", "misc"), ("write", "auth")]
    assert mem_file(project, "misc").exists() and not mem_file(project, "misc2").exists()
    assert all(TOKEN not in json.dumps(p) for p in found)


@pytest.mark.slow  # a real server process
def test_activating_a_project_that_doesnt_review_leaves_global_memories_reviewed(
    project: Path, serena_home: Path, tmp_path: Path
) -> None:
    """A server started in a project that proposes (activation allowed: no --project)
    keeps proposing changes to global memories after the agent activates a folder without
    ``propose``; that folder's own memories follow that folder's setting."""
    set_mode(serena_home, project, "direct", "propose")
    lax = tmp_path / "lax"
    (lax / ".serena").mkdir(parents=True)
    global_file = serena_home / "memories" / "global" / "shared.md"

    async def go() -> None:
        async with over_stdio([], cwd=project) as client:
            text = await ok(client, "write_memory", memory_name="global/shared", content="a\n")
            assert "proposal" in text
            said = await ok(client, "activate_project", project=str(lax))
            assert "global memories are proposals" in said
            for tool, arguments in [
                ("write_memory", {"memory_name": "global/shared", "content": "b\n"}),
                ("write_memory", {"memory_name": "global/other", "content": "c\n"}),
                ("rename_memory", {"old_name": "mine", "new_name": "global/mine"}),
            ]:
                if tool == "rename_memory":
                    await ok(client, "write_memory", memory_name="mine", content="m\n")
                text = await ok(client, tool, **arguments)
                assert "proposal" in text, (tool, text)
            # back in the first project, and again to the lax one: still reviewed
            await ok(client, "activate_project", project=str(project))
            await ok(client, "activate_project", project=str(lax))
            text = await ok(client, "delete_memory", memory_name="global/shared")
            assert "proposal" in text or "withdrawn" in text

    anyio.run(go)
    assert not global_file.exists() and not (global_file.parent / "other.md").exists()
    assert mem_file(lax, "mine").read_text() == "m\n"  # the lax project's own: direct
    assert not (global_file.parent / "mine.md").exists()

    # a server that serves only projects without review changes global memories at once
    async def direct() -> None:
        async with over_stdio([], cwd=lax) as client:
            await ok(client, "write_memory", memory_name="global/direct", content="d\n")

    anyio.run(direct)
    assert (global_file.parent / "direct.md").read_text() == "d\n"


@pytest.mark.slow  # a real server process
def test_rename_is_proposed_and_accepted_with_its_references(
    project: Path, serena_home: Path
) -> None:
    set_mode(serena_home, project, "propose")
    write_memory_file(project, "core", "See `mem:auth`.\n")
    write_memory_file(project, "auth", "# Auth\n")

    async def go() -> None:
        async with over_stdio(["--project", str(project)]) as client:
            text = await ok(client, "rename_memory", old_name="auth", new_name="login")
            assert "rename 'auth' to 'login'" in text

    anyio.run(go)
    assert mem_file(project, "auth").exists()
    (proposal,) = listed(project)
    result = run_cli("memories", "review", "accept", proposal["id"], "-p", str(project))
    assert result.returncode == 0, result.stderr
    assert mem_file(project, "login").exists() and not mem_file(project, "auth").exists()
    assert "mem:login" in mem_file(project, "core").read_text()


@pytest.mark.slow  # a real server process
def test_read_only_mode_refuses_every_agent_write_in_one_sentence(
    project: Path, serena_home: Path
) -> None:
    set_mode(serena_home, project, "direct", "read-only")
    write_memory_file(project, "core", "# Core\n")

    async def go() -> None:
        async with over_stdio(["--project", str(project)]) as client:
            await refused(client, "write_memory", "read-only", memory_name="x", content="y")
            await refused(
                client,
                "edit_memory",
                "read-only",
                memory_name="core",
                needle="C",
                repl="D",
                mode="literal",
            )
            await refused(client, "delete_memory", "read-only", memory_name="core")
            answer = await call(client, "rename_memory", old_name="core", new_name="c2")
            assert answer.error and "read-only" in answer.text
            assert answer.text.count(". ") <= 1

    anyio.run(go)
    assert mem_file(project, "core").read_text() == "# Core\n"
    assert not mem_file(project, "x").exists()
    assert not P.pending(build_store(project, home=serena_home))[0]


def test_activation_message_says_writes_are_proposals_and_counts_them(
    project: Path, serena_home: Path
) -> None:
    from serena_memory.mcp.state import create_state

    set_mode(serena_home, project, "propose")
    write_memory_file(project, "core", "# Core\n")
    agent = build_store(project, home=serena_home, context=Context.AGENT)
    propose_write(agent, "notes", "# Notes\n")
    text = create_state(project, home=serena_home).activation_message()
    assert "proposals in this project" in text and "write_memory" in text
    assert "1 proposal awaits" in text


@pytest.mark.slow  # a real server process
def test_onboarding_status_counts_proposed_memories_as_awaiting_review(
    project: Path, serena_home: Path
) -> None:
    set_mode(serena_home, project, "propose")

    async def go() -> tuple[str, str]:
        async with over_stdio(["--project", str(project)]) as client:
            await ok(client, "onboarding")
            await ok(client, "write_memory", memory_name="core", content="# Core\n")
            await ok(client, "write_memory", memory_name="tech_stack", content="# Stack\n")
            partly = await ok(client, "check_onboarding_performed")
            for name in ("suggested_commands", "conventions", "task_completion"):
                await ok(client, "write_memory", memory_name=name, content="# Notes\n")
            return partly, await ok(client, "check_onboarding_performed")

    partly, whole = anyio.run(go)
    # the agent is not sent back to the onboarding tool for what it already proposed
    assert "Call the `onboarding` tool" not in partly + whole
    assert "`mem:core`, `mem:tech_stack` are pending" in partly
    assert "Still to write: `mem:suggested_commands`, `mem:conventions`" in partly
    assert "Nothing is left to write: tell the user to review them." in whole
    assert "serena memories review" in whole
    accepted = run_cli("memories", "review", "accept", "--all", "-p", str(project))
    assert accepted.returncode == 0, accepted.stderr

    async def after() -> str:
        async with over_stdio(["--project", str(project)]) as client:
            return await ok(client, "check_onboarding_performed")

    assert anyio.run(after).startswith("Onboarding has been performed")


# -- the person reviews, on the command line --------------------------------------------------
def test_cli_lists_shows_accepts_and_rejects(project: Path, serena_home: Path) -> None:
    set_mode(serena_home, project, "propose")
    build_store(project, home=serena_home).write("core", "# Core\n\nUse uv.\n")
    agent = build_store(project, home=serena_home, context=Context.AGENT)
    edit, _ = propose_edit(agent, "core", "uv", "pip", "literal")
    create = propose_write(agent, "notes", "# Notes\n")
    assert edit is not None
    before = len(entries(project))

    shown = run_cli("memories", "review", "show", edit.id, "-p", str(project))
    assert shown.returncode == 0, shown.stderr
    assert "-Use uv." in shown.stdout and "+Use pip." in shown.stdout
    assert f"+++ core @ proposal {edit.id}\n" in shown.stdout

    accepted = run_cli("memories", "review", "accept", edit.id, "-p", str(project))
    assert accepted.returncode == 0, accepted.stderr
    assert mem_file(project, "core").read_text() == "# Core\n\nUse pip.\n"
    history = entries(project)
    assert len(history) == before + 1
    newest = history[0]
    assert "accepted by" in newest.who and "unknown client" in newest.who

    rejected = run_cli("memories", "review", "reject", create.id, "-p", str(project))
    assert rejected.returncode == 0, rejected.stderr
    assert not mem_file(project, "notes").exists()
    assert listed(project) == []
    assert len(entries(project)) == before + 1


def test_an_accepted_proposal_is_recorded_as_the_direct_change_would_be(
    project: Path, serena_home: Path
) -> None:
    """`history` tells an accepted edit as "Edit NAME", like the person's own edit, not
    as a whole replacement; an accepted write replaces, an accepted new memory creates."""
    set_mode(serena_home, project, "propose")
    for name in ("core", "style"):
        done = run_cli("memories", "write", name, str(project), "--content", "# A\n\nUse uv.\n")
        assert done.returncode == 0, done.stderr
    done = run_cli("memories", "edit", "style", str(project), "-n", "uv", "-r", "pip")
    assert done.returncode == 0, done.stderr
    agent = build_store(project, home=serena_home, context=Context.AGENT)
    edit, _ = propose_edit(agent, "core", "uv", "pip", "literal")
    rewrite = propose_write(agent, "style", "# A\n\nUse poetry.\n")
    create = propose_write(agent, "notes", "# Notes\n")
    assert edit is not None
    for proposal in (edit, rewrite, create):
        done = run_cli("memories", "review", "accept", proposal.id, "-p", str(project))
        assert done.returncode == 0, done.stderr
    told = run_cli("memories", "history", "-p", str(project)).stdout.splitlines()
    summaries = [line.rsplit("  ", 1)[-1] for line in told if not line.startswith(" ")]
    assert summaries[:4] == ["Create notes", "Replace style", "Edit core", "Edit style"], told


def test_an_edit_of_a_proposed_new_memory_is_listed_as_creating_it(
    project: Path, serena_home: Path
) -> None:
    set_mode(serena_home, project, "propose")
    agent = build_store(project, home=serena_home, context=Context.AGENT)
    propose_write(agent, "notes", "# Notes\n\nA CLI.\n")
    edit, _ = propose_edit(agent, "notes", "CLI", "command line", "literal")
    assert edit is not None
    assert edit.told().startswith("Proposed to create 'notes'")
    listed_text = run_cli("memories", "review", "-p", str(project))
    assert f"{edit.id}  create 'notes'" in listed_text.stdout
    accepted = run_cli("memories", "review", "accept", edit.id, "-p", str(project))
    assert accepted.stdout == f"Accepted {edit.id}: create 'notes'.\n"


def test_a_proposal_whose_memory_changed_is_a_conflict_never_applied(
    project: Path, serena_home: Path
) -> None:
    set_mode(serena_home, project, "propose")
    write_memory_file(project, "core", "# Core\n\nUse uv.\n")
    agent = build_store(project, home=serena_home, context=Context.AGENT)
    proposal = propose_write(agent, "core", "# Core\n\nUse pip.\n")
    write_memory_file(project, "core", "# Core\n\nUse poetry.\n")  # a person's edit since

    (row,) = listed(project)
    assert row["conflict"] is True and row["id"] == proposal.id
    result = run_cli("memories", "review", "accept", "--all", "-p", str(project))
    assert result.returncode == 1
    assert "changed since" in result.stderr and "Traceback" not in result.stderr
    assert mem_file(project, "core").read_text() == "# Core\n\nUse poetry.\n"
    assert [r["id"] for r in listed(project)] == [proposal.id]  # kept for the person


def test_accept_all_applies_every_proposal(project: Path, serena_home: Path) -> None:
    set_mode(serena_home, project, "propose")
    agent = build_store(project, home=serena_home, context=Context.AGENT)
    propose_write(agent, "a", "# A\n")
    propose_write(agent, "b", "# B\n")
    result = run_cli("memories", "review", "accept", "--all", "-p", str(project))
    assert result.returncode == 0, result.stderr
    assert mem_file(project, "a").exists() and mem_file(project, "b").exists()


# -- where proposals live, and what is not one -----------------------------------------------
def test_proposals_are_never_written_inside_the_project(project: Path, serena_home: Path) -> None:
    set_mode(serena_home, project, "propose")
    write_memory_file(project, "core", "# Core\n")
    before = sorted(str(p.relative_to(project)) for p in project.rglob("*"))
    agent = build_store(project, home=serena_home, context=Context.AGENT)
    propose_write(agent, "new", "# New\n")
    propose_delete(agent, "core")
    after = sorted(str(p.relative_to(project)) for p in project.rglob("*"))
    assert after == before
    where = P.folder(agent)
    assert where.is_relative_to(os.path.realpath(serena_home))
    assert len(list(where.glob("*.json"))) == 2
    assert all((f.stat().st_mode & 0o077) == 0 for f in where.glob("*.json"))


def test_planted_proposal_files_are_skipped_never_applied(
    project: Path, serena_home: Path, tmp_path: Path
) -> None:
    set_mode(serena_home, project, "propose")
    agent = build_store(project, home=serena_home, context=Context.AGENT)
    good = propose_write(agent, "fine", "# Fine\n")
    where = P.folder(agent)
    outside = tmp_path / "elsewhere.json"
    outside.write_text(json.dumps({**good.to_dict(), "id": "aaaaaaaaaaaa"}))
    (where / "aaaaaaaaaaaa.json").symlink_to(outside)  # a link: not a proposal
    bad_name = {**good.to_dict(), "id": "bbbbbbbbbbbb", "memory": "../../etc/passwd"}
    (where / "bbbbbbbbbbbb.json").write_text(json.dumps(bad_name))
    (where / "cccccccccccc.json").write_text("{not json")
    (where / "../x.json").write_text("{}")
    (where / "dddddddddddd.json").write_text(json.dumps({**good.to_dict(), "id": "other"}))
    (where / "notes.txt").write_text("hello")

    found, skipped = P.pending(agent)
    assert [p.id for p in found] == [good.id]
    assert len(skipped) == 5
    for planted in ("aaaaaaaaaaaa", "bbbbbbbbbbbb", "cccccccccccc"):
        with pytest.raises(ProposalError):
            P.accept(build_store(project, home=serena_home), planted)
    with pytest.raises(ProposalError, match=r"12 hex digits"):  # as review.md names them
        P.accept(build_store(project, home=serena_home), "../../x")
    result = run_cli("memories", "review", "accept", "bbbbbbbbbbbb", "-p", str(project))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert not (project / ".serena" / "memories" / "etc").exists()


# -- the dashboard's review API: the same rules as its other changes ---------------------------
def test_dashboard_accept_needs_the_token_and_the_dashboards_origin(
    project: Path, serena_home: Path
) -> None:
    import httpx

    from serena_memory.dashboard.server import DashboardServer

    set_mode(serena_home, project, "propose")
    agent = build_store(project, home=serena_home, context=Context.AGENT)
    proposal = propose_write(agent, "planted", "# From the agent\n")
    server = DashboardServer(project, home=serena_home, port=0)
    server.start()
    try:
        url = server.base_url + "/api/proposals/accept"
        token = {"X-Serena-Token": server.token}
        assert httpx.post(url, json={"id": proposal.id}).status_code in (401, 403)
        for origin in ["http://evil.example", "null"]:
            response = httpx.post(
                url, json={"id": proposal.id}, headers={"Origin": origin, **token}
            )
            assert response.status_code == 403
        assert not mem_file(project, "planted").exists()
        listing = httpx.get(server.base_url + "/api/proposals", headers=token).json()
        assert [p["id"] for p in listing["proposals"]] == [proposal.id]
        bad = httpx.post(url, json={"id": "../x"}, headers={"Origin": server.base_url, **token})
        assert bad.status_code == 409 and "not a proposal id" in bad.json()["error"]
        good = httpx.post(
            url, json={"id": proposal.id}, headers={"Origin": server.base_url, **token}
        )
        assert good.status_code == 200, good.text
        assert mem_file(project, "planted").read_text() == "# From the agent\n"
    finally:
        server.stop()


@pytest.mark.slow  # a real server process
def test_review_mode_over_streamable_http_names_the_client_in_the_accepted_entry(
    project: Path, serena_home: Path
) -> None:
    from mcp_support import http_server

    set_mode(serena_home, project, "propose")
    build_store(project, home=serena_home).write("core", "# Core\n\nUse uv.\n")

    async def go(server) -> None:
        async with server.connect() as client:
            text = await ok(
                client, "edit_memory", memory_name="core", needle="uv", repl="pip", mode="literal"
            )
            assert "proposal" in text
            read = await ok(client, "read_memory", memory_name="core")
            assert "Pending proposal" in read and "Use pip." in read

    with http_server(["--project", str(project), "--no-dashboard"]) as server:
        anyio.run(go, server)
    assert mem_file(project, "core").read_text() == "# Core\n\nUse uv.\n"
    (row,) = listed(project)
    assert row["agent"] != "unknown client"
    result = run_cli("memories", "review", "accept", row["id"], "-p", str(project))
    assert result.returncode == 0, result.stderr
    newest = entries(project)[0]
    assert newest.who.startswith(row["agent"]) and "accepted by" in newest.who


def test_an_agent_store_refuses_direct_changes_whichever_front_end_calls_it(
    project: Path, serena_home: Path
) -> None:
    from serena_memory.core.errors import AgentWritesError

    build_store(project, home=serena_home).write("core", "See src/app.py.\n")
    agent = build_store(project, home=serena_home, context=Context.AGENT)
    for mode in ("propose", "read-only"):
        set_mode(serena_home, None, mode)
        with pytest.raises(AgentWritesError):
            agent.write("core", "replaced")
        with pytest.raises(AgentWritesError):
            agent.update({"core": lambda text: text + "more\n"})
        with pytest.raises(AgentWritesError):
            agent.delete("core")
    assert mem_file(project, "core").read_text() == "See src/app.py.\n"
    set_mode(serena_home, None, "read-only")
    with pytest.raises(AgentWritesError):
        propose_write(agent, "core", "proposed")
    # a person's store is not affected
    build_store(project, home=serena_home).write("core", "By a person.\n")
    assert mem_file(project, "core").read_text() == "By a person.\n"


def test_a_person_edits_a_proposal_before_accepting_it(
    project: Path, serena_home: Path, tmp_path: Path
) -> None:
    import subprocess
    import sys

    set_mode(serena_home, project, "propose")
    agent = build_store(project, home=serena_home, context=Context.AGENT)
    proposal = propose_write(agent, "notes", "# Notes\n\nUse pip.\n")
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import sys, pathlib\np = pathlib.Path(sys.argv[1])\n"
        "p.write_text(p.read_text().replace('pip', 'uv'))\n"
    )
    env = {**os.environ, "EDITOR": f"{sys.executable} {editor}"}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "serena_memory.cli",
            "memories",
            "review",
            "accept",
            proposal.id,
            "--edit",
            "-p",
            str(project),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert mem_file(project, "notes").read_text() == "# Notes\n\nUse uv.\n"
    assert listed(project) == []
