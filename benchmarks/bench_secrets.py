"""The secret gate's cost on a write: median time of `MemoryStore.write` of corpus-sized
memories with the scan and without it (the gate replaced by nothing), in one process.

Usage: ``python benchmarks/bench_secrets.py [--runs N]``
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from corpus import generate_corpus

from serena_memory.core import secrets
from serena_memory.core.store import MemoryStore
from serena_memory.wiring import build_store


def timed(store: MemoryStore, texts: list[str]) -> tuple[float, float]:
    """(p50 with the scan, p50 without), each memory replaced once each way, alternately,
    so both see the same files and the same history size."""
    with_scan, without = [], []
    check = secrets.check_all
    for i, text in enumerate(texts):
        start = time.perf_counter()
        store.write(f"bench/m{i}", text + "\nwith\n")
        with_scan.append(time.perf_counter() - start)
        secrets.check_all = lambda texts, person: None  # type: ignore[assignment]
        try:
            start = time.perf_counter()
            store.write(f"bench/m{i}", text + "\nwithout\n")
            without.append(time.perf_counter() - start)
        finally:
            secrets.check_all = check
    return statistics.median(with_scan), statistics.median(without)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    corpus = generate_corpus(args.runs, 3)
    texts = list(corpus.values()) if isinstance(corpus, dict) else [t for _, t in corpus]
    with tempfile.TemporaryDirectory() as tmp:
        project, home = Path(tmp) / "p", Path(tmp) / "h"
        project.mkdir()
        store = build_store(project, home=home)
        secrets.scan("warm up")  # the scanner is imported on the first write
        for i, text in enumerate(texts):
            store.write(f"bench/m{i}", text)
        with_scan, without = timed(store, texts)
    mean = sum(map(len, texts)) / len(texts)
    print(f"{len(texts)} writes of {mean:.0f} characters on average")
    print(
        f"p50 with the scan {with_scan * 1e3:.2f} ms, without {without * 1e3:.2f} ms, "
        f"difference {(with_scan - without) * 1e3:.2f} ms (limit 5 ms)"
    )


if __name__ == "__main__":
    main()
