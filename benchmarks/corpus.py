"""Deterministic generator of memory corpora for benchmarks and differential tests.

A corpus looks like what an agent writes after onboarding a large project: `core`,
`tech_stack` and friends at the top, topics (some with sub-topics) each with a
`TOPIC/core`, 8 to 40 lines of dense notes per memory, `mem:` references (mostly in
backticks, some not), stale references produced by the mistakes people actually make
(typos, topic moves, `_v2`/`_old` suffixes, hyphen for underscore, camelCase, plurals,
reordered or dropped words), bare mentions of existing names and near-miss tokens.
Around 4 KB per memory: 1,000 memories are about 4 MB, 10,000 about 40 MB.

Usage: ``python benchmarks/corpus.py DIR --count N --seed S [--home H]`` writes the
project memories below ``DIR/.serena/memories`` (and, with ``--home``, some global ones
below ``H/memories/global``). The same count and seed always give the same files.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

FLAT_NAMES = [
    "core",
    "tech_stack",
    "suggested_commands",
    "conventions",
    "task_completion",
    "style",
    "glossary",
    "architecture",
    "release_process",
    "api",
]

TOPICS = [
    "auth", "api", "billing", "frontend", "backend", "db", "deploy", "ci", "search",
    "cache", "payments", "notifications", "analytics", "infra", "mobile", "docs",
    "testing", "security", "storage", "queue", "reporting", "admin", "integrations",
    "observability",
]  # fmt: skip

SUBTOPICS = [
    "grid", "forms", "routing", "workers", "schema", "webhooks", "tokens", "jobs",
    "exports", "metrics", "alerts", "builds",
]  # fmt: skip

NAME_WORDS = [
    "login", "session", "handling", "token", "refresh", "layout", "grid", "schema",
    "migration", "rate", "limiter", "retry", "policy", "webhook", "invoice", "ledger",
    "refund", "checkout", "render", "hydration", "bundle", "pipeline", "runner", "secret",
    "rotation", "index", "ranking", "query", "eviction", "warmup", "fanout", "template",
    "digest", "dashboard", "funnel", "cluster", "network", "gateway", "offline", "sync",
    "changelog", "fixture", "flaky", "permission", "audit", "bucket", "upload",
    "dead_letter", "backoff", "consumer", "producer", "export", "import", "tenant", "role",
    "feature", "flag", "error", "timeout", "quota", "billing", "contract", "mapping",
    "parser", "validator", "serializer", "cursor", "pagination", "locale", "theme",
    "accessibility", "release", "rollback", "canary", "replica", "backup", "vacuum",
    "trigger", "scheduler", "tracing", "sampling", "budget",
]  # fmt: skip

PROSE_WORDS = [
    "the", "a", "an", "and", "or", "but", "if", "when", "then", "before", "after", "with",
    "without", "for", "from", "into", "onto", "of", "to", "in", "on", "at", "by", "via", "per",
    "is", "are", "was", "be", "been", "keep", "use", "used", "uses", "run", "runs", "read",
    "write", "check", "add", "remove", "update", "change", "move", "split", "merge", "call",
    "calls", "return", "returns", "value", "values", "file", "files", "path", "paths", "test",
    "tests", "build", "builds", "command", "commands", "module", "modules", "class", "function",
    "method", "field", "fields", "table", "tables", "column", "row", "rows", "request",
    "response", "client", "server", "user", "users", "admin", "service", "services", "job",
    "jobs", "queue", "event", "events", "error", "errors", "log", "logs", "cache", "key",
    "keys", "token", "tokens", "config", "setting", "settings", "default", "defaults", "option",
    "options", "flag", "flags", "version", "versions", "branch", "commit", "release", "deploy",
    "step", "steps", "order", "always", "never", "only", "first", "last", "next", "same",
    "other", "each", "every", "all", "some", "most", "this", "that", "these", "those", "it",
    "its", "they", "their", "we", "our", "you", "your", "one", "two", "three", "small", "large",
    "fast", "slow", "safe", "unsafe", "stable", "old", "new", "configuration", "implementation",
    "dependencies", "environment", "performance", "integration", "deployment", "authentication",
    "authorization", "serialization", "documentation", "compatibility", "migrations",
    "invariant", "invariants", "transaction", "transactions", "concurrency", "idempotent",
    "idempotency", "background", "foreground", "timestamps", "environment_variables",
    "connection_pool", "feature_flags", "rate_limits", "CHANGELOG.md", "pyproject.toml",
    "Makefile", "docker-compose.yml", "conftest.py", "style", "core", "api", "`pytest -q`",
    "`make lint`", "`npm run build`", "`alembic upgrade head`",
]  # fmt: skip

WHEN_PHRASES = [
    "before changing {x}",
    "when a test about {x} fails",
    "before touching {x}",
    "when adding a new {x}",
    "if {x} behaves oddly",
    "for the reasons behind {x}",
    "when debugging {x}",
]

STALE_KINDS = [
    "typo",
    "topic_move",
    "drop_topic",
    "add_topic",
    "suffix",
    "hyphen",
    "camel",
    "plural",
    "reorder",
    "drop_word",
    "add_word",
    "unknown",
]


def _join(words: list[str], style: str) -> str:
    parts: list[str] = []
    for w in words:
        parts.extend(w.split("_"))
    if style == "kebab":
        return "-".join(parts)
    if style == "camel":
        return parts[0] + "".join(p.capitalize() for p in parts[1:])
    return "_".join(parts)


def generate_names(count: int, rng: random.Random, global_fraction: float = 0.0) -> list[str]:
    """``count`` distinct memory names: the usual flat ones, topic cores, then topic memories."""
    names: list[str] = []
    seen: set[str] = set()

    def add(name: str) -> None:
        if name not in seen and len(names) < count:
            seen.add(name)
            names.append(name)

    for name in FLAT_NAMES:
        add(name)
    topics = TOPICS[: max(2, min(len(TOPICS), count // 8))]
    for topic in topics:
        add(f"{topic}/core")
    n_global = int(count * global_fraction)
    attempts = 0
    while len(names) < count:
        attempts += 1
        k = rng.choices([1, 2, 3], weights=[3, 5, 2])[0]
        words = rng.sample(NAME_WORDS, k)
        style = rng.choices(["snake", "kebab", "camel"], weights=[8, 1, 1])[0]
        base = _join(words, style)
        if attempts > count * 50:  # tiny vocabularies: disambiguate with a number
            base += f"_{attempts}"
        topic = rng.choice(topics)
        if rng.random() < 0.25:
            topic += "/" + rng.choice(SUBTOPICS)
        if n_global and rng.random() < global_fraction * 2 and n_global > 0:
            topic = "global/" + topic.split("/")[0]
            n_global -= 1
        add(f"{topic}/{base}")
    return names


def _words_of(name: str) -> list[str]:
    return [p for p in re.split(r"[/_\-]|(?<=[a-z])(?=[A-Z])", name) if p]


def mutate(name: str, kind: str, rng: random.Random, topics: list[str]) -> str:
    """A stale spelling of ``name``: the kind of mistake ``kind`` names."""
    topic, _, base = name.rpartition("/")
    if kind == "typo":
        i = rng.randrange(max(1, len(base) - 1))
        op = rng.choice(["drop", "swap", "double"])
        if op == "drop" and len(base) > 4:
            base = base[:i] + base[i + 1 :]
        elif op == "swap" and len(base) > 2:
            base = base[:i] + base[i + 1] + base[i] + base[i + 2 :]
        else:
            base = base[:i] + base[i] + base[i:]
    elif kind == "topic_move":
        topic = rng.choice([t for t in topics if t != topic] or ["misc"])
    elif kind == "drop_topic":
        topic = ""
    elif kind == "add_topic":
        topic = (topic + "/" if topic else "") + rng.choice(SUBTOPICS)
    elif kind == "suffix":
        base += rng.choice(["_v2", "_old", "_legacy", "_v1", "_new"])
    elif kind == "hyphen":
        base = base.replace("_", "-") if "_" in base else base.replace("-", "_") + "-x"
    elif kind == "camel":
        words = _words_of(base)
        base = _join(words, "camel") if "_" in base or "-" in base else "_".join(words).lower()
    elif kind == "plural":
        base = base[:-1] if base.endswith("s") else base + "s"
    elif kind == "reorder":
        words = _words_of(base)
        base = "_".join(reversed(words)) if len(words) > 1 else base + "_" + base
    elif kind == "drop_word":
        words = _words_of(base)
        base = "_".join(words[1:]) if len(words) > 1 else base + "_notes"
    elif kind == "add_word":
        base = base + "_" + rng.choice(["notes", "details", "flow", "rules", "setup"])
    else:  # unknown: nothing like any memory
        return "_".join(rng.sample(["zebra", "quartz", "nebula", "walrus", "tundra"], 2))
    return f"{topic}/{base}" if topic else base


class _Prose:
    """A pool of sentences, so that 40 MB are generated in seconds, not minutes."""

    def __init__(self, rng: random.Random, size: int = 4000) -> None:
        self.pool = []
        for _ in range(size):
            words = rng.choices(PROSE_WORDS, k=rng.randint(9, 18))
            words[0] = words[0].capitalize()
            self.pool.append(" ".join(words) + ".")
        self.rng = rng

    def line(self) -> str:
        return " ".join(self.rng.choices(self.pool, k=self.rng.choice((1, 2, 2, 3))))


def generate_corpus(
    count: int,
    seed: int = 1,
    global_fraction: float = 0.0,
    stale_rate: float = 0.35,
    line_range: tuple[int, int] = (8, 40),
) -> dict[str, str]:
    """``{name: markdown}`` for ``count`` memories; deterministic for a given seed."""
    rng = random.Random(seed)
    names = generate_names(count, rng, global_fraction)
    prose = _Prose(rng)
    topics = sorted({n.split("/")[0] for n in names if "/" in n and not n.startswith("global/")})
    by_topic: dict[str, list[str]] = {}
    for name in names:
        by_topic.setdefault(name.rpartition("/")[0], []).append(name)
    existing = set(names)
    long_names = [n for n in names if "/" in n or len(n) >= 10]
    memories: dict[str, str] = {}
    for name in names:
        topic = name.rpartition("/")[0]
        lines = [f"# {name}", ""]
        target_lines = rng.randint(*line_range)
        inserts: list[str] = []
        # references: the topic's core and siblings, the entry point fans out to topic cores
        if name == "core":
            for t in topics[:40]:
                inserts.append(f"- `mem:{t}/core`: read {rng.choice(WHEN_PHRASES).format(x=t)}.")
            inserts.append("- commands: `mem:suggested_commands`; stack: `mem:tech_stack`.")
        elif name.endswith("/core"):
            siblings = [n for n in by_topic.get(topic, []) if n != name]
            for sib in rng.sample(siblings, min(len(siblings), rng.randint(3, 8))):
                when = rng.choice(WHEN_PHRASES).format(x=sib.rpartition("/")[2])
                inserts.append(f"- `mem:{sib}`: read {when}.")
        for _ in range(rng.randint(1, 4)):
            target = rng.choice(names)
            if target == name:
                continue
            when = rng.choice(WHEN_PHRASES).format(x=target.rpartition("/")[2])
            if rng.random() < 0.85:
                inserts.append(f"Read `mem:{target}` {when}.")
            else:
                inserts.append(f"See mem:{target} ({when}).")
        if rng.random() < stale_rate:
            victim = rng.choice(names)
            stale = mutate(victim, rng.choice(STALE_KINDS), rng, topics)
            if stale not in existing:
                inserts.append(f"Details moved: `mem:{stale}`.")
        if rng.random() < 0.5:
            for _ in range(rng.randint(1, 2)):
                mention = rng.choice(long_names if rng.random() < 0.7 else FLAT_NAMES)
                inserts.append(f"Related: {mention}, mentioned without a prefix.")
        if long_names and rng.random() < 0.12:
            near = rng.choice(long_names)
            variant = near.replace("/", "-").replace("_", "-")
            if variant != near and variant not in existing:
                inserts.append(f"Also compare {variant} here.")
        if rng.random() < 0.05:
            inserts.append(
                rng.choice(
                    [
                        "Paths: `mem:auth/` and mem:core.md and xmem:core are edge cases.",
                        "Quoted 'mem:tech_stack', (mem:conventions), end mem:style.",
                        "A bare `tech_stack` in backticks and core/ and /style.",
                    ]
                )
            )
        body = [prose.line() for _ in range(max(0, target_lines - len(inserts) - 2))]
        for text in inserts:
            body.insert(rng.randint(0, len(body)), text)
        lines.extend(body)
        memories[name] = "\n".join(lines) + "\n"
    return memories


def write_corpus(project: Path, memories: dict[str, str], home: Path | None = None) -> int:
    """Write the memories as files; global ones only when ``home`` is given. Returns bytes."""
    total = 0
    roots = {
        False: project / ".serena" / "memories",
        True: (home / "memories" / "global") if home else None,
    }
    made: set[Path] = set()
    for name, text in memories.items():
        is_global = name.startswith("global/")
        root = roots[is_global]
        if root is None:
            continue
        rel = name[len("global/") :] if is_global else name
        path = root / (rel + ".md")
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        data = text.encode("utf-8")
        path.write_bytes(data)
        total += len(data)
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path, help="project folder to fill")
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--home", type=Path, default=None, help="SERENA_HOME for global ones")
    parser.add_argument("--global-fraction", type=float, default=0.0)
    args = parser.parse_args(argv)
    fraction = args.global_fraction if args.home else 0.0
    memories = generate_corpus(args.count, args.seed, global_fraction=fraction)
    size = write_corpus(args.dir, memories, args.home)
    print(f"wrote {len(memories)} memories, {size / 1e6:.1f} MB, into {args.dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
