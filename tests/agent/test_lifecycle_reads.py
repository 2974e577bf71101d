"""What the agent is told of a memory's front matter and history where it reads: the
summaries and marks of `list_memories` (within the listing's budget), the deprecation
sentence and the trust line of `read_memory`."""

from __future__ import annotations

import json
import os
from pathlib import Path

from conftest import write_config

from serena_memory.agent.listing import estimate_tokens
from serena_memory.core import proposals
from serena_memory.mcp.state import ServerState, create_state
from serena_memory.mcp.tools_memories import list_memories, read_memory, write_memory
from serena_memory.wiring import build_store

LOGIN = "---\nsummary: How a login is checked, and where tokens live\n---\n# Login\n"
OLD = "---\nsummary: The first login\nstatus: deprecated\nsuperseded_by: mem:auth/login\n---\n"


def _state(project: Path, home: Path) -> ServerState:
    return create_state(project, [], home=home)


def test_the_listing_shows_summaries_and_marks_deprecated_and_stale(
    project: Path, serena_home: Path
) -> None:
    state = _state(project, serena_home)
    write_memory(state, "auth/login", LOGIN)
    write_memory(state, "auth/old", OLD)
    write_memory(state, "deploy", "---\nstale_after: 2001-01-01\n---\n# Deploy\n")
    write_memory(state, "core", "# Core\n")
    answer = json.loads(list_memories(state))
    assert answer["memories"] == ["auth/login", "auth/old", "core", "deploy"]
    assert answer["summaries"] == {
        "auth/login": "How a login is checked, and where tokens live",
        "auth/old": "The first login",
    }
    assert answer["deprecated"] == ["auth/old"] and answer["stale"] == ["deploy"]


def test_summaries_are_cut_to_fit_the_budget_never_over_it(
    project: Path, serena_home: Path
) -> None:
    write_config(project / ".serena" / "project.yml", "memory_listing_budget: 500\n")
    store = build_store(project, home=serena_home)
    long = "word " * 80
    for i in range(12):
        store.write(f"note_{i:02d}", f"---\nsummary: {long}\n---\n# Note\n")
    answer = list_memories(_state(project, serena_home))
    assert estimate_tokens(answer) <= 500
    data = json.loads(answer)
    assert len(data["memories"]) == 12  # every name, as before
    summaries = data["summaries"]
    assert len(summaries) == 12 and all(len(s) <= 60 for s in summaries.values())
    assert all(s.startswith("word word") and s.endswith("…") for s in summaries.values())


def test_reading_a_deprecated_memory_names_its_successor(project: Path, serena_home: Path) -> None:
    state = _state(project, serena_home)
    write_memory(state, "auth/login", LOGIN)
    write_memory(state, "auth/old", OLD)
    answer = read_memory(state, "auth/old")
    assert answer.startswith(OLD)
    assert "This memory is deprecated: read `mem:auth/login` instead" in answer
    write_memory(state, "auth/gone", OLD.replace("auth/login", "auth/nothing"))
    assert "its successor `mem:auth/nothing` does not exist" in read_memory(state, "auth/gone")


def test_the_trust_line_says_who_wrote_it_and_whether_a_person_accepted_it(
    project: Path, serena_home: Path
) -> None:
    state = _state(project, serena_home)
    write_memory(state, "auth/login", LOGIN)
    line = read_memory(state, "auth/login").rsplit("\n", 1)[-1]
    assert line.startswith("Last written by agent ") and "no person reviewed it" in line
    # a person writes it from the command line
    build_store(project, home=serena_home).write("auth/login", LOGIN + "More.\n")
    line = read_memory(state, "auth/login").rsplit("\n", 1)[-1]
    assert f"Last written by {_os_user()} (a person, in the command line)" in line
    assert "reviewed" not in line
    # an agent proposes in review mode, and a person accepts
    write_config(project / ".serena" / "project.yml", "memory_agent_writes: propose\n")
    reviewed = _state(project, serena_home)
    assert "proposal" in write_memory(reviewed, "auth/login", LOGIN + "Reviewed.\n").lower()
    person = build_store(project, home=serena_home)
    [pending] = proposals.pending(person)[0]
    proposals.accept(person, pending.id)
    line = read_memory(reviewed, "auth/login").rsplit("\n", 1)[-1]
    assert line.startswith("Last written by agent ") and "accepted by a person" in line


def test_an_edit_outside_serena_since_is_told(project: Path, serena_home: Path) -> None:
    state = _state(project, serena_home)
    write_memory(state, "core", "# Core\n")
    (project / ".serena" / "memories" / "core.md").write_text("# Core, edited\n")
    line = read_memory(state, "core").rsplit("\n", 1)[-1]
    assert line.startswith("Last written by an edit outside serena, after agent ")


def test_code_references_are_told_confirmed_or_changed(project: Path, serena_home: Path) -> None:
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("x = 1\n")
    state = _state(project, serena_home)
    write_memory(state, "app", "# App\nStarts in `src/app.py`.\n")
    assert "its 1 mention of files and symbols still holds" in read_memory(state, "app")
    write_memory(state, "gone", "# Gone\nStarts in `src/nothing.py`.\n")
    answer = read_memory(state, "gone")
    # the drift note tells the change once; the trust line does not repeat it
    assert "`src/nothing.py` (line 2) names no file of the project now" in answer
    assert "mention of files" not in answer and "see the note above" not in answer


def _os_user() -> str:
    import getpass

    try:
        return getpass.getuser()
    except Exception:
        return f"uid {os.getuid()}"


def test_the_listing_names_what_an_agent_wrote_and_no_person_reviewed(
    project: Path, serena_home: Path
) -> None:
    """The trust line's gist where the agent chooses what to read: the memories an agent
    wrote last, unreviewed; a person's write, or the agent's accepted in review, are not."""
    import json

    from serena_memory.agent.listing import listing_answer
    from serena_memory.core.access import Context
    from serena_memory.wiring import build_store

    person = build_store(project, home=serena_home, context=Context.HUMAN)
    person.write("core", "# Core\nWritten by a person.\n")
    agent = build_store(project, home=serena_home, context=Context.AGENT)
    agent.write("notes", "# Notes\nWritten by the agent.\n")
    answer = json.loads(listing_answer(agent))
    assert answer["unreviewed"] == ["notes"]
    assert "no person reviewed" in answer["unreviewed_note"]
    person.write("notes", "# Notes\nRead and rewritten by a person.\n")
    assert "unreviewed" not in json.loads(listing_answer(agent))
