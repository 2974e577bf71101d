"""The reference graph: nodes, edges, stale and ignored targets, every export format."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from conftest import write_config

from serena_memory.core.store import MemoryStore
from serena_memory.integrity.references.analysis import IntegrityAnalyzer
from serena_memory.integrity.references.graph import MemoryGraph
from serena_memory.integrity.references.links import build_graph

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
        store.layout.project_root / ".serena" / "project.yml",
        'ignored_memory_patterns: ["_archive/.*"]\n',
    )
    for name, text in MEMORIES.items():
        store.write(name, text)
    archived = store.layout.memories_dir / "_archive" / "old.md"
    archived.parent.mkdir()
    archived.write_text("secret `mem:core`\n")
    data = build_graph(store).to_dict()
    nodes = {n["name"]: n for n in data["nodes"]}
    assert nodes["_archive/old"]["ignored"]
    assert ("_archive/old", "core") not in {(e["source"], e["target"]) for e in data["edges"]}


# -- views for a reader --------------------------------------------------------------------
VIEW_MEMORIES = {
    "core": "`mem:auth/core` `mem:payments/core` `mem:gone`\n",
    "auth/core": "`mem:auth/login` `mem:payments/core`\n",
    "auth/login": "`mem:auth/core`\n",
    "payments/core": "`mem:payments/refunds` `mem:payments/refunds` `mem:nowhere`\n",
    "payments/refunds": "`mem:auth/login`\n",
    "payments/deep/old": "nothing\n",
    "island": "`mem:auth/core`\n",
}


@pytest.fixture
def view_graph() -> MemoryGraph:
    return MemoryGraph.from_analyzer(IntegrityAnalyzer(VIEW_MEMORIES, read_only={"island"}))


def test_neighbourhood_goes_both_ways_one_or_two_steps_and_is_capped(
    view_graph: MemoryGraph,
) -> None:
    one = view_graph.neighbourhood("auth/core", 1)
    assert {n["name"]: n["distance"] for n in one["nodes"]} == {
        "auth/core": 0,
        "auth/login": 1,
        "payments/core": 1,
        "core": 1,
        "island": 1,
    }
    assert not one["capped"] and one["nodes"][0]["name"] == "auth/core"
    assert {(e["source"], e["target"]) for e in one["edges"]} >= {
        ("core", "auth/core"),
        ("auth/core", "payments/core"),
        ("core", "payments/core"),
    }
    two = view_graph.neighbourhood("auth/core", 2)
    names = {n["name"]: n for n in two["nodes"]}
    assert names["gone"]["missing"] and names["nowhere"]["missing"]
    assert names["island"]["read_only"] and not names["island"]["reachable"]
    capped = view_graph.neighbourhood("auth/core", 2, cap=3)
    assert capped["capped"] and capped["total_nodes"] == len(two["nodes"])
    assert [n["distance"] for n in capped["nodes"]] == [0, 1, 1]
    with pytest.raises(KeyError):
        view_graph.neighbourhood("no/such", 1)


def test_topic_map_counts_memories_unreachable_and_broken_and_weighs_edges(
    view_graph: MemoryGraph,
) -> None:
    top = view_graph.topic_map()
    nodes = {n["id"]: n for n in top["nodes"]}
    assert set(nodes) == {"auth/", "payments/", "core", "island"}
    assert nodes["payments/"]["kind"] == "topic" and nodes["payments/"]["count"] == 3
    assert nodes["payments/"]["unreachable"] == 1  # payments/deep/old
    assert nodes["payments/"]["broken"] == 1 and nodes["core"]["broken"] == 1
    assert nodes["island"]["kind"] == "memory" and nodes["island"]["unreachable"] == 1
    weights = {(e["source"], e["target"]): e["weight"] for e in top["edges"]}
    assert weights[("core", "auth/")] == 1 and weights[("auth/", "payments/")] == 1
    assert weights[("payments/", "auth/")] == 1
    inside = view_graph.topic_map("payments")
    ids = {n["id"]: n for n in inside["nodes"]}
    assert set(ids) == {"payments/core", "payments/refunds", "payments/deep/"}
    assert [(e["source"], e["target"], e["weight"]) for e in inside["edges"]] == [
        ("payments/core", "payments/refunds", 2)
    ]
    assert inside["references_leaving"] == 1  # payments/refunds -> auth/login


def test_filtered_graph_by_topic_reachability_broken_and_cap(view_graph: MemoryGraph) -> None:
    def names(view):
        return {n["name"] for n in view["nodes"]}

    assert names(view_graph.filtered(topic="auth")) == {"auth/core", "auth/login"}
    assert names(view_graph.filtered(reach="unreachable")) == {"island", "payments/deep/old"}
    assert names(view_graph.filtered(broken_only=True)) == {
        "core",
        "gone",
        "payments/core",
        "nowhere",
    }
    capped = view_graph.filtered(cap=2)
    assert capped["capped"] and capped["total_nodes"] == 9 and len(capped["nodes"]) == 2
    assert all(e["source"] in names(capped) for e in capped["edges"])
