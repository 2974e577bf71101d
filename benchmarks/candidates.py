"""Quality of the candidates `check` proposes for stale references, ours versus serena-agent.

A labeled set: a universe of existing memory names (from the corpus generator), and stale
references made from some of them by one known mistake each (typo, topic moved / added /
removed, `_v2`/`_old`/`legacy` suffix, hyphen for underscore, camelCase, plural, reordered
words, a word added or dropped), plus references to nothing at all (label: none). Both
tools run `check` on the same project; the table gives, per kind and overall:

- top-1: the first candidate is the intended memory (share of labeled references);
- top-3: the intended memory is among the candidates;
- false: candidates offered for a reference that means no existing memory, plus wrong
  first candidates for the others (lower is better).

Usage: ``python benchmarks/candidates.py [--serena /opt/serena-ref/bin/serena] [--json F]``
(the reference is skipped when it is not installed).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import FLAT_NAMES, STALE_KINDS, generate_names, mutate  # noqa: E402

REFERENCE = "/opt/serena-ref/bin/serena"
PROBE = "labeled/probe"
KINDS = [kind for kind in STALE_KINDS if kind != "unknown"]
PER_KIND = 16
UNRELATED = [
    "onboarding_faq", "kubernetes/helm_chart", "zebra_quartz", "glacier/tundra_walrus",
    "holiday_calendar", "coffee_machine", "marketing/brand_voice", "legal/gdpr_requests",
    "hiring/interview_loop", "office/wifi_password", "sprint_retro_notes", "okr/q3_goals",
    "design/figma_tokens", "vendor/contracts_list", "travel_policy", "lunch_menu",
    "oncall/pager_rotation", "team/offsite_plan", "podcast_ideas", "nebula/quasar",
]  # fmt: skip
# what people actually write, beyond the generator's mistakes
HANDWRITTEN = [
    ("frontend-grid-layout", "frontend/grid_layout"),
    ("grid_layout", "frontend/grid_layout"),
    ("frontend/gridLayout", "frontend/grid_layout"),
    ("frontend/grid_layouts", "frontend/grid_layout"),
    ("frontend/layout_grid", "frontend/grid_layout"),
    ("frontend/grid_layout_legacy", "frontend/grid_layout"),
    ("legacy_grid_layout", "frontend/grid_layout"),
    ("frontend/grid_layot", "frontend/grid_layout"),
    ("auth/session_handling_v2", "auth/session_handling"),
    ("auth/sessions", "auth/session_handling"),
    ("session_handling", "auth/session_handling"),
    ("security/session_handling", "auth/session_handling"),
    ("auth/SessionHandling", "auth/session_handling"),
    ("auth/session-handling", "auth/session_handling"),
    ("techstack", "tech_stack"),
    ("tech_stacks", "tech_stack"),
    ("suggested_command", "suggested_commands"),
    ("commands_suggested", "suggested_commands"),
    ("suggested_commands_windows", "suggested_commands"),
    ("convention", "conventions"),
    ("coding_conventions", "conventions"),
    ("task_completion_checklist", "task_completion"),
]
EXTRA_NAMES = ["frontend/grid_layout", "auth/session_handling", "frontend/grid"]


def build_set(seed: int = 7, universe_size: int = 400) -> tuple[list[str], list[tuple]]:
    """(existing names, [(stale reference, intended name or None, kind)])."""
    rng = random.Random(seed)
    universe = sorted(set(generate_names(universe_size, rng)) | set(EXTRA_NAMES) | {PROBE})
    existing = set(universe)
    topics = sorted({n.split("/")[0] for n in universe if "/" in n})
    by_base: dict[str, list[str]] = defaultdict(list)
    for name in universe:
        by_base[name.rpartition("/")[2]].append(name)
    items: list[tuple] = []
    used: set[str] = set()
    pool = [n for n in universe if n != PROBE and n not in FLAT_NAMES and "/core" not in n]
    for kind in KINDS:
        made = 0
        for target in rng.sample(pool, len(pool)):
            if made == PER_KIND:
                break
            base = target.rpartition("/")[2]
            words = [w for w in re.split(r"[_\-]|(?<=[a-z])(?=[A-Z])", base) if w]
            if kind in ("reorder", "drop_word", "hyphen") and len(words) < 2:
                continue
            if kind in ("topic_move", "drop_topic") and len(by_base[base]) > 1:
                continue  # the intended memory would be ambiguous
            stale = mutate(target, kind, rng, topics)
            if stale in existing or stale in used or stale == target:
                continue
            used.add(stale)
            items.append((stale, target, kind))
            made += 1
    for stale, target in HANDWRITTEN:
        if target in existing and stale not in existing and stale not in used:
            used.add(stale)
            items.append((stale, target, "handwritten"))
    for stale in UNRELATED:
        items.append((stale, None, "unrelated"))
    return universe, items


def write_project(root: Path, universe: list[str], items: list[tuple]) -> Path:
    memories = root / ".serena" / "memories"
    for name in universe:
        path = memories / (name + ".md")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {name}\n", encoding="utf-8")
    probe = "".join(f"- `mem:{stale}`\n" for stale, _target, _kind in items)
    (memories / (PROBE + ".md")).write_text(probe, encoding="utf-8")
    return root


_STALE = re.compile(r"^  - `mem:(?P<target>[^`]*)` in `(?P<source>[^`]*)`")


def parse_reference(text: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        m = _STALE.match(line)
        if m:
            current = m["target"]
            found[current] = []
        elif current is not None and line.strip().startswith("candidates:"):
            found[current] = re.findall(r"`mem:([^`]*)`", line)
            current = None
    return found


def run_reference(serena: str, universe: list[str], items: list[tuple]) -> dict[str, list[str]]:
    with tempfile.TemporaryDirectory(prefix="serena-ref-cand-") as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        home.mkdir()
        project.mkdir()
        env = {k: v for k, v in os.environ.items() if k != "SERENA_HOME"}
        env["HOME"] = str(home)
        subprocess.run(
            [serena, "project", "create", str(project)], env=env, capture_output=True, check=True
        )
        write_project(project, universe, items)
        done = subprocess.run(
            [serena, "memories", "check", str(project)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    return parse_reference(done.stdout)


def run_ours(universe: list[str], items: list[tuple]) -> dict[str, list[str]]:
    with tempfile.TemporaryDirectory(prefix="serena-ours-cand-") as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        home.mkdir()
        write_project(project, universe, items)
        env = dict(os.environ, SERENA_HOME=str(home))
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "serena_memory.cli",
                "memories",
                "check",
                str(project),
                "--json",
            ],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    data = json.loads(done.stdout)
    return {s["target"]: s["candidates"] for s in data["stale_references"]}


def score(items: list[tuple], proposals: dict[str, list[str]]) -> dict[str, dict[str, float]]:
    """Per kind (and 'all'): top1, top3 (shares), false (count), n."""
    table: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for stale, target, kind in items:
        got = proposals.get(stale, [])
        for key in (kind, "all"):
            row = table[key]
            row["n"] += 1
            if target is None:
                row["false"] += 1 if got else 0
                continue
            row["labeled"] += 1
            row["top1"] += 1 if got[:1] == [target] else 0
            row["top3"] += 1 if target in got[:3] else 0
            row["false"] += 1 if got and got[0] != target else 0
    return table


def fmt_share(row: dict[str, float], key: str) -> str:
    if not row.get("labeled"):
        return "   -  "
    return f"{100 * row[key] / row['labeled']:5.1f}%"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serena", default=REFERENCE)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args(argv)
    universe, items = build_set()
    print(f"labeled set: {len(items)} stale references over {len(universe)} existing memories")
    ours = run_ours(universe, items)
    tables = {"ours": score(items, ours)}
    ref = None
    if Path(args.serena).exists():
        ref = run_reference(args.serena, universe, items)
        tables["serena-agent 2.1.0"] = score(items, ref)
    kinds = [*KINDS, "handwritten", "unrelated", "all"]
    header = f"{'kind':<12} {'n':>4}"
    for tool in tables:
        header += f" | {tool[:18]:>18}: top-1   top-3  false"
    print(header)
    for kind in kinds:
        line = f"{kind:<12} {int(tables['ours'][kind]['n']):>4}"
        for table in tables.values():
            row = table[kind]
            t1, t3 = fmt_share(row, "top1"), fmt_share(row, "top3")
            line += f" | {'':>18}  {t1}  {t3}  {int(row['false']):>4}"
        print(line)
    if args.show_misses:
        for stale, target, kind in items:
            got = ours.get(stale, [])
            if (target is None and got) or (target is not None and got[:1] != [target]):
                theirs = ref.get(stale, []) if ref else "?"
                print(f"  {kind:<11} {stale!r:42} want {target!r}: ours {got} ref {theirs}")
    if args.json:
        args.json.write_text(
            json.dumps({tool: dict(t) for tool, t in tables.items()}, indent=1), encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
