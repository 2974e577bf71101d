"""Random JSON-RPC lines over a real stdio server: every request gets exactly one answer
(a result or an error), notifications get none, and the server stays alive."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_mcp_protocol import StdioServer

from serena_memory.agent.tools import all_names

pytestmark = pytest.mark.slow  # random lines to a real server process

METHODS = [
    "ping",
    "tools/list",
    "tools/call",
    "initialize",
    "prompts/get",
    "resources/list",
    "notifications/initialized",
    "notifications/cancelled",
    "no/such",
    "",
]
TOOLS = ["read_memory", "write_memory", "list_memories", "edit_memory", "read_file", "nope"]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
arguments = st.fixed_dictionaries(
    {},
    optional={
        "memory_name": st.one_of(st.sampled_from(["core", "fuzz/a", "../x", ""]), values),
        "content": st.one_of(st.text(max_size=20), values),
        "topic": values,
        "needle": st.text(max_size=4),
        "repl": st.text(max_size=4),
        "mode": st.sampled_from(["literal", "regex", "other"]),
        "relative_path": st.sampled_from([".", "..", "/etc/passwd", "a"]),
    },
)
params = st.one_of(
    st.fixed_dictionaries({"name": st.sampled_from(TOOLS), "arguments": arguments}),
    st.dictionaries(st.text(max_size=6), values, max_size=3),
    values,
)
messages = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0", "2.0", "2.0", "1.0", 2]),
        "id": st.one_of(st.integers(0, 10**6), st.text(max_size=5), values),
        "method": st.one_of(st.sampled_from(METHODS), values),
        "params": params,
        "result": values,
        "error": values,
    },
)


def _as_line(value: object) -> bytes:
    return json.dumps(value).encode()


lines = st.one_of(
    messages.map(_as_line),
    values.map(_as_line),
    st.binary(max_size=30).filter(lambda raw: b"\n" not in raw and b"\r" not in raw),
    messages.map(_as_line).map(lambda raw: raw[: len(raw) // 2]),
)


def expected_answers(raw: bytes) -> int | None:
    """How many answers a line owes: 1 for a request (a well-formed id and a method, the
    SDK answers it), 0 for a well-formed notification or response; None: malformed,
    answered with an error (or, for a malformed notification, nothing)."""
    try:
        message = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    if "result" in message or "error" in message:
        return None  # a response to no request of the server's, or a request and a response
    has_plain_id = isinstance(message.get("id"), str | int) and not isinstance(
        message.get("id"), bool
    )
    if isinstance(message.get("method"), str) and isinstance(message.get("params", {}), dict):
        if "id" not in message:
            return 0
        return 1 if has_plain_id else None
    return None


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StdioServer]:
    root = tmp_path_factory.mktemp("fuzz")
    project, home = root / "project", root / "home"
    (project / ".serena" / "memories").mkdir(parents=True)
    (project / ".serena" / "memories" / "core.md").write_text("Entry.\n", encoding="utf-8")
    home.mkdir()
    server = StdioServer(project, home)
    yield server
    assert server.proc.poll() is None, "the server died"
    assert "Traceback" not in server.close()
    assert not (root / "x.md").exists()  # `../x` never escaped the memories folder


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(line=lines)
def test_random_lines_over_stdio_are_all_answered(fuzz_server: StdioServer, line: bytes) -> None:
    if not line.strip():
        return
    owed = expected_answers(line)
    answers = fuzz_server.exchange(line)
    for answer in answers:
        assert answer.get("jsonrpc") == "2.0", answer
        assert ("result" in answer) != ("error" in answer), answer
        if "error" in answer:
            assert isinstance(answer["error"].get("code"), int), answer
            assert isinstance(answer["error"].get("message"), str), answer
    if owed == 1:
        request_id = json.loads(line)["id"]
        assert [a["id"] for a in answers] == [request_id], (line, answers)
    elif owed == 0:
        assert answers == [], (line, answers)
    else:  # malformed: one error answer, or nothing for a malformed notification
        assert len(answers) <= 1, (line, answers)
        assert all("error" in a for a in answers), (line, answers)
    assert fuzz_server.proc.poll() is None


def test_the_fuzzed_server_still_works(fuzz_server: StdioServer) -> None:
    line = _as_line(
        {
            "jsonrpc": "2.0",
            "id": "last",
            "method": "tools/call",
            "params": {"name": "read_memory", "arguments": {"memory_name": "core"}},
        }
    )
    (answer,) = fuzz_server.exchange(line)
    assert answer["result"]["content"][0]["text"].startswith("Entry.\n")


OFFERED = {
    "read_memory": {"memory_name"},
    "list_memories": {"topic", "page"},
    "search_memories": {"query", "topic", "scope", "max_results"},
    "memory_history": {"memory_name", "since"},
    "read_file": {"relative_path", "start_line", "end_line", "max_answer_chars"},
}


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    name=st.one_of(st.sampled_from(sorted(OFFERED)), st.text(max_size=12)),
    given_arguments=st.dictionaries(
        st.one_of(st.sampled_from(sorted(set().union(*OFFERED.values()))), st.text(max_size=8)),
        values,
        max_size=4,
    ),
)
def test_random_tool_calls_are_answered_as_the_specification_says(
    fuzz_server: StdioServer, name: str, given_arguments: dict
) -> None:
    """An unknown tool is a JSON-RPC error -32602; an unknown argument of a known tool is a
    tool error naming the tool's arguments; nothing is ever a traceback."""
    fuzz_server.next_id += 1
    request_id = f"call-{fuzz_server.next_id}"
    line = _as_line(
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "tools/call",
            "params": {"name": name, "arguments": given_arguments},
        }
    )
    (answer,) = fuzz_server.exchange(line)
    assert answer["id"] == request_id
    assert "Traceback" not in json.dumps(answer)
    if name not in all_names():  # hypothesis may draw a real tool's name as text
        assert answer["error"]["code"] == -32602, answer
        assert f"there is no tool '{name}' here" in answer["error"]["message"], answer
        return
    if name in OFFERED and set(given_arguments) - OFFERED[name]:
        assert answer["result"]["isError"] is True, answer
        text = answer["result"]["content"][0]["text"]
        assert f"{name} has no argument" in text and "its arguments are:" in text, text
