"""The reference graph of the memories: who points to whom, what is stale, what `mem:core`
reaches; exported as Mermaid, Graphviz DOT, GraphML or JSON.

Nodes are the non-ignored memories plus every missing target (marked ``missing``) and
every ignored memory that something points to (marked ``ignored``). A memory that is not
valid UTF-8 is a node marked ``unreadable``: its own references can't be read, so it has
no outgoing edges, and everything else is drawn as usual. Edges carry the
number of references; an edge to a missing or ignored target is ``broken``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from serena_memory.core.names import is_global
from serena_memory.integrity.listing import MAINTENANCE_NAMES
from serena_memory.integrity.references.analysis import IntegrityAnalyzer
from serena_memory.integrity.references.check_report import ENTRY_POINT

FORMATS = ("mermaid", "dot", "graphml", "json")


@dataclass(frozen=True)
class Node:
    name: str
    read_only: bool = False
    missing: bool = False
    ignored: bool = False
    reachable: bool = False
    unreadable: bool = False  # not valid UTF-8: its references are unknown

    @property
    def is_global(self) -> bool:
        return is_global(self.name)

    @property
    def exists(self) -> bool:
        return not (self.missing or self.ignored)

    @property
    def unreached(self) -> bool:
        """An existing project memory `mem:core` does not lead to (the maintenance memory
        and the global memories, shared by every project, never count)."""
        return (
            self.exists
            and not self.reachable
            and self.name not in MAINTENANCE_NAMES
            and not self.is_global
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "read_only": self.read_only,
            "global": self.is_global,
            "missing": self.missing,
            "ignored": self.ignored,
            "reachable": self.reachable,
            "unreadable": self.unreadable,
        }


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    count: int
    broken: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "target": self.target,
            "count": self.count,
            "broken": self.broken,
        }


@dataclass
class MemoryGraph:
    nodes: list[Node]
    edges: list[Edge]
    entry_point: str | None
    _index_cache: tuple | None = field(default=None, init=False, repr=False, compare=False)
    _views: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def from_analyzer(cls, analyzer: IntegrityAnalyzer) -> MemoryGraph:
        reached = analyzer.reachable()
        edges = []
        missing: set[str] = set()
        ignored: set[str] = set()
        for source, targets in sorted(analyzer.edges().items()):
            for target in sorted(targets):
                broken = target not in analyzer.existing
                if broken:
                    (ignored if target in analyzer.ignored else missing).add(target)
                edges.append(Edge(source, target, targets[target], broken))
        unreadable = set(analyzer.unreadable)
        nodes = [
            Node(
                n,
                read_only=n in analyzer.read_only,
                reachable=n in reached,
                unreadable=n in unreadable,
            )
            for n in analyzer.names
        ]
        nodes += [Node(n, missing=True) for n in sorted(missing)]
        nodes += [Node(n, ignored=True) for n in sorted(ignored)]
        entry = ENTRY_POINT if ENTRY_POINT in analyzer.existing else None
        return cls(nodes, edges, entry)

    def to_dict(self) -> dict[str, Any]:
        return {
            "entry_point": self.entry_point,
            "nodes": [n.to_dict() for n in self.nodes],
            "edges": [e.to_dict() for e in self.edges],
        }

    # -- views for a reader: a memory's surroundings, topics, a filtered whole ----------------
    def _index(self) -> tuple[dict[str, Node], dict[str, list[Edge]], dict[str, list[Edge]]]:
        index = self._index_cache
        if index is None:
            by_name = {n.name: n for n in self.nodes}
            out: dict[str, list[Edge]] = {}
            into: dict[str, list[Edge]] = {}
            for e in self.edges:
                out.setdefault(e.source, []).append(e)
                into.setdefault(e.target, []).append(e)
            index = (by_name, out, into)
            self._index_cache = index
        return index

    def sources_of(self, name: str) -> list[str]:
        """The memories that reference ``name``, sorted."""
        return sorted({e.source for e in self._index()[2].get(name, ())})

    def neighbourhood(self, name: str, depth: int = 1, cap: int = 150) -> dict[str, Any]:
        """The memory, what it references and what references it, ``depth`` steps out
        either way; the nearest first, then the most connected, at most ``cap`` nodes."""
        by_name, out, into = self._index()
        if name not in by_name:
            raise KeyError(name)
        distance = {name: 0}
        frontier = [name]
        for step in range(1, depth + 1):
            following = []
            for current in frontier:
                for e in out.get(current, ()):
                    if e.target not in distance:
                        distance[e.target] = step
                        following.append(e.target)
                for e in into.get(current, ()):
                    if e.source not in distance:
                        distance[e.source] = step
                        following.append(e.source)
            frontier = following

        def degree(n: str) -> int:
            return len(out.get(n, ())) + len(into.get(n, ()))

        ranked = sorted(distance, key=lambda n: (distance[n], -degree(n), n))
        kept = ranked[:cap]
        chosen = set(kept)
        edges = [e.to_dict() for n in kept for e in out.get(n, ()) if e.target in chosen]
        return {
            "center": name,
            "depth": depth,
            "entry_point": self.entry_point,
            "nodes": [{**by_name[n].to_dict(), "distance": distance[n]} for n in kept],
            "edges": edges,
            "total_nodes": len(ranked),
            "capped": len(ranked) > len(kept),
        }

    def topic_map(self, topic: str = "") -> dict[str, Any]:
        """Like :meth:`_topic_map`, kept: a graph never changes once built."""
        key = ("topics", topic)
        if key not in self._views:
            self._views[key] = self._topic_map(topic)
        return self._views[key]

    def _topic_map(self, topic: str = "") -> dict[str, Any]:
        """The memories under ``topic`` grouped by their next topic level: one node per
        sub-topic (its memory count, how many `mem:core` does not reach, how many broken
        references leave it) and per memory directly in ``topic``; edges weighted by the
        references between them."""
        by_name, out, _into = self._index()
        prefix = topic + "/" if topic else ""

        def key_of(name: str) -> str | None:
            if not name.startswith(prefix) or not by_name[name].exists:
                return None
            rest = name[len(prefix) :]
            head, sep, _tail = rest.partition("/")
            return prefix + head + "/" if sep else name

        groups = self._topic_groups(key_of, prefix)
        weights, outside = self._topic_weights(key_of, groups, by_name, out)
        return {
            "topic": topic,
            "entry_point": self.entry_point,
            "nodes": sorted(groups.values(), key=lambda g: g["id"]),
            "edges": [
                {"source": a, "target": b, "weight": w} for (a, b), w in sorted(weights.items())
            ],
            "references_leaving": outside,
        }

    def _topic_groups(
        self, key_of: Callable[[str], str | None], prefix: str
    ) -> dict[str, dict[str, Any]]:
        """The topic map's nodes by key, with the counts of the memories each holds."""
        groups: dict[str, dict[str, Any]] = {}
        for node in self.nodes:
            key = key_of(node.name)
            if key is None:
                continue
            group = groups.get(key)
            if group is None:
                group = groups[key] = _topic_group(key, prefix)
            group["count"] += 1
            group["unreachable"] += node.unreached
            group["read_only"] += node.read_only
            group["unreadable"] += node.unreadable
        return groups

    @staticmethod
    def _topic_weights(
        key_of: Callable[[str], str | None],
        groups: dict[str, dict[str, Any]],
        by_name: dict[str, Node],
        out: dict[str, list[Edge]],
    ) -> tuple[dict[tuple[str, str], int], int]:
        """The references between the topic map's nodes, by pair, and how many leave it;
        each group's broken references are counted into ``groups`` on the way."""
        weights: dict[tuple[str, str], int] = {}
        outside = 0
        for source, edges in out.items():
            source_key = key_of(source) if source in by_name else None
            if source_key is None:
                continue
            for e in edges:
                if e.broken:
                    groups[source_key]["broken"] += e.count
                    continue
                target_key = key_of(e.target)
                if target_key is None:
                    outside += e.count
                elif target_key != source_key:
                    pair = (source_key, target_key)
                    weights[pair] = weights.get(pair, 0) + e.count
        return weights, outside

    def filtered(
        self,
        topic: str = "",
        reach: str = "all",
        broken_only: bool = False,
        cap: int = 1500,
    ) -> dict[str, Any]:
        """Like :meth:`_filtered`, kept: a graph never changes once built."""
        key = ("filtered", topic, reach, broken_only, cap)
        if key not in self._views:
            self._views[key] = self._filtered(topic, reach, broken_only, cap)
        return self._views[key]

    def _filtered(self, topic: str, reach: str, broken_only: bool, cap: int) -> dict[str, Any]:
        """The graph restricted to a topic, to memories `mem:core` reaches or not
        (``reach``: all, reachable, unreachable), or to memories with a broken reference
        (and their missing targets); over ``cap`` nodes, the most connected are kept."""
        by_name, out, into = self._index()
        prefix = topic + "/" if topic else ""

        def wanted(n: Node) -> bool:
            if not n.exists:
                return False
            if prefix and not n.name.startswith(prefix):
                return False
            if reach == "reachable" and not n.reachable:
                return False
            if reach == "unreachable" and not n.unreached:
                return False
            return not broken_only or any(e.broken for e in out.get(n.name, ()))

        chosen = {n.name for n in self.nodes if wanted(n)}
        # the missing and ignored targets of the chosen memories show their broken links
        chosen |= {e.target for n in list(chosen) for e in out.get(n, ()) if e.broken}
        total = len(chosen)

        def degree(n: str) -> int:
            return sum(e.target in chosen for e in out.get(n, ())) + sum(
                e.source in chosen for e in into.get(n, ())
            )

        kept = set(sorted(chosen, key=lambda n: (-degree(n), n))[:cap]) if total > cap else chosen
        nodes = [by_name[n].to_dict() for n in sorted(kept)]
        edges = [e.to_dict() for n in sorted(kept) for e in out.get(n, ()) if e.target in kept]
        return {
            "entry_point": self.entry_point,
            "nodes": nodes,
            "edges": edges,
            "total_nodes": total,
            "capped": total > len(kept),
            "cap": cap,
        }

    def export(self, fmt: str) -> str:
        if fmt not in FORMATS:
            raise ValueError(f"unknown graph format {fmt!r}; choose one of {', '.join(FORMATS)}")
        return getattr(self, f"to_{fmt}")()

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    def _ids(self) -> dict[str, str]:
        return {n.name: f"n{i}" for i, n in enumerate(self.nodes)}

    def to_mermaid(self) -> str:
        ids = self._ids()
        out = ["graph LR"]
        out += [f'  {ids[n.name]}["{_mermaid_label(n)}"]' for n in self.nodes]
        for e in self.edges:
            arrow = "-.->" if e.broken else "-->"
            label = f"|{e.count}|" if e.count > 1 else ""
            out.append(f"  {ids[e.source]} {arrow}{label} {ids[e.target]}")
        for cls_name, style, member in _MERMAID_CLASSES:
            members = [ids[n.name] for n in self.nodes if member(n, self.entry_point)]
            if members:
                out.append(f"  classDef {cls_name} {style}")
                out.append(f"  class {','.join(members)} {cls_name}")
        return "\n".join(out) + "\n"

    def to_dot(self) -> str:
        def q(text: str) -> str:
            return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

        out = ["digraph memories {", "  rankdir=LR;", "  node [shape=box];"]
        for n in self.nodes:
            attrs = []
            if n.missing:
                attrs += ['style="dashed"', 'color="red"', f"label={q(n.name + ' (missing)')}"]
            elif n.ignored:
                attrs += ['style="dashed"', 'color="gray"', f"label={q(n.name + ' (ignored)')}"]
            elif n.unreadable:
                attrs += ['style="dotted"', 'color="orange"', f"label={q(n.name + ' (not UTF-8)')}"]
            elif n.read_only:
                attrs += ['style="filled"', 'fillcolor="lightblue"']
            if n.name == self.entry_point:
                attrs.append("penwidth=3")
            out.append(f"  {q(n.name)}" + (f" [{', '.join(attrs)}]" if attrs else "") + ";")
        for e in self.edges:
            attrs = []
            if e.broken:
                attrs += ['style="dashed"', 'color="red"']
            if e.count > 1:
                attrs.append(f'label="{e.count}"')
            out.append(
                f"  {q(e.source)} -> {q(e.target)}"
                + (f" [{', '.join(attrs)}]" if attrs else "")
                + ";"
            )
        out.append("}")
        return "\n".join(out) + "\n"

    def to_graphml(self) -> str:
        ids = self._ids()
        out = [
            '<?xml version="1.0" encoding="UTF-8"?>',
            '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">',
            '  <key id="name" for="node" attr.name="name" attr.type="string"/>',
            '  <key id="read_only" for="node" attr.name="read_only" attr.type="boolean"/>',
            '  <key id="missing" for="node" attr.name="missing" attr.type="boolean"/>',
            '  <key id="ignored" for="node" attr.name="ignored" attr.type="boolean"/>',
            '  <key id="reachable" for="node" attr.name="reachable" attr.type="boolean"/>',
            '  <key id="unreadable" for="node" attr.name="unreadable" attr.type="boolean"/>',
            '  <key id="count" for="edge" attr.name="count" attr.type="int"/>',
            '  <key id="broken" for="edge" attr.name="broken" attr.type="boolean"/>',
            '  <graph id="memories" edgedefault="directed">',
        ]

        def flag(value: bool) -> str:
            return "true" if value else "false"

        for n in self.nodes:
            out.append(f"    <node id={quoteattr(ids[n.name])}>")
            out.append(f'      <data key="name">{escape(n.name)}</data>')
            out.append(f'      <data key="read_only">{flag(n.read_only)}</data>')
            out.append(f'      <data key="missing">{flag(n.missing)}</data>')
            out.append(f'      <data key="ignored">{flag(n.ignored)}</data>')
            out.append(f'      <data key="reachable">{flag(n.reachable)}</data>')
            out.append(f'      <data key="unreadable">{flag(n.unreadable)}</data>')
            out.append("    </node>")
        for i, e in enumerate(self.edges):
            out.append(
                f'    <edge id="e{i}" source={quoteattr(ids[e.source])} '
                f"target={quoteattr(ids[e.target])}>"
            )
            out.append(f'      <data key="count">{e.count}</data>')
            out.append(f'      <data key="broken">{flag(e.broken)}</data>')
            out.append("    </edge>")
        out += ["  </graph>", "</graphml>"]
        return "\n".join(out) + "\n"


