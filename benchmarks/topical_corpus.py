"""Deterministic generator of memories with real topical text, and queries labeled with
the memory each one is meant to find: the ground truth of the search benchmark.

Each memory is about one subject of one area of a project (billing, auth, deploy...):
its name, headings and sentences use that area's vocabulary, a few subject words of its
own, and the names of the concrete things it is about (a service, a setting, an error
code). Sentences share a common stock of wording, as notes of one team do, so words alone
don't give a memory away. About 4 KB per memory.

Queries are of two kinds:

- known-item: a distinctive heading or phrase of one memory, as an agent that half
  remembers a note would type it;
- subject: a question in other words, built from the memory's subject and the things it
  names, e.g. "how are refunds retried for the ledger-sync worker".
"""

from __future__ import annotations

import random
from typing import NamedTuple

_AREA_WORDS = {
    "billing": "invoice refund ledger proration chargeback subscription plan "
    "coupon tax vat receipt payout dunning currency",
    "auth": "login session token password oauth saml "
    "mfa cookie role permission lockout scope consent",
    "deploy": "release rollout canary rollback helm cluster "
    "manifest artifact pipeline blue green freeze hotfix",
    "db": "migration index schema replica vacuum transaction "
    "deadlock constraint partition backup restore query",
    "search": "ranking indexer synonym tokenizer relevance facet "
    "autocomplete shard analyzer boost typo recall",
    "frontend": "component hydration bundle router layout theme "
    "accessibility form modal tooltip animation locale",
    "queue": "consumer producer topic partition offset retry "
    "backoff deadletter ordering idempotency batch ack",
    "observability": "metric trace span alert dashboard sampling "
    "logger cardinality slo pager incident histogram",
    "storage": "bucket upload multipart thumbnail lifecycle retention "
    "encryption signed url quota checksum archive",
    "mobile": "push notification offline sync deeplink crash "
    "build signing store review permission battery",
    "security": "secret rotation vault audit scanner cve sandbox csp cors firewall pentest key",
    "testing": "fixture flaky snapshot mock coverage e2e "
    "contract fuzz seed parallel timeout golden",
    "api": "endpoint pagination versioning ratelimit webhook schema "
    "openapi cursor deprecation header client sdk",
    "analytics": "funnel cohort event warehouse etl retention "
    "attribution experiment segment export dashboard metric",
    "infra": "terraform network vpc dns certificate loadbalancer "
    "autoscaling node cost region bastion ingress",
    "email": "template bounce unsubscribe digest smtp spam "
    "dkim campaign preview localization queue throttle",
}
AREAS: dict[str, list[str]] = {area: text.split() for area, text in _AREA_WORDS.items()}

THINGS = [
    "ledger-sync", "kestrel", "orca-gateway", "harbor", "lumen", "quill", "nimbus", "sparrow",
    "atlas-worker", "ember", "pylon", "tern", "vesper", "cobalt", "juniper", "marlin",
    "osprey", "pika", "raven", "sable", "tundra", "umbra", "wren", "yarrow", "zephyr",
]  # fmt: skip

SETTINGS = [
    "MAX_RETRIES", "BATCH_SIZE", "TOKEN_TTL", "LOCK_TIMEOUT", "POOL_SIZE", "GRACE_PERIOD",
    "SAMPLE_RATE", "PAGE_LIMIT", "CACHE_TTL", "WINDOW_SECONDS", "QUEUE_DEPTH", "MAX_PARTS",
]  # fmt: skip

VERBS = [
    "retry", "skip", "cache", "validate", "reject", "split", "merge", "sign", "throttle",
    "replay", "drain", "pin", "shard", "expire", "backfill", "reconcile", "debounce",
]  # fmt: skip

HEADING_TEMPLATES = [
    "How {thing} handles {w1} {w2}",
    "Why we {verb} {w1} before {w2}",
    "{W1} and {w2} in {thing}",
    "When {w1} {verb}s fail",
    "Known pitfalls of {w1} {w2}",
    "{W1} {w2}: the rules",
    "Tuning {setting} for {w1}",
    "Debugging {w1} with {thing}",
]

