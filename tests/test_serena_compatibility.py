"""Serena's users first: every `.serena/` folder and `~/.serena` that Serena wrote opens,
and Serena's context and mode names work.

The real folders are those of `../shared/realworld/` (34 public repositories' `.serena/`
folders as their authors committed them, and the `serena_config.yml` that serena-agent
2.1.0 writes on its first start); nothing here was written for this project.
"""

from __future__ import annotations

import json
import os
import sys
import tarfile
from pathlib import Path

import anyio
import pytest
from cli_support import run_cli
from conftest import REPO_ROOT, write_config
from mcp_support import EXPLORATION_TOOLS, MEMORY_TOOLS, ONBOARDING_TOOLS, in_memory, ok

from serena_memory.agent.contexts import SERENA_CONTEXTS, load_context
from serena_memory.agent.modes import BUILTIN_MODES, SERENA_ONLY_MODES
from serena_memory.core.config import load_settings
from serena_memory.core.errors import ConfigError

REALWORLD = REPO_ROOT.parent / "shared" / "realworld"
PROJECTS_TAR = REALWORLD / "serena-projects.tar.gz"
AGENT_HOME_CONFIG = REALWORLD / "serena-home" / "serena_config.yml"
needs_realworld = pytest.mark.skipif(
    not PROJECTS_TAR.is_file(), reason="../shared/realworld/ is not beside the repository"
)
SERVER = [sys.executable, "-m", "serena_memory.cli", "start-mcp-server", "--no-dashboard"]


