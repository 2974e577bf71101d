"""The reference graph: nodes, edges, stale and ignored targets, every export format."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from conftest import write_config

from serena_memory.core.store import MemoryStore
from serena_memory.integrity.analysis import IntegrityAnalyzer
from serena_memory.integrity.api import build_graph
from serena_memory.integrity.graph import MemoryGraph

MEMORIES = {
    "core": "Start: `mem:auth/login` twice `mem:auth/login`, then `mem:gone`.\n",
    "auth/login": 'Back to `mem:core`; "quoted" name next: `mem:say"hi`.\n',
    "orphan": "Points to `mem:_archive/old`.\n",
    "memory_maintenance": "Examples `mem:example` are not edges.\n",
}


@pytest.fixture
def graph() -> MemoryGraph:
    analyzer = IntegrityAnalyzer(MEMORIES, read_only={"orphan"}, ignored={"_archive/old"})
    return MemoryGraph.from_analyzer(analyzer)


def test_nodes_and_edges(graph: MemoryGraph) -> None:
    data = graph.to_dict()
    nodes = {n["name"]: n for n in data["nodes"]}
    assert nodes["gone"]["missing"] and nodes["say"]["missing"]
    assert nodes["_archive/old"]["ignored"]
    assert nodes["orphan"]["read_only"] and not nodes["orphan"]["reachable"]
    assert nodes["auth/login"]["reachable"] and nodes["core"]["reachable"]
    assert "example" not in nodes  # the maintenance memory's examples are no references
    edges = {(e["source"], e["target"]): e for e in data["edges"]}
    assert edges[("core", "auth/login")]["count"] == 2
    assert edges[("core", "gone")]["broken"] and not edges[("auth/login", "core")]["broken"]
    assert data["entry_point"] == "core"


def test_json_export_parses(graph: MemoryGraph) -> None:
    assert json.loads(graph.export("json")) == graph.to_dict()


def test_graphml_export_is_valid_xml(graph: MemoryGraph) -> None:
    root = ET.fromstring(graph.export("graphml"))
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    nodes = root.findall(".//g:node", ns)
    edges = root.findall(".//g:edge", ns)
    assert len(nodes) == len(graph.nodes) and len(edges) == len(graph.edges)
    names = {n.find("g:data[@key='name']", ns).text for n in nodes}
    assert {"core", "gone", "_archive/old"} <= names
    missing = [
        n.find("g:data[@key='name']", ns).text
        for n in nodes
        if n.find("g:data[@key='missing']", ns).text == "true"
    ]
    assert sorted(missing) == ["gone", "say"]


def test_dot_export(graph: MemoryGraph) -> None:
    dot = graph.export("dot")
    assert dot.startswith("digraph memories {") and dot.rstrip().endswith("}")
    assert '"core" -> "auth/login" [label="2"];' in dot
    assert '"core" -> "gone" [style="dashed", color="red"];' in dot
    assert 'label="gone (missing)"' in dot


def test_mermaid_export(graph: MemoryGraph) -> None:
    text = graph.export("mermaid")
    lines = text.splitlines()
    assert lines[0] == "graph LR"
    ids = {line.split("[")[0].strip(): line for line in lines if '["' in line}
    assert any('["gone (missing)"]' in line for line in ids.values())
    assert any("classDef missing" in line for line in lines)
    assert sum("-.->" in line for line in lines) == 3  # gone, say, _archive/old


def test_unknown_format_is_refused(graph: MemoryGraph) -> None:
    with pytest.raises(ValueError, match="unknown graph format"):
        graph.export("png")


def test_build_graph_from_a_store(store: MemoryStore) -> None:
    write_config(
        store.project_root / ".serena" / "project.yml", 'ignored_memory_patterns: ["_archive/.*"]\n'
    )
    for name, text in MEMORIES.items():
        store.write(name, text)
    archived = store.memories_dir / "_archive" / "old.md"
    archived.parent.mkdir()
    archived.write_text("secret `mem:core`\n")
    data = build_graph(store).to_dict()
    nodes = {n["name"]: n for n in data["nodes"]}
    assert nodes["_archive/old"]["ignored"]
    assert ("_archive/old", "core") not in {(e["source"], e["target"]) for e in data["edges"]}