def _topic_group(key: str, prefix: str) -> dict[str, Any]:
    """A topic map node with nothing counted yet: a sub-topic (its key ends in ``/``) or
    a memory directly in the topic."""
    is_topic = key.endswith("/")
    return {
        "id": key,
        "name": key[:-1] if is_topic else key,
        "label": key[len(prefix) :],
        "kind": "topic" if is_topic else "memory",
        "count": 0,
        "unreachable": 0,
        "broken": 0,
        "read_only": 0,
        "unreadable": 0,
        "global": is_global(key),
    }


def _mermaid_label(n: Node) -> str:
    """A node's name as mermaid shows it, with what is wrong with it."""
    label = n.name.replace('"', "#quot;")
    if n.missing:
        return label + " (missing)"
    if n.ignored:
        return label + " (ignored)"
    if n.unreadable:
        return label + " (not UTF-8)"
    return label


# mermaid's node classes: (name, style, which nodes are in it given the entry point)
_MERMAID_CLASSES: tuple[tuple[str, str, Callable[[Node, str | None], bool]], ...] = (
    ("missing", "fill:#fdd,stroke:#c00,stroke-dasharray:4 2", lambda n, _e: n.missing),
    ("ignored", "fill:#eee,stroke:#888,stroke-dasharray:4 2", lambda n, _e: n.ignored),
    ("readonly", "fill:#eef,stroke:#66a", lambda n, _e: n.read_only),
    ("unreadable", "fill:#ffe,stroke:#a60,stroke-dasharray:2 2", lambda n, _e: n.unreadable),
    ("entry", "stroke-width:3px", lambda n, entry: n.name == entry),
)
