"""Quality of the duplicate check (`serena memories check --duplicates`) on real memory
folders: the hand-written ones of `benchmarks/search_set` (four projects) and the demo
project's, untouched and with pairs seeded into them.

- untouched: every finding on a folder as it is (a person would read each one; goal: at
  most one per folder on average);
- near-copies: for each memory of 5+ content lines (up to 12 per folder), a copy under
  another name with its lines shuffled, a fifth of them dropped and a fifth edited (one
  word changed, one added); found when a finding pairs the copy with its original
  (goal: recall 0.9);
- pasted sections: for each memory of 5+ content lines (up to 12 per folder), its lines
  (a fifth edited) pasted under a new heading at the end of another memory; found when a
  finding pairs the two;
- conflicts: for up to 12 sentences per folder that hold a value (a number, version,
  path, flag, a word in backticks) or a `must`/`should`, the sentence restated in another
  memory with that value changed or the verb negated; found when a conflict names both
  memories (goal: recall 0.8).

With ``--realworld``, the folders are instead the 34 real projects' memories of
``../shared/realworld/serena-projects.tar.gz`` (written by their authors, not for this
project); the seeds are this script's own, so the figures there measure the detector on
real text, not on changes someone else chose.

With ``--seeds FILE`` (JSON lines: ``folder``, ``kind`` conflict, near-copy or harmless,
``new_name``, ``new_text``, ``pairs_with``), the changes are someone else's: each real
folder gets its new memories (all of its lines at once, in a copy) and the check runs
once; a conflict is found when a conflict names both memories, a near-copy when a
duplicate finding pairs them, and a harmless memory is a false alarm when any finding
names it. The untouched folders' findings are counted beside them.

Seeds are deterministic (``--seed``). Usage: ``python benchmarks/duplicates_quality.py
[--realworld | --seeds FILE]``
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))

from serena_memory.integrity.duplicates import DuplicateReport, find_duplicates  # noqa: E402

FOLDERS = [
    *(HERE / "search_set" / p for p in ("fieldapp", "ledger", "shopfront", "tabby")),
    ROOT / "examples" / "demo" / ".serena" / "memories",
]
PER_FOLDER = 12
SWAPS = {"npm": "yarn", "yarn": "pnpm", "pip": "uv", "pytest": "tox", "make": "just"}
_VALUE = re.compile(
    r"`(?!mem:)[^`\n]+`|\b\d+(?:\.\d+)*\b|(?<![\w-])--?[a-z][\w-]*|\b(?:must|should)\b"
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`])")


REALWORLD = ROOT.parent / "shared" / "realworld" / "serena-projects.tar.gz"


def real_folders(where: Path | None = None) -> list[Path]:
    """The memories folders of the real projects, extracted to ``where`` (a temporary
    folder when not given)."""
    import tarfile
    import tempfile

    tar = REALWORLD
    where = where or Path(tempfile.mkdtemp(prefix="realworld-"))
    with tarfile.open(tar) as archive:
        archive.extractall(where, filter="data")
    return sorted(where.glob("serena-projects/*/.serena/memories"))


def _shown(folder: Path) -> str:
    return str(folder.relative_to(ROOT)) if folder.is_relative_to(ROOT) else folder.parts[-3]


def load(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder))[:-3]: p.read_text(encoding="utf-8")
        for p in sorted(folder.rglob("*.md"))
        if p.stem != "memory_maintenance"
    }


def pairs_of(report: DuplicateReport) -> set[frozenset[str]]:
    found = {frozenset(d.first for d in ()) for _ in ()}
    for group in report.identical:
        found |= {frozenset((a, b)) for a in group for b in group if a != b}
    for d in (*report.memories, *report.sections):
        found.add(frozenset((d.first, d.second)))
    return found


def conflicts_of(report: DuplicateReport) -> set[frozenset[str]]:
    found = {frozenset((c.first, c.second)) for c in report.conflicts}
    for d in (*report.memories, *report.sections):
        found |= {frozenset((c.first, c.second)) for c in d.conflicts}
    return found


def edit_line(line: str, rng: random.Random) -> str:
    words = line.split()
    if len(words) < 3:
        return line + " (edited)"
    i = rng.randrange(len(words))
    words[i] = rng.choice(["also", "usually", "then", "here"])
    words.insert(rng.randrange(len(words)), "now")
    return " ".join(words)


def near_copy(text: str, rng: random.Random) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    rng.shuffle(lines)
    kept = [line for line in lines if rng.random() >= 0.2]
    return "\n".join(edit_line(line, rng) if rng.random() < 0.2 else line for line in kept) + "\n"


def changed(sentence: str, rng: random.Random) -> str | None:
    """The sentence with one value changed (or its must/should negated)."""
    spots = list(_VALUE.finditer(sentence))
    if not spots:
        return None
    m = rng.choice(spots)
    value = m.group(0)
    if value in ("must", "should"):
        new = value + " not"
    elif value.startswith("`"):
        head = value[1:-1].split(" ", 1)[0]
        if head in SWAPS:
            new = "`" + SWAPS[head] + value[1 + len(head) :]
        else:  # the first word of the code gets a digit: `shop-warn` -> `shop2-warn`
            new = re.sub(r"[A-Za-z0-9]+", lambda w: w.group(0) + "2", value, count=1)
    elif value.startswith("-"):
        new = value + "-all"
    else:
        parts = value.split(".")
        parts[-1] = str(int(parts[-1]) + 1)
        new = ".".join(parts)
    return sentence[: m.start()] + new + sentence[m.end() :]


def sentences(text: str) -> list[str]:
    found = []
    for block in re.split(r"\n\s*\n|\n(?=\s*(?:[-*]|\d+[.)]) )", text):
        if block.lstrip().startswith(("#", "```")):
            continue
        joined = re.sub(r"^\s*(?:[-*]|\d+[.)])\s+", "", " ".join(block.split()))
        found += [s for s in _SENTENCE.split(joined) if len(s.split()) >= 6]
    return found


def seed_copies(memories: dict[str, str], rng: random.Random) -> tuple[dict[str, str], list]:
    names = [n for n, t in memories.items() if len([x for x in t.splitlines() if x.strip()]) >= 5]
    rng.shuffle(names)
    seeded = dict(memories)
    truth = []
    for name in names[:PER_FOLDER]:
        copy = f"seeded/{name.replace('/', '-')}-notes"
        seeded[copy] = near_copy(memories[name], rng)
        truth.append(frozenset((name, copy)))
    return seeded, truth


def seed_sections(memories: dict[str, str], rng: random.Random) -> tuple[dict[str, str], list]:
    """A memory's lines (one in five edited) pasted as a section at the end of another."""
    names = [n for n, t in memories.items() if len([x for x in t.splitlines() if x.strip()]) >= 5]
    rng.shuffle(names)
    seeded = dict(memories)
    truth = []
    hosts = sorted(memories)
    for name in names[:PER_FOLDER] if len(hosts) > 1 else ():
        host = rng.choice([h for h in hosts if h != name])
        body = [x for x in memories[name].splitlines() if x.strip() and not x.startswith("#")]
        body = [edit_line(x, rng) if rng.random() < 0.2 else x for x in body]
        seeded[host] = seeded[host].rstrip("\n") + "\n\n## Also\n\n" + "\n".join(body) + "\n"
        truth.append(frozenset((name, host)))
    return seeded, truth


