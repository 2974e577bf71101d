"""Search quality on hand-written memory folders and hand-graded queries.

benchmarks/search_set/ holds four projects' memories (10 to 16 memories each, written as
a team would keep them) and queries.tsv: subject queries that ask for a need in other
words than the memory's, and known-item queries that use its own words (a heading, an
identifier). Each query lists the memories that answer it (grade 2) or help (grade 1);
the grades were written with the queries, before any ranking was looked at. A fifth
folder, "shopfront+990", is shopfront's memories among 990 generated distractors
(benchmarks/topical_corpus.py), asked shopfront's queries.

Five rankings are measured: today's (the search module as of BASELINE_COMMIT, loaded from
git), word counting (files ranked by how often they hold the query's words, as
`grep -o -i -w | sort | uniq -c` would), the meaning side alone, the hybrid with
reciprocal rank fusion, and the hybrid as shipped (score fusion).
Figures: MRR@10 (1 / rank of the first grade-2 memory), nDCG@10 (gain 2^grade - 1) and
recall@5 (share of the grade-2 memories in the first five).

Questions about nothing in these folders (NOTHING) should find nothing: for each folder,
the ones the hybrid answers with a memory specific to them (not "no memory is specific
to this" and the closest names) are listed, with how many memories; then the graded
questions the hybrid answers "no memory is specific".

The queries are split in two halves by a hash of their text (``half``): every weight and
threshold of the ranking is chosen on the tuning half only; the held-out half shows
whether the choice generalises. Figures are given for each half and for all queries.

Usage: ``python benchmarks/search_quality.py [--json]``
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import itertools
import json
import math
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any, NamedTuple

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "src"))

from bench_search import Baseline  # noqa: E402
from topical_corpus import generate  # noqa: E402

from serena_memory.core.store import MemoryStore  # noqa: E402
from serena_memory.search import database, ranking  # noqa: E402
from serena_memory.search import index as hybrid  # noqa: E402
from serena_memory.search import query as Q  # noqa: E402

SET = HERE / "search_set"
BASELINE_COMMIT = "5f59b0f"  # the words-only ranking this hybrid replaced
DISTRACTORS = 990
RANKINGS = ("today", "word counting", "meaning only", "hybrid, rank fusion", "hybrid")
HALVES = ("tuning", "held-out", "all")
# Questions about nothing any of the folders is about: ten made up, and one tool none uses.
NOTHING = (
    "xylophone quartz",
    "plants need water",
    "quokka",
    "zanzibar",
    "wombat",
    "flowers in the yard",
    "the best pizza in naples",
    "football results from saturday",
    "knitting a wool scarf",
    "how tall is mount everest",
    "kubernetes",
)


class Query(NamedTuple):
    kind: str
    project: str
    text: str
    grades: dict[str, int]

    @property
    def half(self) -> str:
        """'tuning' or 'held-out', fixed by the query's text alone."""
        digest = hashlib.sha256(self.text.encode("utf-8")).digest()
        return "tuning" if digest[0] % 2 == 0 else "held-out"


def load_queries() -> list[Query]:
    queries = []
    for line in (SET / "queries.tsv").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        kind, project, text, graded = line.split("\t")
        grades = {k: int(v) for k, v in (item.split("=") for item in graded.split(","))}
        queries.append(Query(kind, project, text, grades))
    return queries


def folder_memories(project: str) -> dict[str, str]:
    base = SET / project
    return {
        str(path.relative_to(base).with_suffix("")): path.read_text(encoding="utf-8")
        for path in sorted(base.rglob("*.md"))
    }