@pytest.fixture(scope="module")
def real_projects(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("realworld")
    with tarfile.open(PROJECTS_TAR) as tar:
        tar.extractall(folder, filter="data")
    roots = sorted(p.parent for p in folder.glob("serena-projects/*/.serena"))
    assert len(roots) == 34
    return roots


@pytest.fixture
def agent_home(serena_home: Path) -> Path:
    """``$SERENA_HOME`` as serena-agent 2.1.0 leaves it after its first start."""
    (serena_home / "serena_config.yml").write_bytes(AGENT_HOME_CONFIG.read_bytes())
    return serena_home


@needs_realworld
@pytest.mark.slow
def test_every_real_folder_opens_with_every_command(real_projects: list[Path], agent_home):
    refused = {}
    for root in real_projects:
        for args in (["list"], ["check", "--json"], ["check", "--duplicates", "--json"]):
            done = run_cli("memories", *args, "-p", str(root))
            if "Error" in done.stderr or done.returncode not in (0, 1):
                refused[f"{root.name}: {' '.join(args)}"] = done.stderr.strip()
            elif "--json" in args:
                assert "clean" in json.loads(done.stdout)
            # nothing Serena wrote is told as a key without effect
            assert "has no effect here" not in done.stderr, done.stderr
    assert refused == {}


@needs_realworld
@pytest.mark.slow
def test_every_real_folder_serves_its_memories_over_mcp(real_projects: list[Path], agent_home):
    async def go() -> None:
        for root in real_projects:
            async with in_memory(root, context="claude-code") as client:
                listing = await ok(client, "list_memories")
                names = [p.stem for p in (root / ".serena" / "memories").rglob("*.md")]
                if not names:
                    continue
                first = sorted(
                    p.relative_to(root / ".serena" / "memories").with_suffix("").as_posix()
                    for p in (root / ".serena" / "memories").rglob("*.md")
                )[0]
                assert first.rsplit("/", 1)[-1] in listing, root.name
                text = await ok(client, "read_memory", memory_name=first)
                assert text.strip(), root.name

    anyio.run(go)


def _serve(args: list[str], cwd: Path) -> tuple[set[str], str]:
    from mcp import Client, StdioServerParameters

    async def go() -> tuple[set[str], str]:
        params = StdioServerParameters(
            command=SERVER[0], args=[*SERVER[1:], *args], env=dict(os.environ), cwd=cwd
        )
        async with Client(params, mode="legacy") as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            listing = await ok(client, "list_memories")
            return tools, listing

    return anyio.run(go)


@needs_realworld
def test_a_home_written_by_serena_agent_serves_a_serena_client_entry(
    agent_home: Path, project: Path
) -> None:
    write_config(project / ".serena" / "memories" / "core.md", "# Core\n")
    # as serena-agent's guides write the entry for Claude Code
    tools, listing = _serve(["--context", "claude-code", "--project", str(project)], project)
    assert "core" in listing
    assert tools >= {"read_memory", "write_memory", "onboarding"}
    assert not tools & EXPLORATION_TOOLS  # Claude Code has file tools of its own


def test_serena_agent_options_in_a_client_entry_are_taken(project: Path) -> None:
    write_config(project / ".serena" / "memories" / "core.md", "# Core\n")
    # the positional project, --enable-web-dashboard, --mode and code-tool options
    tools, listing = _serve(
        [
            str(project),
            "--context",
            "ide",
            "--mode",
            "planning",
            "--add-mode",
            "no-onboarding",
            "--enable-web-dashboard",
            "false",
            "--language-backend",
            "LSP",
            "--log-level",
            "INFO",
        ],
        project,
    )
    assert "core" in listing
    assert "read_memory" in tools and not tools & ONBOARDING_TOOLS


@pytest.mark.parametrize("name", sorted(SERENA_CONTEXTS))
def test_every_serena_context_name_is_a_surface(name: str) -> None:
    context = load_context(name)
    coding = name not in {"agent", "chatgpt", "desktop-app", "oaicompat-agent"}
    assert context.name == ("coding" if coding else "desktop")


def test_a_context_file_made_for_serena_gets_the_coding_surface(
    serena_home: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    write_config(serena_home / "contexts" / "my-team.yml", "description: ours\n")
    assert load_context("my-team", serena_home).name == "coding"
    assert "context file of Serena's" in capfd.readouterr().err
    with pytest.raises(ConfigError, match="unknown context 'nonsense'.*claude-code"):
        load_context("nonsense", serena_home)


@pytest.mark.parametrize("key", ["base_modes", "default_modes", "added_modes", "--mode"])
def test_serena_mode_names_are_accepted_wherever_serena_takes_a_mode(
    key: str, project: Path, serena_home: Path
) -> None:
    names = ["interactive", "editing", "planning", "one-shot", "query-projects", "onboarding"]
    args: list[str] = []
    if key == "--mode":
        args = [a for n in names for a in ("--mode", n)]
    elif key == "base_modes":
        write_config(serena_home / "serena_config.yml", f"base_modes: {names}\n")
    else:
        write_config(project / ".serena" / "project.yml", f"{key}: {names}\n")
    from serena_memory.mcp.state import create_state

    state = create_state(project, [a for a in args if a != "--mode"])
    assert [m.name for m in state.modes] == names
    assert any("call `onboarding` first" in p for p in state.mode_prompts())
    assert state.enabled("write_memory")


def test_the_modes_that_concern_memories_act(project: Path, capfd) -> None:
    from serena_memory.mcp.state import create_state

    for name in ("no-memories", "benchmark"):
        state = create_state(project, [name])
        assert not any(state.enabled(t) for t in MEMORY_TOOLS | ONBOARDING_TOOLS)
    state = create_state(project, ["no-onboarding"])
    assert state.enabled("read_memory") and not state.enabled("onboarding")
    create_state(project, ["interactive", "editing"])
    err = capfd.readouterr().err
    assert "modes 'interactive' and 'editing' are Serena's and have no effect" in err
    assert set(SERENA_ONLY_MODES) <= set(BUILTIN_MODES)


def test_project_modes_and_the_command_line_combine_as_serena_combines_them(
    project: Path, serena_home: Path
) -> None:
    from serena_memory.mcp.state import create_state

    write_config(serena_home / "serena_config.yml", "base_modes: [interactive]\n")
    write_config(
        project / ".serena" / "project.yml",
        "default_modes: [no-onboarding]\nadded_modes: [editing]\n",
    )
    names = [m.name for m in create_state(project).modes]
    assert names == ["interactive", "no-onboarding", "editing"]
    # --mode takes the place of default_modes; --add-mode adds
    state = create_state(project, ["planning"], added_modes=["one-shot"])
    assert [m.name for m in state.modes] == ["interactive", "planning", "editing", "one-shot"]
    assert state.enabled("onboarding")


@pytest.mark.parametrize(
    "text",
    [
        "language: python\n",  # 0.1
        "languages: [python]\nbase_modes: [editing]\n",  # 1.0
        "additional_workspace_folders: []\n",  # 1.3 to 1.6
        "language_servers: [python]\nls_workspace_folders: []\n"
        "ls_additional_workspace_folders: []\nactivation_command: ''\n",  # 1.7
        "agent_interface: REPL\nexcluded_apis: []\nincluded_apis: []\n",  # 2.0, 2.1
    ],
)
def test_keys_serena_releases_write_in_project_yml_open_silently(
    text: str, project: Path, serena_home: Path, capfd
) -> None:
    write_config(project / ".serena" / "project.yml", "project_name: x\n" + text)
    assert load_settings(project, serena_home).project_config.project_name == "x"
    assert capfd.readouterr().err == ""


def test_an_unknown_key_is_told_once_and_stops_nothing(project: Path) -> None:
    write_config(project / ".serena" / "project.yml", "root_path: /x\nrecord_tool_usage_stats: 1\n")
    write_config(project / ".serena" / "memories" / "core.md", "# Core\n")
    done = run_cli("memories", "list", "-p", str(project))
    assert done.returncode == 0 and "core" in done.stdout
    notes = [line for line in done.stderr.splitlines() if "has no effect here" in line]
    assert len(notes) == 2
    assert "'record_tool_usage_stats'" in notes[1] and "Serena reads it from" in notes[1]
    again = run_cli("memories", "list", "-p", str(project))  # same process: told once
    assert "has no effect here" not in again.stderr


def test_a_near_miss_of_our_own_setting_still_stops(project: Path, serena_home: Path) -> None:
    write_config(project / ".serena" / "project.yml", "memory_agent_write: propose\n")
    with pytest.raises(ConfigError, match="did you mean 'memory_agent_writes'"):
        load_settings(project, serena_home)


def test_a_moved_serena_folder_is_where_memories_and_project_yml_are(
    project: Path, serena_home: Path
) -> None:
    write_config(
        serena_home / "serena_config.yml",
        f'project_serena_folder_location: "{serena_home}/meta/$projectFolderName/.serena"\n',
    )
    moved = serena_home / "meta" / project.name / ".serena"
    write_config(moved / "project.yml", "project_name: moved\n")
    run_cli("memories", "write", "core", "-p", str(project), "--content", "# Core\n", check=True)
    assert (moved / "memories" / "core.md").read_text(encoding="utf-8") == "# Core\n"
    assert not (project / ".serena").exists()
    assert "core" in run_cli("memories", "list", "-p", str(project), check=True).stdout
    assert load_settings(project, serena_home).project_config.project_name == "moved"


def test_a_serena_folder_outside_the_allowed_roots_is_refused_in_one_sentence(
    project: Path, serena_home: Path, tmp_path: Path
) -> None:
    write_config(
        serena_home / "serena_config.yml",
        f'project_serena_folder_location: "{tmp_path}/elsewhere/$projectFolderName"\n',
    )
    done = run_cli("memories", "write", "core", "-p", str(project), "--content", "# Core\n")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "outside the project folder, $SERENA_HOME and allowed_memory_roots" in done.stderr
    assert not (tmp_path / "elsewhere").exists()
    # the person who trusts it says so
    write_config(
        serena_home / "serena_config.yml",
        f'project_serena_folder_location: "{tmp_path}/elsewhere/$projectFolderName"\n'
        f"allowed_memory_roots: ['{tmp_path}/elsewhere']\n",
    )
    run_cli("memories", "write", "core", "-p", str(project), "--content", "# Core\n", check=True)
    assert (tmp_path / "elsewhere" / project.name / "memories" / "core.md").is_file()


def test_project_local_yml_overrides_project_yml_key_by_key(
    project: Path, serena_home: Path
) -> None:
    write_config(project / ".serena" / "project.yml", "project_name: a\ninitial_prompt: hi\n")
    write_config(project / ".serena" / "project.local.yml", "project_name: b\nencoding: utf-8\n")
    config = load_settings(project, serena_home).project_config
    assert (config.project_name, config.initial_prompt) == ("b", "hi")
    write_config(project / ".serena" / "project.local.yml", "memory_agent_write: propose\n")
    with pytest.raises(ConfigError, match="project.local.yml: key 'memory_agent_write'"):
        load_settings(project, serena_home)


def test_beside_serena_agent_a_shared_entry_starts_serena_memory(tmp_path: Path) -> None:
    """serena-agent's `serena` first on the PATH: the project's shared file names the
    command only serena-memory installs, and setup says why."""
    other = tmp_path / "other-bin"
    other.mkdir()
    (other / "serena").write_text("#!/bin/sh\necho serena-agent\n", encoding="utf-8")
    (other / "serena").chmod(0o755)
    ours = Path(sys.executable).parent
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    done = run_cli(
        "setup",
        "claude-code",
        "--project",
        str(project),
        env={"HOME": str(home), "PATH": f"{other}:{ours}:/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    entry = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))
    assert entry["mcpServers"]["serena-memory"]["command"] == "serena-memory"
    assert "another program's" in done.stderr
    assert (ours / "serena-memory").is_file()  # installed by the project's own files


@needs_realworld
def test_onboarding_a_real_project_with_memories_of_its_own_says_they_exist(
    real_projects: list[Path], agent_home
) -> None:
    """A Serena project whose memories are not our onboarding set (hluisi/pause-monitor keeps
    46) was told "this project has no memories yet": an agent following it redoes the work."""
    root = next(r for r in real_projects if r.name == "hluisi__pause-monitor")
    kept = len(list((root / ".serena" / "memories").rglob("*.md")))

    async def go() -> str:
        async with in_memory(root, context="coding") as client:
            return await ok(client, "onboarding")

    brief = anyio.run(go)
    assert "no memories yet" not in brief
    assert f"keeps {kept} memories already" in brief and "`list_memories`" in brief
