"""The MCP reference memory server's knowledge graph (``memory.jsonl``): one JSON object
a line, an entity (name, type, observations) or a relation (from, type, to).

Each entity becomes ``TOPIC/<name>``: its type, its observations as a list, and its
relations as references to the other entities' memories. A line that is neither is kept
as written in ``TOPIC/other_records``, so nothing is lost.
"""

from __future__ import annotations

import json
from pathlib import Path

from serena_memory.transfer.plan import ImportPlan, reference
from serena_memory.transfer.sources import Progress, SourceError, SourceFolder, slug

MAX_RECORDS = 20_000


def plan_mcp_memory(path: str | Path, topic: str, progress: Progress | None = None) -> ImportPlan:
    given = Path(path).expanduser()
    if given.is_dir():
        given = given / "memory.jsonl"
    folder = SourceFolder(given.parent, progress)
    text = folder.read(given)
    plan = ImportPlan("mcp-memory-jsonl", str(given))
    entities: dict[str, tuple[list[str], list[str]]] = {}  # name -> (types, observations)
    relations: list[tuple[str, str, str]] = []
    other: list[str] = []
    lines = text.splitlines()
    if len(lines) > MAX_RECORDS:
        raise SourceError(f"{given.name} has more than {MAX_RECORDS} records; split it")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            raise SourceError(
                f"{given.name} line {number} is not a JSON object; fix or remove that line"
            ) from None
        kind = record.get("type") if isinstance(record, dict) else None
        if kind == "entity" and isinstance(record.get("name"), str):
            types, seen = entities.setdefault(record["name"], ([], []))
            if isinstance(record.get("entityType"), str):
                types.append(record["entityType"])
            observations = record.get("observations")
            if isinstance(observations, list):
                seen.extend(str(o) for o in observations)
        elif kind == "relation" and all(
            isinstance(record.get(k), str) for k in ("from", "to", "relationType")
        ):
            relations.append((record["from"], record["relationType"], record["to"]))
        else:
            other.append(line)
    names: dict[str, str] = {}
    used: set[str] = set()
    for entity in list(entities):
        name = f"{topic}/{slug(entity, 'entity')}"
        n = 1
        while name in used:
            n += 1
            name = f"{topic}/{slug(entity, 'entity')}-{n}"
        used.add(name)
        names[entity] = name
    for entity, (types, observations) in entities.items():
        out = [f"# {entity}\n"]
        if types:
            out.append(f"\nType: {', '.join(dict.fromkeys(types))}\n")
        if observations:
            out.append("\nObservations:\n")
            out.extend(f"- {o}\n" for o in observations)
        related = [r for r in relations if entity in (r[0], r[2])]
        if related:
            out.append("\nRelations:\n")
            for source, relation, target in related:
                known = [names[e] for e in (source, target) if e in names and e != entity]
                refs = f" ({', '.join(reference(k) for k in known)})" if known else ""
                out.append(f"- {source} {relation} {target}{refs}\n")
        plan.add(names[entity], "".join(out), f"{given.name}: entity {entity}")
    dangling = [r for r in relations if r[0] not in entities and r[2] not in entities]
    kept = other + [
        json.dumps({"type": "relation", "from": a, "relationType": b, "to": c})
        for a, b, c in dangling
    ]
    if kept:
        plan.add(
            f"{topic}/other_records",
            "Records of memory.jsonl that are no entity (kept as written):\n\n```json\n"
            + "".join(k + "\n" for k in kept)
            + "```\n",
            f"{given.name}: other records",
        )
    if not plan.memories:
        raise SourceError(f"{given.name} holds no entities or relations")
    return plan