def today_module() -> Any:
    """The search module as it was before hybrid ranking, from git (None without git)."""
    try:
        source = subprocess.run(
            ["git", "show", f"{BASELINE_COMMIT}:src/serena_memory/core/search.py"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    path = Path(tempfile.mkdtemp()) / "search_today.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("search_today", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_folder(root: Path, memories: dict[str, str]) -> Path:
    project = root / "project"
    base = project / ".serena" / "memories"
    for name, text in memories.items():
        path = base / f"{name}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return project


def meaning_only(store: MemoryStore, query: str, k: int = 10) -> list[str]:
    embedder = hybrid.embedder_for(store)
    assert embedder is not None, "the embedded model did not load"
    index = database.index_for(store)
    with index.lock:
        index.refresh(store, index.current_stamps(store), embedder)
        vector = embedder.embed([Q.meaning_text(query)])[0]
        return [n for n, _, _ in index.similar(vector, Q.parse_query(query), "", "all", k)]


def rank_fused(store: MemoryStore, query: str, k: int = 10) -> list[str]:
    """The hybrid with reciprocal rank fusion instead of the score fusion it uses."""
    embedder = hybrid.embedder_for(store)
    assert embedder is not None
    index = database.index_for(store)
    parsed = Q.parse_query(query)
    with index.lock:
        index.refresh(store, index.current_stamps(store), embedder)
        vector = embedder.embed([Q.meaning_text(query)])[0]
        related = hybrid.related_words(parsed, embedder)
        words = index.ranked(parsed, "", "all", hybrid.SEMANTIC_CANDIDATES, related)
        meaning = index.similar(vector, parsed, "", "all", hybrid.SEMANTIC_CANDIDATES)
    return [name for name, _, _, _ in ranking.fuse_ranks(words, meaning)][:k]


def metrics(ranked: list[str], grades: dict[str, int]) -> tuple[float, float, float]:
    rr = next((1.0 / i for i, n in enumerate(ranked[:10], 1) if grades.get(n, 0) == 2), 0.0)
    dcg = sum((2 ** grades.get(n, 0) - 1) / math.log2(i + 1) for i, n in enumerate(ranked[:10], 1))
    ideal = sorted(grades.values(), reverse=True)[:10]
    idcg = sum((2**g - 1) / math.log2(i + 1) for i, g in enumerate(ideal, 1))
    answers = [n for n, g in grades.items() if g == 2]
    recall = sum(n in ranked[:5] for n in answers) / len(answers)
    return rr, dcg / idcg if idcg else 0.0, recall


def run() -> dict[str, Any]:
    queries = load_queries()
    today = today_module()
    folders: dict[str, tuple[str, dict[str, str]]] = {}
    for project in sorted({q.project for q in queries}):
        folders[project] = (project, folder_memories(project))
    padded = dict(folders["shopfront"][1])
    distractors, _ = generate(DISTRACTORS, seed=11)
    padded.update({f"notes/{name}": text for name, text in distractors.items()})
    folders[f"shopfront+{DISTRACTORS}"] = ("shopfront", padded)

    scores: dict[tuple[str, str, str, str], list[tuple[float, float, float]]] = defaultdict(list)
    sizes = {}
    found_for_nothing: dict[str, list[tuple[str, int]]] = {}
    said_no: dict[tuple[str, str], list[str]] = defaultdict(list)  # "no memory is specific"
    for label, (project, memories) in folders.items():
        sizes[label] = len(memories)
        work = Path(tempfile.mkdtemp(prefix="search-quality-"))
        try:
            folder = write_folder(work, memories)
            store = MemoryStore(folder, home=work / "home")
            old_store = MemoryStore(folder, home=work / "home-today")
            counter = Baseline(memories)
            for q in (q for q in queries if q.project == project):
                answer = hybrid.search_memories(store, q.text)
                runs = {
                    "word counting": counter.ranking(q.text),
                    "meaning only": meaning_only(store, q.text),
                    "hybrid, rank fusion": rank_fused(store, q.text),
                    "hybrid": [h.name for h in answer],
                }
                if getattr(answer, "unspecific", False):
                    said_no[(label, q.kind)].append(q.text)
                if today is not None:
                    runs["today"] = [h.name for h in today.search_memories(old_store, q.text)]
                for ranking, ranked in runs.items():
                    scores[(label, q.kind, ranking, q.half)].append(metrics(ranked, q.grades))
            found_for_nothing[label] = [
                (text, len(hits))
                for text in NOTHING
                if (hits := hybrid.search_memories(store, text))
                and not getattr(hits, "unspecific", False)
            ]
        finally:
            database.close_indexes()
            if today is not None:
                today.close_indexes()
            shutil.rmtree(work, ignore_errors=True)
    table = []
    for kind in ("subject", "known"):
        for ranking in RANKINGS:
            for scope, half in itertools.product(
                ("10-16 memories", f"{DISTRACTORS + 16} memories"), HALVES
            ):
                labels = [
                    lb for lb in folders if ("+" in lb) == scope.startswith(str(DISTRACTORS + 16))
                ]
                halves = ("tuning", "held-out") if half == "all" else (half,)
                rows = [
                    m
                    for lb in labels
                    for h in halves
                    for m in scores.get((lb, kind, ranking, h), [])
                ]
                if not rows:
                    continue
                table.append(
                    {
                        "queries": kind,
                        "folders": scope,
                        "half": half,
                        "ranking": ranking,
                        "n": len(rows),
                        "mrr@10": round(sum(r[0] for r in rows) / len(rows), 3),
                        "ndcg@10": round(sum(r[1] for r in rows) / len(rows), 3),
                        "recall@5": round(sum(r[2] for r in rows) / len(rows), 3),
                    }
                )
    told_no = {f"{label} {kind}": texts for (label, kind), texts in sorted(said_no.items())}
    return {"folders": sizes, "table": table, "nothing": found_for_nothing, "said_no": told_no}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = run()
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print("folders: " + ", ".join(f"{k} ({v})" for k, v in result["folders"].items()))
    print(
        f"{'queries':8} {'folders':15} {'half':9} {'ranking':19} {'n':>4} {'MRR@10':>7} "
        f"{'nDCG@10':>8} {'R@5':>6}"
    )
    for row in result["table"]:
        print(
            f"{row['queries']:8} {row['folders']:15} {row['half']:9} {row['ranking']:19} "
            f"{row['n']:>4} "
            f"{row['mrr@10']:>7.3f} {row['ndcg@10']:>8.3f} {row['recall@5']:>6.3f}"
        )
    print(
        f"questions about nothing ({len(NOTHING)}) that find a memory specific to them "
        "(not 'no memory is specific'), hybrid:"
    )
    for label, found in result["nothing"].items():
        shown = ", ".join(f'"{text}" ({count})' for text, count in found) or "none"
        print(f"  {label}: {len(found)}: {shown}")
    print("graded questions answered 'no memory is specific', hybrid:")
    for label, texts in result["said_no"].items():
        print(f"  {label}: {len(texts)}: " + ", ".join(f'"{t}"' for t in texts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
