"""An MCP client a language model drives one call at a time, for the agent evaluation.

It shows what a coding client shows its model (the server's instructions, the tool
definitions, each answer) and nothing else, and logs every step with its size to a JSONL
transcript that `score.py` reads. One real MCP session (stdio, the SDK's client) lives
across the calls: ``start`` runs a small background process per transcript that holds the
session and answers the later commands over a Unix socket next to the transcript.

    client.py --transcript T.jsonl start --project DIR [--context coding] [--server-src SRC]
    client.py --transcript T.jsonl start --project DIR --no-server  # the client's file tools only
    client.py --transcript T.jsonl user "the user's message"      # a user turn, logged
    client.py --transcript T.jsonl tools                          # the tool list again
    client.py --transcript T.jsonl call NAME '{"arg": "value"}'   # one tool call
    client.py --transcript T.jsonl fs ls|read|grep ...            # the client's own file tools
    client.py --transcript T.jsonl say "what the agent tells the user"
    client.py --transcript T.jsonl label KEY VALUE                # a manual label (score.py)
    client.py --transcript T.jsonl stop

The server is started as `serena setup` entries start it: in the project folder, without
``--project``. ``--server-src`` runs another checkout's ``src`` (an earlier version) with
this interpreter; without ``--context`` the server's default applies. ``fs`` stands for the
file tools a coding client has of its own (list a folder, read a file or a range of lines,
search with a regex), confined to the project, so that what the agent reads beside the
memories is counted too.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
READ_LIMIT = 20_000  # characters of one file read, as a client cuts long files


# -- the transcript ------------------------------------------------------------------------
def log(transcript: Path, kind: str, **fields: Any) -> None:
    entry = {"t": round(time.time(), 3), "kind": kind, **fields}
    with transcript.open("a", encoding="utf-8") as out:
        out.write(json.dumps(entry, ensure_ascii=False) + "\n")


def _socket_path(transcript: Path) -> Path:
    return transcript.with_suffix(transcript.suffix + ".sock")


# -- the background session -------------------------------------------------------------------
def _tool_text(tool: Any) -> str:
    """A tool as a client hands it to its model: name, description, input schema."""
    schema = json.dumps(tool.input_schema, ensure_ascii=False, separators=(",", ":"))
    return f"## {tool.name}\n{tool.description or ''}\nparameters: {schema}"


def _answer_text(result: Any) -> tuple[str, bool]:
    texts = [block.text for block in result.content if getattr(block, "type", "") == "text"]
    return "\n\n".join(texts), bool(result.is_error)


async def _serve(args: argparse.Namespace) -> None:
    """Hold one MCP session and answer requests, one JSON line each, until ``stop``."""
    import anyio
    from mcp import Client, StdioServerParameters

    env = dict(os.environ)
    env["SERENA_HOME"] = str(Path(args.home).resolve())
    if args.server_src:
        env["PYTHONPATH"] = str(Path(args.server_src).resolve())
    command = [sys.executable, "-m", "serena_memory.cli", "start-mcp-server", "--no-dashboard"]
    if args.context:
        command += ["--context", args.context]
    params = StdioServerParameters(
        command=command[0], args=command[1:], env=env, cwd=str(Path(args.project).resolve())
    )
    path = _socket_path(args.transcript)
    async with Client(params, mode="legacy") as client:
        tools = (await client.list_tools()).tools
        listener = await anyio.create_unix_listener(path)
        ready = {"instructions": client.instructions or "", "tools": [_tool_text(t) for t in tools]}
        Path(str(path) + ".ready").write_text(json.dumps(ready), encoding="utf-8")
        async with listener:
            while True:
                stream = await listener.accept()
                async with stream:
                    request = json.loads((await stream.receive(1 << 20)).decode("utf-8"))
                    if request["op"] == "stop":
                        await stream.send(b'{"ok": true}')
                        break
                    if request["op"] == "tools":
                        reply: dict[str, Any] = {"tools": [_tool_text(t) for t in tools]}
                    else:
                        result = await client.call_tool(request["name"], request["arguments"])
                        text, error = _answer_text(result)
                        reply = {"text": text, "error": error}
                    await stream.send(json.dumps(reply).encode("utf-8"))
    path.unlink(missing_ok=True)


def _ask(transcript: Path, request: dict[str, Any]) -> dict[str, Any]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(str(_socket_path(transcript)))
        conn.sendall(json.dumps(request).encode("utf-8"))
        conn.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := conn.recv(1 << 16):
            chunks.append(chunk)
    return json.loads(b"".join(chunks).decode("utf-8"))


# -- commands --------------------------------------------------------------------------------
def start(args: argparse.Namespace) -> None:
    transcript: Path = args.transcript
    if args.no_server:
        # The baseline: the same client with no memory server, so nothing is shown before
        # the first turn and every read goes through the file tools.
        log(
            transcript,
            "start",
            project=str(Path(args.project).resolve()),
            context=None,
            server_src=None,
            instructions_chars=0,
            tools_chars=0,
            tools=[],
        )
        print("# No server: only the client's own file tools (fs ls|read|grep).")
        return
    ready = Path(str(_socket_path(transcript)) + ".ready")
    ready.unlink(missing_ok=True)
    # one home per project by default: a later conversation finds the first one's history,
    # as a person's ~/.serena does
    home = Path(args.home or transcript.parent / (Path(args.project).resolve().name + ".home"))
    home.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, __file__, "--transcript", str(transcript), "_serve"]
    command += ["--project", args.project, "--home", str(home)]
    command += ["--context", args.context] if args.context else []
    command += ["--server-src", args.server_src] if args.server_src else []
    errors = transcript.with_suffix(".server.log").open("w")
    subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors, start_new_session=True)
    for _ in range(600):
        if ready.exists():
            break
        time.sleep(0.1)
    else:
        raise SystemExit(f"the server did not start; see {errors.name}")
    shown = json.loads(ready.read_text(encoding="utf-8"))
    tools_text = "\n\n".join(shown["tools"])
    log(
        transcript,
        "start",
        project=str(Path(args.project).resolve()),
        context=args.context,
        server_src=args.server_src,
        instructions_chars=len(shown["instructions"]),
        tools_chars=len(tools_text),
        tools=[t.split("\n", 1)[0][3:] for t in shown["tools"]],
    )
    print("# Server instructions\n" + shown["instructions"] + "\n\n# Tools\n" + tools_text)


def call(args: argparse.Namespace) -> None:
    try:
        arguments = json.loads(args.arguments) if args.arguments else {}
    except ValueError as exc:
        sys.exit(f"The arguments are not JSON ({exc}); give an object, e.g. '{{\"a\": 1}}'.")
    if not isinstance(arguments, dict):
        # a client sends an object or nothing: anything else would end the session
        sys.exit('The arguments must be a JSON object, e.g. \'{"memory_name": "core"}\'.')
    reply = _ask(args.transcript, {"op": "call", "name": args.name, "arguments": arguments})
    log(
        args.transcript,
        "call",
        name=args.name,
        arguments=arguments,
        argument_chars=len(json.dumps(arguments, ensure_ascii=False)),
        answer_chars=len(reply["text"]),
        error=reply["error"],
        answer=reply["text"],
    )
    print(("ERROR: " if reply["error"] else "") + reply["text"])


def _inside(project: Path, rel: str) -> Path:
    path = (project / rel).resolve()
    if not path.is_relative_to(project):
        raise SystemExit(f"{rel} is outside the project")
    return path


def file_tool(args: argparse.Namespace) -> None:
    """The client's own file tools: ls DIR, read FILE [FROM TO], grep REGEX [PATH ...]."""
    project = Path(_started(args.transcript)["project"])
    op, rest = args.op, args.rest
    if op == "ls":
        folder = _inside(project, rest[0] if rest else ".")
        names = sorted(p.name + ("/" if p.is_dir() else "") for p in folder.iterdir())
        text = "\n".join(n for n in names if n != ".git/")
    elif op == "read":
        lines = _inside(project, rest[0]).read_text(encoding="utf-8").splitlines()
        first, last = (int(rest[1]), int(rest[2])) if len(rest) > 2 else (1, len(lines))
        text = "\n".join(f"{n}\t{line}" for n, line in enumerate(lines, 1) if first <= n <= last)
        text = text[:READ_LIMIT]
    elif op == "grep":
        where = [str(_inside(project, path)) for path in rest[1:] or ["."]]
        # as coding clients search (ripgrep): the files git tracks or would, never what
        # .gitignore leaves out (a tox or node_modules folder the agent's own run made)
        done = subprocess.run(
            [
                "git",
                "-C",
                str(project),
                "grep",
                "-n",
                "-E",
                "-I",
                "--untracked",
                "--exclude-standard",
                rest[0],
                "--",
                *where,
                ":!.serena",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        text = done.stdout[:READ_LIMIT]
    else:
        raise SystemExit(f"unknown file tool {op}: ls, read or grep")
    log(args.transcript, "fs", op=op, args=rest, answer_chars=len(text))
    print(text)


def _started(transcript: Path) -> dict[str, Any]:
    for line in transcript.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if entry["kind"] == "start":
            return entry
    raise SystemExit("start the session first")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transcript", type=Path, required=True)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("start", "_serve"):
        p = sub.add_parser(name)
        p.add_argument("--project", required=True)
        p.add_argument("--context")
        p.add_argument("--server-src")
        p.add_argument("--home")
        p.add_argument("--no-server", action="store_true")
    sub.add_parser("tools")
    sub.add_parser("stop")
    p = sub.add_parser("call")
    p.add_argument("name")
    p.add_argument("arguments", nargs="?", default="")
    p = sub.add_parser("fs")
    p.add_argument("op")
    p.add_argument("rest", nargs="*")
    for name in ("user", "say"):
        sub.add_parser(name).add_argument("text")
    p = sub.add_parser("label")
    p.add_argument("key")
    p.add_argument("value")
    args = parser.parse_args(argv)
    if args.command == "_serve":
        import anyio

        anyio.run(_serve, args)
    elif args.command == "start":
        start(args)
    elif args.command == "call":
        call(args)
    elif args.command == "tools":
        print("\n\n".join(_ask(args.transcript, {"op": "tools"})["tools"]))
    elif args.command == "fs":
        file_tool(args)
    elif args.command in ("user", "say"):
        log(args.transcript, args.command, text=args.text, chars=len(args.text))
    elif args.command == "label":
        value = args.value
        log(args.transcript, "label", key=args.key, value=int(value) if value.isdigit() else value)
    elif args.command == "stop":
        if _socket_path(args.transcript).exists():  # a baseline (--no-server) holds no session
            _ask(args.transcript, {"op": "stop"})
        log(args.transcript, "stop")


if __name__ == "__main__":
    main()