SENTENCE_TEMPLATES = [
    "The {thing} service will {verb} every {w1} when the {w2} is stale.",
    "Never {verb} a {w1} inside a {w2} transaction; it deadlocks under load.",
    "{setting} defaults to {n}; raise it only when {w1} traffic spikes.",
    "We {verb} {w1} records nightly so {w2} reports stay consistent.",
    "A {w1} without a {w2} is rejected with error E{code}.",
    "If {thing} logs E{code}, check the {w1} first and then the {w2}.",
    "The {w1} path goes through {thing}, which owns the {w2} state.",
    "Tests for {w1} use the {w2} fixture and run in under {n} seconds.",
    "Changing {setting} needs a restart of {thing} and a note in the changelog.",
    "Old {w1} rows are kept for {n} days because of {w2} audits.",
]

FILLER = [
    "Keep this note short and update it when the behaviour changes.",
    "Ask the team channel before changing this in production.",
    "The rest of the module follows the usual conventions.",
    "See the code comments for the historical reasons.",
    "This was decided in the architecture review last year.",
    "Most of the time nothing here needs attention.",
    "Read the tests before refactoring this part.",
    "The defaults are safe for local development.",
]


class Query(NamedTuple):
    text: str
    target: str
    kind: str  # 'known-item' or 'subject'


def _fill(template: str, rng: random.Random, words: list[str], thing: str) -> str:
    w1, w2 = rng.sample(words, 2)
    return template.format(
        thing=thing,
        w1=w1,
        w2=w2,
        W1=w1.capitalize(),
        verb=rng.choice(VERBS),
        setting=rng.choice(SETTINGS),
        n=rng.randint(2, 500),
        code=rng.randint(1000, 9999),
    )


def generate(count: int, seed: int = 7) -> tuple[dict[str, str], list[Query]]:
    """``count`` memories ``{name: markdown}`` and the labeled queries for them."""
    rng = random.Random(seed)
    memories: dict[str, str] = {}
    facts: dict[str, tuple[list[str], str, list[str]]] = {}
    areas = list(AREAS)
    while len(memories) < count:
        area = rng.choice(areas)
        vocab = AREAS[area]
        subject = rng.sample(vocab, 2)
        thing = rng.choice(THINGS)
        name = f"{area}/{subject[0]}_{subject[1]}"
        if name in memories:
            name = f"{area}/{thing.replace('-', '_')}/{subject[0]}_{subject[1]}"
        if name in memories:
            continue
        words = subject * 3 + rng.sample(vocab, 4)  # the subject words dominate
        lines = [f"# {subject[0].capitalize()} {subject[1]} in {area}", ""]
        headings = []
        for _ in range(rng.randint(2, 4)):
            heading = _fill(rng.choice(HEADING_TEMPLATES), rng, words, thing)
            headings.append(heading)
            lines.append(f"## {heading}")
            for _ in range(rng.randint(3, 7)):
                sentences = [
                    _fill(rng.choice(SENTENCE_TEMPLATES), rng, words, thing)
                    if rng.random() < 0.6
                    else rng.choice(FILLER)
                    for _ in range(rng.randint(1, 3))
                ]
                lines.append(" ".join(sentences))
            lines.append("")
        memories[name] = "\n".join(lines) + "\n"
        facts[name] = (subject, thing, headings)
    queries: list[Query] = []
    for name in sorted(memories):
        subject, thing, headings = facts[name]
        heading = rng.choice(headings)
        queries.append(Query(heading.lower(), name, "known-item"))
        area = name.split("/")[0]
        question = rng.choice(
            [
                "how does {thing} deal with {a} {b}",
                "{a} {b} rules for {area}",
                "what breaks when {b} {a} fails in {thing}",
                "notes on {area} {a} and {b}",
            ]
        ).format(thing=thing, a=subject[0], b=subject[1], area=area)
        queries.append(Query(question, name, "subject"))
    return memories, queries
