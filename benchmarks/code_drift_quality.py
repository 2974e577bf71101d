"""Precision and recall of `check --code` on real memories, against hand labels.

The labels (``code_drift_labels.json``) name, for every path-like string of the
``.serena/memories`` of a few public repositories, whether it is a claim about the
project's files, whether it existed when the memory was written, and whether it is present,
missing or moved (and where) at a later commit. This script clones each repository from a
local mirror, checks out the later commit, reads each memory as it was written (``git show
COMMIT:PATH``), runs the checker on it with the memory's commit time, and compares:

- precision and recall of "missing or moved" over the path claims that are not made-up
  examples in fenced blocks, nor said by the memory itself to be absent, removed or
  planned (``negated``: reporting those is a false alarm);
- the share of moved paths reported moved with the right new path;
- for fenced blocks: how many path strings in them are real claims, made-up examples or
  no paths at all.

Usage: python benchmarks/code_drift_quality.py [--mirrors /work/.mirror] [--labels FILE]
(``--labels``: another file in the same format, e.g. a set labelled later by someone else.)
(a mirror of owner/name is the bare repository MIRRORS/owner+name/repo).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from serena_memory.integrity.code_drift.checker import CodeChecker
from serena_memory.integrity.code_drift.code_report import MISSING, MOVED
from serena_memory.integrity.code_drift.mentions import PATH

LABELS = Path(__file__).with_name("code_drift_labels.json")
MEMORIES = ".serena/memories/"


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


def norm(text: str) -> str:
    """A mention as a comparable target: no ``./``, leading ``/``, line, anchor, or final ``/``."""
    text = re.sub(r"(?::\d[\d:-]*|#.*)$", "", text.strip())
    return text.removeprefix("./").strip("/")


def run_repo(mirror: Path, later: str, labels: list[dict], work: Path) -> dict[tuple, dict]:
    """(memory, line, target) -> the finding the checker gives there; a finding is keyed
    by its mention as written too (a name in a tree drawing or a link names a path that
    is not its text)."""
    root = work / mirror.parent.name
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(mirror), str(root)], check=True)
    git(root, "checkout", "-q", later)
    commits = {(lab["memory"], lab["memory_commit"]) for lab in labels}
    texts: dict[str, str] = {}
    written: dict[str, float] = {}
    for memory, commit in sorted(commits):
        texts[memory] = git(root, "show", f"{commit}:{MEMORIES}{memory}.md")
        written[memory] = float(git(root, "log", "-1", "--format=%ct", commit).strip())
    checker = CodeChecker(root, changed_commits=0)
    checker.prefetch(symbols=False)
    report = checker.check(texts, written, symbols=False)
    found: dict[tuple, dict] = {}
    for f in report.findings:
        if f.kind == PATH and f.status in (MISSING, MOVED):
            told = {**f.to_dict(), "target": f.target}
            found[(f.memory, f.line, norm(f.target))] = told
            found.setdefault((f.memory, f.line, norm(f.mention)), told)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mirrors", default="/work/.mirror", type=Path)
    parser.add_argument("--verbose", action="store_true", help="list every miss")
    parser.add_argument("--labels", default=LABELS, type=Path, help="a labels file")
    options = parser.parse_args()
    data = json.loads(options.labels.read_text(encoding="utf-8"))
    mentions = data["mentions"]
    tp = fp = fn = 0
    moved_total = moved_right = 0
    misses: list[str] = []
    with tempfile.TemporaryDirectory(prefix="drift-quality-") as tmp:
        for repo, later in data["later_commits"].items():
            mirror = options.mirrors / repo.replace("/", "+") / "repo"
            if not mirror.is_dir():
                print(f"{repo}: no mirror at {mirror}; fetch it first", file=sys.stderr)
                return 2
            own = [m for m in mentions if m["repo"] == repo]
            found = run_repo(mirror, later, own, Path(tmp))
            labelled: set[tuple] = set()
            for lab in own:
                key = (lab["memory"], lab["line"], norm(lab["mention"]))
                labelled.add(key)
                truth = (
                    lab["claim"]
                    and not lab["hypothetical"]
                    and not lab.get("ignored")
                    and not lab.get("negated")  # the memory says it is gone or planned
                    and lab["now"] != "present"
                )
                got = found.get(key)
                if truth and got:
                    tp += 1
                elif got:
                    fp += 1
                    misses.append(f"false alarm {repo} {key} {got['status']}")
                elif truth:
                    fn += 1
                    misses.append(f"not found {repo} {key} ({lab['now']})")
                if lab["claim"] and lab["now"] == "moved":
                    moved_total += 1
                    said = got.get("new_path", "").rstrip("/") if got else None
                    right = said == lab["new_path"].rstrip("/")  # a folder, with or without /
                    moved_right += right
                    if not right:
                        misses.append(f"wrong new path {repo} {key}: {got}")
            told: set[int] = set()
            for key, got in found.items():
                keys = {(got["memory"], got["line"], norm(got[k])) for k in ("mention", "target")}
                if id(got) in told or keys & labelled:
                    continue
                told.add(id(got))  # a finding on nothing labelled: not a path claim
                fp += 1
                misses.append(f"false alarm (unlabelled) {repo} {key} {got['status']}")
    fenced = Counter(
        "hypothetical" if m["hypothetical"] else ("real claim" if m["claim"] else "no path")
        for m in mentions
        if m["fenced"]
    )
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    claims = sum(1 for m in mentions if m["claim"] and not m["hypothetical"])
    print(f"labelled path strings: {len(mentions)}; path claims: {claims}")
    print(f"missing or moved: found {tp}, false alarms {fp}, not found {fn}")
    print(f"precision {precision:.3f}  recall {recall:.3f}")
    print(f"moved with the right new path: {moved_right}/{moved_total}")
    print("in fenced blocks: " + ", ".join(f"{k} {v}" for k, v in sorted(fenced.items())))
    if options.verbose:
        print("\n".join(misses))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
