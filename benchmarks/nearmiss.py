"""Quality of the near-misses `check --fuzzy-matching` proposes, ours versus serena-agent.

The labeled set lives in ``benchmarks/nearmiss/``: one folder of memories per project
(written for this set, each modelled on a public memory folder named in
``manifest.json``), and ``labels.json``, which says for every near-miss either tool
proposes (and for a few that a person would expect) whether a person would accept it
("accept", with the memory meant) or not ("noise"), and its class (numbered names, dated
names, common words, folder paths, code identifiers, memory file paths...).

- precision: proposals whose token is labeled "accept" and whose suggestion is the memory
  meant, out of all proposals (an unlabeled proposal counts as wrong, and is listed);
- recall: tokens labeled "accept" that got the memory meant, out of all of them.

The reference's proposals are recorded once in ``nearmiss/reference.json``
(``--record-reference`` with serena-agent 2.1.0 installed), so the figures of both sides
come out without it.

Usage: ``python benchmarks/nearmiss.py [--serena PATH --record-reference] [--show]
[--json F]``
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
SET = HERE / "nearmiss"
LABELS = SET / "labels.json"
RECORDED = SET / "reference.json"
REFERENCE = "/opt/serena-ref/bin/serena"

Proposal = tuple[str, str, str, str]  # project, source, token, suggested name

_FUZZY = re.compile(
    r"^  - \d+ occurrences? of `(?P<token>[^`]*)` in `(?P<source>[^`]*)`"
    r"(?: \[read-only source\])? — near-miss \(suggested: `mem:(?P<name>[^`]*)`\)$"
)


def projects() -> list[str]:
    return sorted(p.name for p in SET.iterdir() if p.is_dir())


def _copy_memories(project: str, root: Path) -> Path:
    memories = root / ".serena" / "memories"
    shutil.copytree(SET / project, memories, dirs_exist_ok=True)
    return root


def run_ours(project: str, auto_prefix_paths: bool = False) -> list[Proposal]:
    with tempfile.TemporaryDirectory(prefix="serena-nearmiss-") as tmp:
        home, root = Path(tmp) / "home", Path(tmp) / "project"
        home.mkdir()
        _copy_memories(project, root)
        env = dict(os.environ, SERENA_HOME=str(home))
        cmd = [sys.executable, "-m", "serena_memory.cli", "memories", "check", str(root)]
        cmd += ["--include-unmarked", "--fuzzy-matching", "--json"]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    data = json.loads(done.stdout)
    return [(project, m["source"], m["token"], m["name"]) for m in data.get("near_misses", [])]


def run_reference(serena: str, project: str) -> list[Proposal]:
    with tempfile.TemporaryDirectory(prefix="serena-ref-nearmiss-") as tmp:
        home, root = Path(tmp) / "home", Path(tmp) / "project"
        home.mkdir()
        root.mkdir()
        env = {k: v for k, v in os.environ.items() if k != "SERENA_HOME"}
        env["HOME"] = str(home)
        subprocess.run(
            [serena, "project", "create", str(root)], env=env, capture_output=True, check=True
        )
        _copy_memories(project, root)
        done = subprocess.run(
            [serena, "memories", "check", str(root), "--include-unmarked", "--fuzzy-matching"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    found = []
    section = False
    for line in done.stdout.splitlines():
        if "fuzzy near-misses" in line:
            section = True
        elif section and (m := _FUZZY.match(line)):
            found.append((project, m["source"], m["token"], m["name"]))
        elif section and line and not line.startswith("  "):
            section = False
    return found


def load_labels() -> dict[tuple[str, str, str], dict]:
    items = json.loads(LABELS.read_text(encoding="utf-8"))
    return {(i["project"], i["source"], i["token"]): i for i in items}


def score(labels: dict[tuple[str, str, str], dict], proposals: list[Proposal]) -> dict:
    """Overall and per class: proposals, correct ones, accepted tokens found, unlabeled."""
    table: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    proposed = {}
    for project, source, token, name in proposals:
        proposed[(project, source, token)] = name
        label = labels.get((project, source, token))
        kind = label["class"] if label else "unlabeled"
        correct = bool(label and label["label"] == "accept" and label["intended"] == name)
        for key in (kind, "all"):
            table[key]["proposed"] += 1
            table[key]["correct"] += correct
            if label is None:
                table[key]["unlabeled"] += 1
    for key, label in labels.items():
        if label["label"] != "accept":
            continue
        for k in (label["class"], "all"):
            table[k]["accept"] += 1
            table[k]["found"] += proposed.get(key) == label["intended"]
    return table


def share(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "   -  "


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serena", default=REFERENCE)
    parser.add_argument("--record-reference", action="store_true")
    parser.add_argument("--show", action="store_true", help="list every proposal and miss")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    labels = load_labels()
    names = projects()
    ours = [p for project in names for p in run_ours(project)]
    if args.record_reference:
        ref = [p for project in names for p in run_reference(args.serena, project)]
        RECORDED.write_text(json.dumps([list(p) for p in ref], indent=1) + "\n", encoding="utf-8")
    ref = [tuple(p) for p in json.loads(RECORDED.read_text(encoding="utf-8"))]
    tables = {"ours": score(labels, ours), "serena-agent 2.1.0": score(labels, ref)}
    accept = sum(1 for label in labels.values() if label["label"] == "accept")
    print(
        f"labeled set: {len(names)} projects, {len(labels)} labeled tokens "
        f"({accept} a person would accept, {len(labels) - accept} noise)"
    )
    classes = sorted({label["class"] for label in labels.values()}) + ["unlabeled", "all"]
    header = f"{'class':<22}"
    for tool in tables:
        header += f" | {tool:<18} prop  ok  precision  recall"
    print(header)
    for kind in classes:
        line = f"{kind:<22}"
        for table in tables.values():
            row = table.get(kind, {})
            prop, ok = row.get("proposed", 0), row.get("correct", 0)
            line += f" | {'':<18} {prop:>4} {ok:>3}   {share(ok, prop)}  "
            line += f"{share(row.get('found', 0), row.get('accept', 0))}"
        print(line)
    if args.show:
        for tool, proposals in (("ours", ours), ("ref", ref)):
            got = {(p, s, t): n for p, s, t, n in proposals}
            for (project, source, token), name in sorted(got.items()):
                label = labels.get((project, source, token))
                verdict = "UNLABELED"
                if label:
                    good = label["label"] == "accept" and label["intended"] == name
                    verdict = "ok" if good else f"WRONG ({label['label']})"
                print(f"  {tool:<4} {project}: {source} | {token} -> {name}  {verdict}")
            for key, label in sorted(labels.items()):
                if label["label"] == "accept" and got.get(key) != label["intended"]:
                    want = label["intended"]
                    print(f"  {tool:<4} missed {key[0]}: {key[1]} | {key[2]} -> {want}")
    if args.json:
        data = {tool: {k: dict(v) for k, v in t.items()} for tool, t in tables.items()}
        args.json.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
