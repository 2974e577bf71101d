"""Onboarding core: the activation message, the onboarding brief and its status."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_config

from serena_memory.agent import onboarding as O
from serena_memory.agent.maintenance import template_text
from serena_memory.core.store import MemoryStore


def mem(root: Path, name: str, text: str = "x\n") -> None:
    path = root / ".serena" / "memories" / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_host_os_is_named_as_people_name_it(monkeypatch: pytest.MonkeyPatch) -> None:
    for system, shown in [("Darwin", "macOS"), ("Windows", "Windows"), ("Linux", "Linux")]:
        monkeypatch.setattr(O.platform, "system", lambda s=system: s)
        assert O.host_os() == shown


def test_activation_message_for_an_empty_project(agent_store: MemoryStore) -> None:
    text = O.activation_message(agent_store)
    assert f"at {agent_store.layout.project_root}" in text
    assert "There are no memories yet" in text
    assert "Onboarding has not been performed" in text and "`onboarding`" in text
    assert "Onboarding has not been performed" not in O.activation_message(
        agent_store, onboarding_tool=False
    )
    bare = O.activation_message(agent_store, memory_tools=False)
    assert "memor" not in bare.lower().replace("memory_", "")


def test_activation_message_lists_names_only(
    agent_store: MemoryStore, project: Path, serena_home: Path
) -> None:
    write_config(serena_home / "serena_config.yml", 'read_only_memory_patterns: ["global/.*"]\n')
    write_config(
        project / ".serena" / "project.yml",
        'project_name: Demo\nignored_memory_patterns: ["_old/.*"]\n'
        "initial_prompt: |\n  Run the tests with make check.\n",
    )
    mem(project, "core", "SECRET CONTENT\n")
    mem(project, "api/routes")
    mem(project, "_old/thing")
    (serena_home / "memories" / "global").mkdir(parents=True)
    (serena_home / "memories" / "global" / "style.md").write_text("s\n")
    text = O.activation_message(agent_store, mode_prompts=["Mode says hi."])
    assert text.startswith("Active project: 'Demo'")
    lines = text.splitlines()
    assert "- core" in lines and "- api/routes" in lines
    assert "- global/style (read-only)" in lines
    assert "_old" not in text and "SECRET" not in text
    assert "Start from `mem:core`" in text
    assert text.index("Mode says hi.") < text.index("Run the tests with make check.")
    assert text.rstrip().endswith("Run the tests with make check.")


def test_core_is_only_recommended_when_it_exists(agent_store: MemoryStore, project: Path) -> None:
    mem(project, "notes")
    text = O.activation_message(agent_store)
    assert "- notes" in text and "mem:core" not in text
    assert "Onboarding has not been performed" not in text


def test_the_agent_is_told_to_read_only_what_the_task_needs(
    agent_store: MemoryStore, project: Path
) -> None:
    """Each memory read costs what it spares: following every reference of `mem:core` cost
    a later task more than the files it replaced (docs/agent-evaluation.md, fifth pair)."""
    mem(project, "notes")
    assert "whose names fit the task, no others" in O.activation_message(agent_store)
    mem(project, "core", "See `mem:notes` before changing the notes.\n")
    text = O.activation_message(agent_store)
    assert "Start from `mem:core`; read another" in text
    assert "only when the task needs what it holds" in text
    assert "their `mem:NAME` references" not in text


def test_status_reports_what_is_left(agent_store: MemoryStore, project: Path) -> None:
    status = O.onboarding_status(agent_store)
    assert status.missing == list(O.TARGET_MEMORIES) and not status.done
    assert "not been performed" in status.describe()
    # even before anything is written, the agent is told every memory it has to write
    assert all(f"`mem:{name}`" in status.describe() for name in O.TARGET_MEMORIES)
    mem(project, "core")
    mem(project, "tech_stack")
    mem(project, "frontend/core")
    status = O.onboarding_status(agent_store)
    assert status.present == ["core", "tech_stack"]
    assert status.missing == ["suggested_commands", "conventions", "task_completion"]
    text = status.describe()
    assert "incomplete" in text and "`mem:conventions`" in text and "`mem:core`" in text
    for name in ["suggested_commands", "conventions", "task_completion"]:
        mem(project, name)
    status = O.onboarding_status(agent_store)
    assert status.done and status.module_cores == ["frontend/core"]
    assert status.to_dict()["performed"] is True
    assert "`mem:frontend/core`" in status.describe()


def test_ignored_target_memories_do_not_count(agent_store: MemoryStore, project: Path) -> None:
    write_config(project / ".serena" / "project.yml", 'ignored_memory_patterns: ["core"]\n')
    mem(project, "core")
    assert "core" in O.onboarding_status(agent_store).missing


def test_run_onboarding_seeds_maintenance_and_names_the_targets(
    agent_store: MemoryStore, project: Path
) -> None:
    (project / "go.mod").write_text("module example.com/demo\n\ngo 1.22\n")
    text = O.run_onboarding(agent_store)
    seeded = project / ".serena" / "memories" / "memory_maintenance.md"
    assert seeded.read_text(encoding="utf-8") == template_text()
    for target in O.TARGET_MEMORIES:
        assert f"`mem:{target}`" in text
    assert "`mem:<module>/core`" in text
    assert "serena memories check" in text
    assert "`go test ./...`" in text and "example.com/demo" in text
    assert "Created 'memory_maintenance'" in text
    # a second run keeps a customized copy and reports the progress
    seeded.write_text("ours\n")
    mem(project, "core")
    again = O.run_onboarding(agent_store)
    assert seeded.read_text() == "ours\n"
    assert "Onboarding was started before" in again and "`mem:tech_stack`" in again
    assert "Kept the existing project memory" in again


def test_brief_without_exploration_tools(agent_store: MemoryStore) -> None:
    text = O.run_onboarding(agent_store, exploration_tools=False)
    assert "list_dir" not in text and "your own file tools" in text


def test_status_points_to_the_conventions_in_force(
    agent_store: MemoryStore, project: Path, serena_home: Path
) -> None:
    mem(project, "core")
    assert "after calling `onboarding`" in O.onboarding_status(agent_store).describe()
    mem(project, "memory_maintenance")
    assert "following `mem:memory_maintenance`" in O.onboarding_status(agent_store).describe()
    (serena_home / "memories" / "global").mkdir(parents=True)
    (serena_home / "memories" / "global" / "memory_maintenance.md").write_text("g\n")
    text = O.onboarding_status(agent_store).describe()
    assert "following `mem:global/memory_maintenance`" in text


def test_the_brief_speaks_of_the_host_only_where_commands_differ() -> None:
    from serena_memory.agent.maintenance import SeedResult

    seed = SeedResult("memory_maintenance", created=False)
    for host in ("Linux", "macOS"):
        text = O.onboarding_instructions(seed, "", os_name=host)
        assert host not in text and "Unix shell" not in text
    windows = O.onboarding_instructions(seed, "", os_name="Windows")
    assert "The host is Windows" in windows and "give the Windows form too" in windows


def test_the_brief_asks_to_tell_the_user_what_was_written_and_what_to_commit() -> None:
    from serena_memory.agent.maintenance import SeedResult

    text = O.onboarding_instructions(SeedResult("memory_maintenance", created=False), "")
    assert "which memories you wrote" in text
    assert "`.serena/memories` is meant to be committed" in text
    assert "nothing else of `.serena/` needs to be" in text
    assert f"under {O.ONBOARDING_MEMORY_BUDGET:,} characters" in text
    # mem:core links the conventions, so they are reached from the entry point, but only
    # for changes of structure: correcting a fact must not cost reading them
    assert "before adding, splitting or deleting memories, read `mem:memory_maintenance`" in text


def test_without_a_status_tool_the_brief_says_to_call_onboarding_again() -> None:
    from serena_memory.agent.maintenance import SeedResult

    seed = SeedResult("memory_maintenance", created=False)
    assert "check_onboarding_performed" in O.onboarding_instructions(seed, "")
    text = O.onboarding_instructions(seed, "", status_tool=False)
    assert "check_onboarding_performed" not in text
    assert "Calling `onboarding` again says which are still missing" in text


def test_a_question_comes_before_onboarding_and_onboarding_before_changes(
    agent_store: MemoryStore,
) -> None:
    text = O.activation_message(agent_store)
    assert "Onboarding has not been performed" in text
    assert "Do it before changing anything" in text
    assert "answer a question the user asked first" in text
    assert "offer it at the end" in text
    assert "Before working on the task" not in text


def test_the_conventions_leave_themselves_out_of_reachability_as_check_does(
    agent_store: MemoryStore, project: Path
) -> None:
    """The template's rule and `check` agree: memory_maintenance need not be reachable."""
    from serena_memory.integrity.references.check import run_check

    text = template_text()
    assert "reachable from `mem:core`" in text and "this one excepted" in text
    assert "never over 4,000 characters" in text
    assert "`.serena/memories` is committed with the project" in text
    O.run_onboarding(agent_store)
    mem(project, "core", "# core\n")
    report = run_check(agent_store, reachability=True)
    assert report.unreachable == []  # core links nothing yet, and the conventions need not be


