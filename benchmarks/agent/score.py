"""Score agent transcripts written by `client.py`: one column per transcript.

    python benchmarks/agent/score.py before.jsonl after.jsonl [--keep DIR]
    python benchmarks/agent/score.py --net WITH.jsonl WITHOUT.jsonl   # a later task, both ways

Rows:

- characters before the first user turn: the server's instructions and the tool
  definitions the client handed its model (plus any call made before the user spoke);
- onboarding: the calls (tool calls and the client's own file reads) from the first
  `onboarding` call to the last write of an onboarding memory, and the characters they
  moved (arguments and answers);
- memories read before the task: `read_memory` calls after the last user turn and before
  the agent's first look at the code (a file tool) or first change;
- drift shown: reads whose answer carried the note on missing or moved code; drift told:
  the label ``drift_told`` (0/1), else whether what the agent said names a moved or
  missing path;
- facts that turned out wrong: the label ``wrong_facts`` (set by whoever checks the
  memories against the code);
- tools used and never used, of those the client listed;
- read in the task: after the last user turn, the characters of memories read and of the
  repository read through the client's file tools.

``--net WITH WITHOUT`` compares the same later task done with the memory server and without
it (``client.py start --no-server``): the net saving is the baseline's reads minus the run's
memory reads, repository reads and surface (instructions + definitions), over the baseline's
reads.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

TARGETS = {"core", "tech_stack", "suggested_commands", "conventions", "task_completion"}
DRIFT_MARKS = (
    "this memory mentions code that has changed",  # a note with unsettled changes
    "code this memory mentions has changed",  # a note of exact replacements only
)
CHANGES = {"write_memory", "edit_memory", "delete_memory", "rename_memory", "restore_memory"}


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _moved(entry: dict[str, Any]) -> int:
    if entry["kind"] == "call":
        return int(entry["argument_chars"]) + int(entry["answer_chars"])
    if entry["kind"] == "fs":
        return int(entry["answer_chars"])
    return 0


def _is_target_write(entry: dict[str, Any]) -> bool:
    if entry["kind"] != "call" or entry["name"] != "write_memory" or entry["error"]:
        return False
    name = str(entry["arguments"].get("memory_name", "")).removeprefix("mem:")
    return name in TARGETS or name.endswith("/core")


def score(entries: list[dict[str, Any]]) -> dict[str, Any]:
    start = next(e for e in entries if e["kind"] == "start")
    steps = [e for e in entries if e["kind"] in ("call", "fs", "user", "say")]
    first_user = next((i for i, e in enumerate(steps) if e["kind"] == "user"), len(steps))
    before = start["instructions_chars"] + start["tools_chars"]
    before += sum(_moved(e) for e in steps[:first_user])
    labels = {e["key"]: e["value"] for e in entries if e["kind"] == "label"}
    out: dict[str, Any] = {
        "characters before the first user turn": before,
        "tools listed": len(start["tools"]),
    }
    out.update(_onboarding(steps))
    out["question answered before onboarding"] = _answered_first(steps)
    out.update(_task(steps))
    reads = [e for e in steps if e["kind"] == "call" and e["name"] == "read_memory"]
    shown = sum(any(m in e["answer"] for m in DRIFT_MARKS) for e in reads)
    said = " ".join(e["text"] for e in steps if e["kind"] == "say").lower()
    told = labels.get("drift_told")
    if told is None:
        told = int(shown > 0 and any(w in said for w in ("moved", "renamed", "no longer")))
    out["drift shown in reads"] = shown
    out["drift told to the user"] = told
    out["facts that turned out wrong"] = labels.get("wrong_facts", "not labeled")
    out["told what to commit"] = int(".serena/memories" in said or "commit" in said)
    used = sorted({e["name"] for e in steps if e["kind"] == "call"})
    out.update(_read_in_task(steps))
    out["calls in all"] = sum(e["kind"] in ("call", "fs") for e in steps)
    out["characters moved in all"] = sum(_moved(e) for e in steps)
    out["tools used"] = ", ".join(used) or "-"
    out["tools never used"] = ", ".join(t for t in start["tools"] if t not in used) or "-"
    return out


def _onboarding(steps: list[dict[str, Any]]) -> dict[str, Any]:
    begin = next(
        (i for i, e in enumerate(steps) if e["kind"] == "call" and e["name"] == "onboarding"),
        None,
    )
    if begin is None:
        return {"onboarding calls": 0, "onboarding characters": 0, "onboarding memories": 0}
    writes = [i for i, e in enumerate(steps) if i >= begin and _is_target_write(e)]
    end = writes[-1] if writes else begin
    span = [e for e in steps[begin : end + 1] if e["kind"] in ("call", "fs")]
    return {
        "onboarding calls": len(span),
        "onboarding characters": sum(_moved(e) for e in span),
        "onboarding memories": len(writes),
    }


def _answered_first(steps: list[dict[str, Any]]) -> int | str:
    """1 when the agent spoke to the user between the first user turn and its first
    onboarding call, 0 when it onboarded first, '-' when it did not onboard."""
    if not any(e["kind"] == "call" and e["name"] == "onboarding" for e in steps):
        return "-"
    for e in steps[next((i for i, e in enumerate(steps) if e["kind"] == "user"), 0) :]:
        if e["kind"] == "say":
            return 1
        if e["kind"] == "call" and e["name"] == "onboarding":
            return 0
    return "-"


def _task(steps: list[dict[str, Any]]) -> dict[str, Any]:
    users = [i for i, e in enumerate(steps) if e["kind"] == "user"]
    if not users:
        return {"memories read before the task": 0, "memory characters read before the task": 0}
    reads = []
    for e in steps[users[-1] + 1 :]:
        if e["kind"] == "fs" or (e["kind"] == "call" and e["name"] in CHANGES):
            break
        if e["kind"] == "call" and e["name"] == "read_memory" and not e["error"]:
            reads.append(e)
    return {
        "memories read before the task": len(reads),
        "memory characters read before the task": sum(e["answer_chars"] for e in reads),
    }


def _read_in_task(steps: list[dict[str, Any]]) -> dict[str, int]:
    users = [i for i, e in enumerate(steps) if e["kind"] == "user"]
    after = steps[users[-1] + 1 :] if users else steps
    memory = sum(
        e["answer_chars"]
        for e in after
        if e["kind"] == "call" and e["name"] in ("read_memory", "list_memories", "search_memories")
    )
    code = sum(e["answer_chars"] for e in after if e["kind"] == "fs")
    return {
        "memory characters read in the task": memory,
        "repository characters read in the task": code,
    }


def net_saving(with_memory: list[dict[str, Any]], without: list[dict[str, Any]]) -> dict[str, Any]:
    """What the memories saved on one later task, surface included."""
    run, base = score(with_memory), score(without)
    surface = run["characters before the first user turn"]
    spent = surface + run["memory characters read in the task"]
    spent += run["repository characters read in the task"]
    baseline = base["repository characters read in the task"]
    return {
        "baseline: repository characters read": baseline,
        "with memory: surface": surface,
        "with memory: memory characters read": run["memory characters read in the task"],
        "with memory: repository characters read": run["repository characters read in the task"],
        "with memory: in all": spent,
        "net saving": f"{(baseline - spent) / baseline:.0%}" if baseline else "-",
    }


def summarized(entries: list[dict[str, Any]], keep: int = 160) -> str:
    """The transcript with every answer, text and memory content cut to ``keep``
    characters (the sizes stay, so the scorer reads it the same)."""

    def cut(value: Any) -> Any:
        if isinstance(value, str) and len(value) > keep:
            return value[:keep] + f"... [{len(value):,} characters]"
        if isinstance(value, dict):
            return {k: cut(v) for k, v in value.items()}
        return value

    return "".join(json.dumps(cut(e), ensure_ascii=False) + "\n" for e in entries)


def table(columns: dict[str, dict[str, Any]]) -> str:
    rows = list(next(iter(columns.values())))
    lines = ["| | " + " | ".join(columns) + " |", "|---|" + "---|" * len(columns)]
    for row in rows:
        cells = []
        for scored in columns.values():
            value = scored.get(row, "")
            cells.append(f"{value:,}" if isinstance(value, int) else str(value))
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transcripts", nargs="+", type=Path)
    parser.add_argument(
        "--keep", type=Path, help="also write each transcript here, long texts cut short"
    )
    parser.add_argument(
        "--net", action="store_true", help="two transcripts: WITH memory, WITHOUT (baseline)"
    )
    args = parser.parse_args(argv)
    if args.net:
        with_memory, without = (load(path) for path in args.transcripts)
        print(table({args.transcripts[0].stem: net_saving(with_memory, without)}))
        return 0
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        for path in args.transcripts:
            (args.keep / path.name).write_text(summarized(load(path)), encoding="utf-8")
    columns = {path.stem: score(load(path)) for path in args.transcripts}
    print(table(columns))
    return 0


if __name__ == "__main__":
    sys.exit(main())