def seed_conflicts(memories: dict[str, str], rng: random.Random) -> tuple[dict[str, str], list]:
    names = sorted(memories)
    seeded = dict(memories)
    truth = []
    candidates = [(n, s) for n in names for s in sentences(memories[n])]
    rng.shuffle(candidates)
    used: set[str] = set()
    for name, sentence in candidates:
        if len(truth) >= PER_FOLDER or name in used:
            continue
        new = changed(sentence, rng)
        others = [n for n in names if n != name and n not in used]
        if new is None or new == sentence or not others:
            continue
        other = rng.choice(others)
        used |= {name, other}
        seeded[other] = seeded[other].rstrip("\n") + "\n\n" + new + "\n"
        truth.append(frozenset((name, other)))
    return seeded, truth


def names_of(report: DuplicateReport) -> set[str]:
    """Every memory some finding names."""
    found = {n for group in report.identical for n in group}
    for d in (*report.memories, *report.sections):
        found |= {d.first, d.second}
    return found | {n for c in report.conflicts for n in (c.first, c.second)}


def run_seeds(
    path: Path, verbose: bool = False, where: Path | None = None, each: bool = False
) -> dict[str, tuple[int, int]]:
    """The figures of a seeds file on the real folders: {what: (count, of)}; beside the
    kinds, ``untouched`` (findings, folders) and ``untouched-largest`` (findings,
    memories) for the folder with the most memories. With ``each``, every seed is added
    to its folder alone (one check per seed, as a write meets it), not all at once: two
    seeds restating one fact with two new values would otherwise make a third value."""
    import json
    from collections import defaultdict

    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    by_folder: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_folder[row["folder"]].append(row)
    kinds = ("conflict", "near-copy", "harmless", "untouched", "untouched-largest")
    figures = {k: [0, 0] for k in kinds}
    folders = real_folders(where)
    for folder in folders:
        memories = load(folder)
        findings = find_duplicates(memories).problem_count
        figures["untouched"][0] += findings
        figures["untouched"][1] += 1
        if len(memories) > figures["untouched-largest"][1]:
            figures["untouched-largest"] = [findings, len(memories)]
        own = by_folder.get(folder.parts[-3], [])
        for group in [[row] for row in own] if each else [own] if own else []:
            _score_group(memories, group, figures, folder.parts[-3], verbose)
    return {k: (v[0], v[1]) for k, v in figures.items()}


