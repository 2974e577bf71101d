"""Readable units: no module over MAX_MODULE_LINES lines, no function over
MAX_FUNCTION_LINES lines or a cyclomatic complexity (radon's) over MAX_COMPLEXITY.

The units that are still larger are listed below with their figures when they were
listed: they may shrink, never grow, and no new one may join them. The core, history,
sync, search, integrity, agent, setup, transfer, mcp, dashboard and cli packages have
none."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

radon_complexity = pytest.importorskip("radon.complexity")
radon_visitors = pytest.importorskip("radon.visitors")

SRC = Path(__file__).resolve().parents[1] / "src" / "serena_memory"
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 60
MAX_COMPLEXITY = 15
# packages with no exception at all
WITHIN_LIMITS = (
    "core/",
    "history/",
    "sync/",
    "search/",
    "integrity/",
    "agent/",
    "setup/",
    "transfer/",
    "mcp/",
    "dashboard/",
    "cli/",
)

# module (under src/serena_memory) -> lines
KNOWN_MODULES: dict[str, int] = {}
# (module, function) -> (lines, complexity)
KNOWN_FUNCTIONS: dict[tuple[str, str], tuple[int, int]] = {}


def _function_lengths(tree: ast.AST) -> dict[str, int]:
    """Each function's qualified name (``Class.method``, ``outer.inner``) -> its lines."""
    found: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = prefix + child.name
                found[name] = (child.end_lineno or child.lineno) - child.lineno + 1
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")

    visit(tree, "")
    return found


def _complexities(text: str) -> dict[str, int]:
    found: dict[str, int] = {}
    for block in radon_complexity.cc_visit(text):
        for item in [block, *getattr(block, "methods", [])]:
            if isinstance(item, radon_visitors.Function):
                found[item.fullname] = max(found.get(item.fullname, 0), item.complexity)
    return found


def _measure() -> tuple[dict[str, int], dict[tuple[str, str], tuple[int, int]]]:
    """Every module's lines, and the figures of every function over a limit."""
    modules: dict[str, int] = {}
    over: dict[tuple[str, str], tuple[int, int]] = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        text = path.read_text(encoding="utf-8")
        modules[rel] = len(text.splitlines())
        complexity = _complexities(text)
        for name, lines in _function_lengths(ast.parse(text)).items():
            cc = complexity.get(name, 0)
            if lines > MAX_FUNCTION_LINES or cc > MAX_COMPLEXITY:
                over[(rel, name)] = (lines, cc)
    return modules, over


def test_no_module_grows_past_the_limit_or_its_listed_size() -> None:
    modules, _ = _measure()
    too_long = {
        rel: lines
        for rel, lines in modules.items()
        if lines > max(MAX_MODULE_LINES, KNOWN_MODULES.get(rel, 0))
    }
    assert too_long == {}, "split these modules by subject (lines now)"


def test_no_function_grows_past_the_limits_or_its_listed_figures() -> None:
    _, over = _measure()
    worse = {
        key: figures
        for key, figures in over.items()
        if key not in KNOWN_FUNCTIONS
        or figures[0] > max(MAX_FUNCTION_LINES, KNOWN_FUNCTIONS[key][0])
        or figures[1] > max(MAX_COMPLEXITY, KNOWN_FUNCTIONS[key][1])
    }
    assert worse == {}, "split these functions (lines, complexity now)"


def test_the_packages_made_readable_have_no_exception() -> None:
    listed = [*KNOWN_MODULES, *(rel for rel, _ in KNOWN_FUNCTIONS)]
    assert [rel for rel in listed if rel.startswith(WITHIN_LIMITS)] == []
