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
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from serena_memory.core.names import is_global
from serena_memory.integrity.analysis import ENTRY_POINT, IntegrityAnalyzer

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
        for n in self.nodes:
            label = n.name.replace('"', "#quot;")
            if n.missing:
                label += " (missing)"
            elif n.ignored:
                label += " (ignored)"
            elif n.unreadable:
                label += " (not UTF-8)"
            out.append(f'  {ids[n.name]}["{label}"]')
        for e in self.edges:
            arrow = "-.->" if e.broken else "-->"
            label = f"|{e.count}|" if e.count > 1 else ""
            out.append(f"  {ids[e.source]} {arrow}{label} {ids[e.target]}")
        for cls_name, style in (
            ("missing", "fill:#fdd,stroke:#c00,stroke-dasharray:4 2"),
            ("ignored", "fill:#eee,stroke:#888,stroke-dasharray:4 2"),
            ("readonly", "fill:#eef,stroke:#66a"),
            ("unreadable", "fill:#ffe,stroke:#a60,stroke-dasharray:2 2"),
            ("entry", "stroke-width:3px"),
        ):
            members = [
                ids[n.name]
                for n in self.nodes
                if (cls_name == "missing" and n.missing)
                or (cls_name == "ignored" and n.ignored)
                or (cls_name == "readonly" and n.read_only)
                or (cls_name == "unreadable" and n.unreadable)
                or (cls_name == "entry" and n.name == self.entry_point)
            ]
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
