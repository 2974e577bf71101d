"""The MCP reference memory server's knowledge graph (``memory.jsonl``): one JSON object
a line, an entity (name, type, observations) or a relation (from, type, to).

Each entity becomes ``TOPIC/<name>``: its type, its observations as a list, and its
relations as references to the other entities' memories. A line that is neither is kept
as written in ``TOPIC/other_records``, so nothing is lost.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from serena_memory.transfer.plan import ImportPlan, numbered_free, reference
from serena_memory.transfer.sources import Progress, Reach, SourceError, SourceFolder, slug

MAX_RECORDS = 20_000


def plan_mcp_memory(
    path: str | Path, topic: str, progress: Progress | None = None, reach: Reach | None = None
) -> ImportPlan:
    given = Path(path).expanduser()
    if given.is_dir():
        given = given / "memory.jsonl"
    folder = SourceFolder(given.parent, progress, reach)
    text = folder.read(given)
    plan = ImportPlan("mcp-memory-jsonl", str(given))
    lines = text.splitlines()
    if len(lines) > MAX_RECORDS:
        raise SourceError(f"{given.name} has more than {MAX_RECORDS} records; split it")
    graph = _Graph()
    for number, line in enumerate(lines, 1):
        if line.strip():
            graph.add(line, _record(line, number, given.name))
    names = _entity_names(graph.entities, topic)
    for entity in graph.entities:
        plan.add(names[entity], graph.entity_text(entity, names), f"{given.name}: entity {entity}")
    kept = graph.other_records()
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


def _record(line: str, number: int, file_name: str) -> Any:
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        raise SourceError(
            f"{file_name} line {number} is not a JSON object; fix or remove that line"
        ) from None


@dataclass
class _Graph:
    """The knowledge graph read so far: entities, relations, and the other lines."""

    entities: dict[str, tuple[list[str], list[str]]] = field(default_factory=dict)
    relations: list[tuple[str, str, str]] = field(default_factory=list)  # (from, type, to)
    other: list[str] = field(default_factory=list)  # lines as written
    _by_entity: dict[str, list[tuple[str, str, str]]] | None = field(default=None, repr=False)

    def add(self, line: str, record: Any) -> None:
        """One record: an entity (its types and observations add up), a relation, or a
        line kept as written."""
        kind = record.get("type") if isinstance(record, dict) else None
        if kind == "entity" and isinstance(record.get("name"), str):
            types, seen = self.entities.setdefault(record["name"], ([], []))
            if isinstance(record.get("entityType"), str):
                types.append(record["entityType"])
            observations = record.get("observations")
            if isinstance(observations, list):
                seen.extend(str(o) for o in observations)
        elif kind == "relation" and all(
            isinstance(record.get(k), str) for k in ("from", "to", "relationType")
        ):
            self.relations.append((record["from"], record["relationType"], record["to"]))
        else:
            self.other.append(line)

    def entity_text(self, entity: str, names: dict[str, str]) -> str:
        """An entity's memory: its types, observations and relations (referencing the
        other entities' memories)."""
        types, observations = self.entities[entity]
        out = [f"# {entity}\n"]
        if types:
            out.append(f"\nType: {', '.join(dict.fromkeys(types))}\n")
        if observations:
            out.append("\nObservations:\n")
            out.extend(f"- {o}\n" for o in observations)
        related = self.related(entity)
        if related:
            out.append("\nRelations:\n")
            for source, relation, target in related:
                known = [names[e] for e in (source, target) if e in names and e != entity]
                refs = f" ({', '.join(reference(k) for k in known)})" if known else ""
                out.append(f"- {source} {relation} {target}{refs}\n")
        return "".join(out)

    def related(self, entity: str) -> list[tuple[str, str, str]]:
        """The relations from or to ``entity``, in the order of the file (indexed once, so
        a graph of thousands of entities and relations is read in linear time)."""
        if self._by_entity is None:
            self._by_entity = {}
            for relation in self.relations:
                for end in dict.fromkeys((relation[0], relation[2])):
                    self._by_entity.setdefault(end, []).append(relation)
        return self._by_entity.get(entity, [])

    def other_records(self) -> list[str]:
        """The lines that are no entity, then the relations between no known entities."""
        dangling = [
            r for r in self.relations if r[0] not in self.entities and r[2] not in self.entities
        ]
        return self.other + [
            json.dumps({"type": "relation", "from": a, "relationType": b, "to": c})
            for a, b, c in dangling
        ]


def _entity_names(entities: Iterable[str], topic: str) -> dict[str, str]:
    """Each entity's memory name, ``TOPIC/<slug>``, numbered when slugs collide (each
    entity slugged once, the numbering going on where the last probe stopped)."""
    names: dict[str, str] = {}
    used: set[str] = set()
    numbered: dict[str, int] = {}
    for entity in entities:
        name = numbered_free(f"{topic}/{slug(entity, 'entity')}", used, numbered)
        used.add(name)
        names[entity] = name
    return names
