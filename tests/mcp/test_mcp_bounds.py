"""Bounded inputs, as an agent meets them through a real `serena start-mcp-server` process:
globs that would expand or backtrack without end, files that are not regular files, and
resource subscriptions by the thousand. Every wait has a deadline, so a regression fails
instead of hanging the run."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_mcp_protocol import StdioServer, _call, _line

pytestmark = pytest.mark.slow  # every test starts a real server process


@pytest.fixture
def server(project: Path, serena_home: Path) -> Iterator[StdioServer]:
    (project / ".serena" / "memories").mkdir(parents=True)
    (project / ".serena" / "memories" / "core.md").write_text("# core\n", encoding="utf-8")
    (project / "a.py").write_text("needle\n", encoding="utf-8")
    started = StdioServer(project, serena_home)
    started.notes = []  # type: ignore[attr-defined]  # notifications `request` saw
    yield started
    if started.proc.poll() is None:
        stderr = started.close()
        assert "Traceback" not in stderr, stderr


def tool(server: StdioServer, name: str, arguments: dict, wait: float = 30) -> tuple[bool, str]:
    """(is_error, text) of one tool call, or a failed test after `wait` seconds."""
    server.next_id += 1
    request_id = server.next_id
    server.send(_line(_call(request_id, name, arguments)))
    answers = [m for m in server.until({request_id}, wait=wait) if m.get("id") == request_id]
    assert answers, f"{name} was not answered within {wait} s"
    result = answers[0]["result"]
    return bool(result["isError"]), result["content"][0]["text"]


# -- globs -------------------------------------------------------------------------------------
@pytest.mark.parametrize("argument", ["paths_include_glob", "paths_exclude_glob"])
def test_brace_globs_that_expand_to_millions_are_one_sentence(
    server: StdioServer, argument: str
) -> None:
    start = time.monotonic()
    error, text = tool(
        server, "search_for_pattern", {"substring_pattern": "needle", argument: "{a,b}" * 20}
    )
    assert error and argument in text and "1000 patterns" in text, text
    assert len(text.splitlines()) == 1
    assert time.monotonic() - start < 10
    # nested braces, and many globs side by side, count the same
    for globs in ["{a,{b,{c,d}}}" * 5, " ".join(["{a,b,c,d,e,f,g,h,i,j}{a,b}"] * 60)]:
        arguments = {"substring_pattern": "x", argument: globs}
        error, text = tool(server, "search_for_pattern", arguments)
        assert error and "1000 patterns" in text, text
    # a glob of ordinary size still works
    error, text = tool(
        server, "search_for_pattern", {"substring_pattern": "needle", argument: "*.{py,md}"}
    )
    assert not error, text
    assert ("a.py" in text) == (argument == "paths_include_glob"), text


def test_an_overlong_glob_or_mask_is_one_sentence(server: StdioServer) -> None:
    error, text = tool(
        server, "search_for_pattern", {"substring_pattern": "x", "paths_include_glob": "a" * 5000}
    )
    assert error and "paths_include_glob has 5000 characters" in text, text
    error, text = tool(server, "find_file", {"file_mask": "*" * 5000, "relative_path": "."})
    assert error and "file_mask has 5000 characters" in text, text


def test_a_backtracking_glob_matches_in_linear_time(server: StdioServer, project: Path) -> None:
    """`*a*a*...b` against a long name takes minutes with a backtracking matcher."""
    (project / ("a" * 200)).write_text("needle\n", encoding="utf-8")
    start = time.monotonic()
    error, text = tool(
        server,
        "search_for_pattern",
        {"substring_pattern": "needle", "paths_include_glob": "*a" * 12 + "b"},
    )
    assert not error and text == "{}", text
    assert time.monotonic() - start < 10


def test_a_backtracking_gitignore_line_matches_in_linear_time(
    server: StdioServer, project: Path
) -> None:
    """A `.gitignore` is a project file, as untrusted as a tool argument."""
    (project / ("a" * 200)).write_text("needle\n", encoding="utf-8")
    (project / ".gitignore").write_text("*a" * 12 + "b\n", encoding="utf-8")
    start = time.monotonic()
    error, text = tool(server, "list_dir", {"relative_path": ".", "recursive": True})
    assert not error and "a" * 200 in text, text
    error, text = tool(server, "search_for_pattern", {"substring_pattern": "needle"})
    assert not error and "a.py" in text, text
    assert time.monotonic() - start < 10


# -- files that are not regular files -------------------------------------------------------------
def test_a_fifo_in_the_project_never_hangs_the_exploration_tools(
    server: StdioServer, project: Path
) -> None:
    os.mkfifo(project / "pipe.py")
    (project / "sub").mkdir()
    os.mkfifo(project / "sub" / "pipe.txt")
    error, text = tool(server, "read_file", {"relative_path": "pipe.py"}, wait=15)
    assert error and text == "'pipe.py' is a fifo, not a regular file; only regular files are read"
    for arguments in [{}, {"relative_path": "sub"}]:
        error, text = tool(
            server, "search_for_pattern", {"substring_pattern": "needle", **arguments}, wait=15
        )
        assert not error, text
        assert ("a.py" in text) == (arguments == {}) and "pipe" not in text, text
    arguments = {"substring_pattern": "needle", "relative_path": "sub/pipe.txt"}
    error, text = tool(server, "search_for_pattern", arguments, wait=15)
    assert error and "'sub/pipe.txt' is a fifo, not a regular file" in text, text
    error, text = tool(server, "list_dir", {"relative_path": ".", "recursive": True}, wait=15)
    assert not error and "pipe.py" in text, text  # listed, never opened


def test_a_fifo_named_gitignore_never_hangs_the_exploration_tools(
    server: StdioServer, project: Path
) -> None:
    os.mkfifo(project / ".gitignore")
    (project / ".git" / "info").mkdir(parents=True)
    os.mkfifo(project / ".git" / "info" / "exclude")
    error, text = tool(server, "list_dir", {"relative_path": ".", "recursive": False}, wait=15)
    assert not error and "a.py" in text, text
    error, text = tool(server, "search_for_pattern", {"substring_pattern": "needle"}, wait=15)
    assert not error and "a.py" in text, text


def test_a_file_over_the_read_limit_is_refused_before_it_is_read(
    server: StdioServer, project: Path
) -> None:
    with open(project / "big.txt", "wb") as handle:
        handle.truncate(21 * 1024 * 1024)  # sparse: nothing is written to disk
    error, text = tool(server, "read_file", {"relative_path": "big.txt"}, wait=15)
    assert error and "too large to read" in text, text


def test_a_fifo_among_the_memories_never_hangs_the_server(
    server: StdioServer, project: Path
) -> None:
    memories = project / ".serena" / "memories"
    os.mkfifo(memories / "x.md")
    (memories / "topic").mkdir()
    os.mkfifo(memories / "topic" / "y.md")
    error, text = tool(server, "list_memories", {}, wait=15)
    assert not error and "core" in text and "a fifo" in text, text
    error, text = tool(server, "read_memory", {"memory_name": "x"}, wait=15)
    assert error and "fifo" in text, text
    error, text = tool(server, "search_memories", {"query": "core"}, wait=15)
    assert not error and "core" in text, text
    error, text = tool(server, "list_memories", {"topic": "topic"}, wait=15)
    assert not error, text
    server.next_id += 1
    server.send(
        _line(
            {
                "jsonrpc": "2.0",
                "id": server.next_id,
                "method": "resources/read",
                "params": {"uri": "memory://x"},
            }
        )
    )
    (answer,) = [m for m in server.until({server.next_id}, wait=15) if "id" in m]
    assert "fifo" in answer["error"]["message"], answer
    server.next_id += 1
    listing = {"jsonrpc": "2.0", "id": server.next_id, "method": "resources/list"}
    server.send(_line(listing))
    (answer,) = [m for m in server.until({server.next_id}, wait=15) if "id" in m]
    assert [r["name"] for r in answer["result"]["resources"]] == ["core"], answer


def test_a_fifo_among_the_memories_never_hangs_the_command_line(project: Path) -> None:
    from conftest import run_cli

    memories = project / ".serena" / "memories"
    memories.mkdir(parents=True)
    (memories / "core.md").write_text("# core\n", encoding="utf-8")
    os.mkfifo(memories / "x.md")
    for command in (["list"], ["read", "x"], ["check"], ["search", "core"]):
        result = run_cli("memories", *command, cwd=project)  # run_cli times out after 60 s
        assert "Traceback" not in result.stderr, result.stderr
        assert "fifo" in result.stdout + result.stderr or "core" in result.stdout, result


# -- resource subscriptions -------------------------------------------------------------------
UPDATED = "notifications/resources/updated"


def request(server: StdioServer, method: str, params: dict, wait: float = 15) -> dict:
    """The answer to one request (notifications received meanwhile are kept in `notes`)."""
    server.next_id += 1
    request_id = server.next_id
    server.send(_line({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}))
    received = server.until({request_id}, wait=wait)
    server.notes.extend(m for m in received if "id" not in m)  # type: ignore[attr-defined]
    answers = [m for m in received if m.get("id") == request_id]
    assert answers, f"{method} was not answered within {wait} s"
    return answers[0]


def updates_after_change(server: StdioServer, memory: Path, text: str) -> int:
    """Change a memory as an editor would; how many updates arrive for it within 4 s."""
    server.notes = []  # type: ignore[attr-defined]
    memory.write_text(text, encoding="utf-8")
    deadline = time.monotonic() + 4
    while time.monotonic() < deadline:
        request(server, "ping", {})
        time.sleep(0.2)
    uri = "memory://" + memory.stem
    notes = server.notes  # type: ignore[attr-defined]
    return sum(1 for m in notes if m.get("method") == UPDATED and m["params"]["uri"] == uri)


def test_subscribing_twice_notifies_once_and_unsubscribing_stops_it(
    server: StdioServer, project: Path
) -> None:
    server.notes = []  # type: ignore[attr-defined]
    core = project / ".serena" / "memories" / "core.md"
    for _ in range(2):
        answer = request(server, "resources/subscribe", {"uri": "memory://core"})
        assert answer["result"] == {}, answer
    assert updates_after_change(server, core, "# core\n\nOne.\n") == 1
    answer = request(server, "resources/unsubscribe", {"uri": "memory://core"})
    assert answer["result"] == {}, answer
    assert updates_after_change(server, core, "# core\n\nTwo.\n") == 0
    # subscribing again after that works as the first time
    request(server, "resources/subscribe", {"uri": "memory://core"})
    assert updates_after_change(server, core, "# core\n\nThree.\n") == 1


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_subscriptions_per_client_are_capped_and_cheap_to_watch(
    server: StdioServer, project: Path
) -> None:
    from serena_memory.mcp.resources import MAX_SUBSCRIPTIONS_PER_CLIENT

    memories = project / ".serena" / "memories"
    for i in range(200):
        (memories / f"m{i}.md").write_text(f"# m{i}\n", encoding="utf-8")
    pid = server.proc.pid
    # the search's vectors, made when the server starts, are no part of what is measured
    for _ in range(300):
        _, answer_text = tool(server, "search_memories", {"query": "switches for unfinished work"})
        if "still being prepared" not in answer_text:
            break
        time.sleep(0.1)
    rss_before = _rss_mb(pid)
    server.notes = []  # type: ignore[attr-defined]
    for i in range(MAX_SUBSCRIPTIONS_PER_CLIENT):  # most are memories that don't exist yet
        answer = request(server, "resources/subscribe", {"uri": f"memory://m{i}"})
        assert answer["result"] == {}, answer
    answer = request(server, "resources/subscribe", {"uri": "memory://one-too-many"})
    message = answer["error"]["message"]
    assert answer["error"]["code"] == -32602 and "at most 1000 memories" in message, answer
    assert request(server, "resources/subscribe", {"uri": "memory://m5"})["result"] == {}
    time.sleep(2)  # the first rounds read every watched memory once
    cpu_before = _cpu_seconds(pid)
    time.sleep(10)
    idle_cpu = _cpu_seconds(pid) - cpu_before
    grown = _rss_mb(pid) - rss_before
    assert idle_cpu < 1.5, f"{idle_cpu:.2f} s of CPU in 10 idle seconds"
    assert grown < 40, f"grew by {grown:.0f} MB"
    # still watched: a change is notified, once
    assert updates_after_change(server, memories / "m7.md", "# m7\n\nChanged.\n") == 1


# -- the agent's side of errors -------------------------------------------------------------------
def test_an_unknown_tool_is_invalid_params(server: StdioServer) -> None:
    answer = request(server, "tools/call", {"name": "read_memroy", "arguments": {}})
    assert answer["error"]["code"] == -32602, answer
    message = answer["error"]["message"]
    assert "there is no tool 'read_memroy' here" in message and "read_memory" in message


def test_an_unknown_argument_is_refused_naming_the_known_ones(server: StdioServer) -> None:
    error, text = tool(server, "search_memories", {"query": "core", "max_result": 3})
    assert error, text
    assert text == (
        "search_memories has no argument 'max_result'; did you mean 'max_results'? "
        "its arguments are: query, topic, scope, max_results."
    )
    error, text = tool(server, "read_memory", {"memory_name": "core", "x": 1})
    assert error and "its arguments are: memory_name." in text, text


def test_history_errors_name_tools_not_commands(server: StdioServer, project: Path) -> None:
    error, text = tool(server, "memory_history", {"memory_name": "never-was"})
    assert error and "memory 'never-was' does not exist" in text, text
    assert "the list_memories tool" in text and "serena" not in text, text
    tool(server, "write_memory", {"memory_name": "fresh", "content": "one"})
    error, text = tool(server, "restore_memory", {"memory_name": "fresh", "revision": "zzz"})
    assert error and "the memory_history tool" in text and "serena" not in text, text
    error, text = tool(server, "restore_memory", {"memory_name": "fresh"})
    assert error and "the memory_history tool (memory_name 'fresh')" in text, text
    error, text = tool(server, "memory_history", {"memory_name": "fresh"})
    assert not error and "fresh" in text, text


def test_listing_a_topic_that_does_not_exist_says_so(server: StdioServer, project: Path) -> None:
    tool(server, "write_memory", {"memory_name": "auth/login", "content": "x"})
    error, text = tool(server, "list_memories", {"topic": "nope"})
    assert error and "there is no topic 'nope'" in text and "the topics are: auth" in text, text
    error, text = tool(server, "list_memories", {"topic": "auth"})
    assert not error and "auth/login" in text, text