@pytest.mark.parametrize(
    ("source_kb", "budget"), [(0, 1000), (60, 1000), (150, 1500), (180, 1800), (400, 2000)]
)
def test_a_small_projects_memories_are_asked_to_be_short(
    agent_store: MemoryStore, project: Path, source_kb: int, budget: int
) -> None:
    """A later session reads the memories instead of the code: in a small project the code
    is quick to read, so the brief asks for memories that cost less than it."""
    if source_kb:
        (project / "src").mkdir(exist_ok=True)
        (project / "src" / "main.py").write_text("x = 1\n" * (source_kb * 1024 // 6 + 1))
    text = O.run_onboarding(agent_store)
    assert f"each under {budget:,} characters" in text


def _onboarded(project: Path) -> None:
    for target in O.TARGET_MEMORIES:
        mem(project, target)


def test_finished_onboarding_tells_what_to_say_without_reading_advice(
    agent_store: MemoryStore, project: Path
) -> None:
    _onboarded(project)
    text = O.run_onboarding(agent_store)
    assert "Onboarding has been performed" in text and "tell the user" in text
    assert "Read `mem:core` to start" not in text  # the agent has just written it
    assert "Read `mem:core` to start" in O.onboarding_status(agent_store).describe()


def test_finished_onboarding_warns_when_git_ignores_the_memories(
    agent_store: MemoryStore, project: Path
) -> None:
    """An allow-list .gitignore (node-semver's) leaves `.serena/` out of every commit."""
    import subprocess

    subprocess.run(["git", "init", "-q", str(project)], check=True)
    _onboarded(project)
    assert "ignores" not in O.run_onboarding(agent_store)
    (project / ".gitignore").write_text("/*\n!/src/\n!/.gitignore\n")
    text = O.run_onboarding(agent_store)
    assert "`.gitignore` ignores `.serena/memories` (its line `/*`)" in text
    (project / ".gitignore").write_text("/*\n!/src/\n!/.serena/\n")
    assert "ignores" not in O.run_onboarding(agent_store)