def _score_group(
    memories: dict[str, str], group: list[dict], figures: dict, folder: str, verbose: bool
) -> None:
    """Add the seeds of ``group`` to a copy of a folder's ``memories``, check it once and
    count each seed found or missed in ``figures``."""
    seeded = dict(memories)
    for row in group:
        seeded[row["new_name"]] = row["new_text"]
    report = find_duplicates(seeded)
    pairs, conflicts, named = pairs_of(report), conflicts_of(report), names_of(report)
    for row in group:
        kind, new = row["kind"], row["new_name"]
        pair = frozenset((new, row.get("pairs_with") or ""))
        hit = {
            "conflict": pair in conflicts,
            "near-copy": pair in pairs,
            "harmless": new in named,
        }[kind]
        figures[kind][0] += hit
        figures[kind][1] += 1
        if verbose and hit == (kind == "harmless"):
            what = "false alarm" if kind == "harmless" else "missed"
            print(
                f"  {what} {kind} ({row.get('form')}): {folder}: {new} / "
                f"{row.get('pairs_with')}: {row.get('changed')}"
            )


def print_seeds(figures: dict[str, tuple[int, int]]) -> None:
    for kind, goal in (("conflict", 0.8), ("near-copy", 0.9)):
        found, of = figures[kind]
        print(f"{kind}: recall {found / max(of, 1):.3f} ({found}/{of}, goal {goal})")
    alarms, of = figures["harmless"]
    print(f"harmless memories named by a finding: {alarms}/{of} (false alarms)")
    findings, folders = figures["untouched"]
    print(
        f"untouched folders: {findings / max(folders, 1):.2f} findings per folder "
        f"({findings} in {folders}, goal <= 1)"
    )
    largest, memories = figures["untouched-largest"]
    others = findings - largest
    print(
        f"  the largest ({memories} memories): {largest}; the {folders - 1} others: "
        f"{others / max(folders - 1, 1):.2f} per folder ({others})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--realworld", action="store_true", help="the 34 real folders")
    parser.add_argument("--seeds", type=Path, help="JSON lines of changes to the real folders")
    parser.add_argument("--each", action="store_true", help="with --seeds: one seed at a time")
    args = parser.parse_args(argv)
    if args.seeds is not None:
        print_seeds(run_seeds(args.seeds, args.verbose, each=args.each))
        return 0
    untouched = copies = copies_found = conflicts = conflicts_found = 0
    sections = sections_found = extra = 0
    folders = real_folders() if args.realworld else FOLDERS
    for folder in folders:
        memories = load(folder)
        rng = random.Random(f"{args.seed}:{_shown(folder)}")
        base = find_duplicates(memories)
        untouched += base.problem_count
        seeded, truth = seed_copies(memories, rng)
        found = pairs_of(find_duplicates(seeded))
        extra += len(found - set(truth))
        copies += len(truth)
        copies_found += sum(t in found for t in truth)
        seeded, truth = seed_sections(memories, random.Random(f"{args.seed}:s:{_shown(folder)}"))
        found = pairs_of(find_duplicates(seeded))
        sections += len(truth)
        sections_found += sum(t in found for t in truth)
        seeded, truth = seed_conflicts(memories, rng)
        found = conflicts_of(find_duplicates(seeded))
        extra += len(found - set(truth))
        conflicts += len(truth)
        conflicts_found += sum(t in found for t in truth)
        missed = [sorted(t) for t in truth if t not in found]
        print(
            f"{_shown(folder)}: {len(memories)} memories, {base.problem_count} finding(s) untouched"
        )
        if args.verbose:
            print("  untouched:", base.to_dict())
            print("  conflicts missed:", missed)
    print(f"findings of seeded folders that pair no seeded pair: {extra}")
    print(f"untouched folders: {untouched / len(folders):.2f} findings per folder (goal <= 1)")
    print(f"near-copies: recall {copies_found / copies:.3f} ({copies_found}/{copies}, goal 0.9)")
    print(
        f"pasted sections: recall {sections_found / sections:.3f} "
        f"({sections_found}/{sections}, no goal set)"
    )
    print(
        f"conflicts: recall {conflicts_found / conflicts:.3f} "
        f"({conflicts_found}/{conflicts}, goal 0.8)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
