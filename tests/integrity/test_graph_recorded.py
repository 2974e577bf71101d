"""The graph's mermaid export and topic maps of generated folders, compared byte for byte
with the output recorded in ``graph_recorded.json``: a change in how they are computed
must not change what a reader sees.

Record again (only when the output is meant to change) with
``python tests/integrity/test_graph_recorded.py``."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from serena_memory.core.store import Context, MemoryStore
from serena_memory.integrity.references.links import build_graph
from serena_memory.wiring import build_store

RECORDED = Path(__file__).with_name("graph_recorded.json")
SEEDS = (1, 2, 3, 4)
TOPICS = ("", "auth", "auth/tokens", "payments", "payments/deep", "ops")


def _folder(seed: int, root: Path) -> MemoryStore:
    """A project of some 40 memories in nested topics referencing each other, with
    missing, ignored, read-only, not-UTF-8 and global memories; the last seed's has no
    `core`, nothing ignored and nothing unreadable."""
    rng = random.Random(seed)
    project, home = root / "project", root / "home"
    config = project / ".serena" / "project.yml"
    config.parent.mkdir(parents=True)
    config.write_text(
        'ignored_memory_patterns: ["_archive/.*"]\nread_only_memory_patterns: ["ops/.*"]\n',
        encoding="utf-8",
    )
    store = build_store(project, home=home, context=Context.HUMAN)
    plain = seed == SEEDS[-1]
    names = ["memory_maintenance"] if plain else ["core", "memory_maintenance"]
    for i in range(rng.randint(25, 40)):
        topic = rng.choice(TOPICS)
        names.append(f"{topic}/m{i}" if topic else f"note_{i}")
    targets = [*names, "gone", "auth/missing", "global/shared"]
    targets += [] if plain else ["_archive/old"]
    texts: dict[str, str] = {}
    for name in names:
        refs = rng.sample(targets, rng.randint(0, 5))
        refs += rng.sample(refs, min(len(refs), rng.randint(0, 2)))  # some twice
        texts[name] = "".join(f"See `mem:{t}`.\n" for t in refs) or "Nothing here.\n"
    texts["memory_maintenance"] = "Examples `mem:example` are not edges.\n"
    for name, text in texts.items():
        path = store.layout.memories_dir / f"{name}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    store.write("global/shared", "Shared: `mem:core` and `mem:global/elsewhere`.\n")
    if plain:
        return store
    archived = store.layout.memories_dir / "_archive" / "old.md"
    archived.parent.mkdir(parents=True, exist_ok=True)
    archived.write_text("`mem:core`\n", encoding="utf-8")
    broken = store.layout.memories_dir / "payments" / f"latin_{seed}.md"
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_bytes(b"caf\xe9 `mem:core`\n")
    return store


def _views(seed: int, root: Path) -> dict[str, str]:
    graph = build_graph(_folder(seed, root))
    views = {"mermaid": graph.export("mermaid")}
    for topic in ("", "auth", "payments", "global", "nowhere"):
        views[f"topics:{topic}"] = json.dumps(graph.topic_map(topic), indent=1, sort_keys=True)
    return views


@pytest.mark.parametrize("seed", SEEDS)
def test_mermaid_and_topic_maps_are_the_recorded_ones(seed: int, tmp_path: Path) -> None:
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))[str(seed)]
    assert _views(seed, tmp_path) == recorded


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        out = {str(s): _views(s, Path(tmp) / str(s)) for s in SEEDS}
    RECORDED.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    sys.exit(0)
