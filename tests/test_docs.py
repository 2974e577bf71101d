"""The docs are checked against the code: generated references are current, every
dashboard route is documented, and every library call the docs show exists with the
parameters they give it."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
from pathlib import Path
from typing import Any

from conftest import REPO_ROOT, load_script

DOCS = sorted((REPO_ROOT / "docs").glob("*.md")) + [REPO_ROOT / "README.md"]


def _generator() -> Any:
    return load_script("scripts/gen_reference.py")


def test_the_command_and_tool_references_say_what_the_code_says() -> None:
    generator = _generator()
    pages = generator.references()
    assert generator.stale(pages) == [], "run: python scripts/gen_reference.py"
    cli_page = pages[generator.CLI_DOC]
    for command in ("## serena memories edit", "## serena start-mcp-server", "--allow-multiple"):
        assert command in cli_page
    assert "## write_memory" in pages[generator.TOOLS_DOC]


def test_the_generator_notices_a_page_that_drifted(tmp_path: Path) -> None:
    generator = _generator()
    page = tmp_path / "cli.md"
    page.write_text(generator.cli_reference().replace("Delete memory NAME.", "Delete it."))
    assert generator.stale({page: generator.cli_reference()}) == [page]


def test_every_dashboard_api_route_is_documented() -> None:
    from starlette.routing import Route

    from serena_memory.dashboard.app import DashboardApi

    page = (REPO_ROOT / "docs" / "dashboard.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `([A-Z]+) (/api/[^` ?]*)", page, re.M))
    served = {
        (method, route.path)
        for route in DashboardApi(".", None).routes()
        if isinstance(route, Route) and route.path.startswith("/api/")
        for method in route.methods or ()
        if method != "HEAD"
    }
    assert served == documented


# -- library calls shown in the docs ------------------------------------------------------
_MODULE = re.compile(r"`(serena_memory(?:\.\w+)+)")
_CALL = re.compile(r"`([A-Za-z_][\w.]*)\(([^`()]*)\)")


def _resolve(dotted: str) -> Any:
    """The module, function or class a dotted path names, or None."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            found = getattr(found, attr, None)
        return found
    return None


def _containers(section: str) -> list[Any]:
    """The modules a docs section names, and the classes they define."""
    found: list[Any] = []
    for dotted in _MODULE.findall(section):
        target = _resolve(dotted)
        module = target if inspect.ismodule(target) else inspect.getmodule(target)
        if module is not None and module not in found:
            found.append(module)
    classes = [
        value for module in found for value in vars(module).values() if inspect.isclass(value)
    ]
    return found + classes


def _shown_calls() -> list[tuple[str, str, str, list[Any]]]:
    calls = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for section in re.split(r"^#+ ", text, flags=re.M):
            if "serena_memory." not in section:
                continue
            containers = _containers(section)
            for name, params in _CALL.findall(section):
                calls.append((doc.name, name, params, containers))
    return calls


def _problem(name: str, params: str, containers: list[Any]) -> str | None:
    if name.startswith("serena_memory."):
        target = _resolve(name)
    else:
        found = (getattr(c, name.split(".")[-1], None) for c in containers)
        target = next((f for f in found if callable(f)), None)
    if target is None:
        return "names nothing in the code"
    signature = inspect.signature(target)
    accepted = {
        p.name
        for p in signature.parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    }
    open_ended = any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values())
    positional = [
        p.name
        for p in signature.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    shown = []
    for index, item in enumerate(p.strip() for p in params.split(",") if p.strip()):
        name = item.split("=")[0].strip().lstrip("*")
        if name == "...":
            continue
        if not name.isidentifier():  # a value passed by position, e.g. "core"
            name = positional[index] if index < len(positional) else item
        shown.append(name)
    unknown = [p for p in shown if p not in accepted and not open_ended]
    required = [
        p.name
        for p in signature.parameters.values()
        if p.default is p.empty
        and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        and p.name not in ("self", "cls")
    ]
    missing = [p for p in required if p not in shown]
    if unknown or missing:
        return f"shows {shown}, the code takes {signature}"
    return None


def test_library_calls_in_the_docs_exist_with_the_parameters_shown() -> None:
    calls = _shown_calls()
    assert len(calls) >= 10  # the check really reads the Library sections
    problems = [
        f"{doc}: {name}({params}) {problem}"
        for doc, name, params, containers in calls
        if (problem := _problem(name, params, containers)) is not None
    ]
    assert problems == []


def _readme_command_block() -> str:
    """The command list of docs/cli.md, which the README links to."""
    readme = (REPO_ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    section = readme.split("## Every command", 1)[1]
    return section.split("```bash", 1)[1].split("```", 1)[0]


def test_the_command_list_holds_every_command_and_check() -> None:
    """A person who reads the command list finds every command, the newest included
    (import, export, fix-code-references, conflicts and resolve, review)."""
    import click

    from serena_memory.cli import cli

    block = _readme_command_block()
    memories = cli.commands["memories"]
    assert isinstance(memories, click.Group)
    missing = [n for n in memories.commands if f"serena memories {n} " not in block]
    missing += [n for n in cli.commands if n != "memories" and f"serena {n} " not in block]
    assert missing == [], f"add these to the command list of docs/cli.md: {missing}"
    check = memories.commands["check"]
    flags = [o for p in check.params for o in p.opts if o.startswith("--")]
    assert [f for f in flags if f not in block and f != "--help"] == []


def test_the_readme_links_every_page_of_the_docs() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    pages = sorted(p.name for p in (REPO_ROOT / "docs").glob("*.md"))
    assert [p for p in pages if f"](docs/{p})" not in readme] == []


def test_every_module_the_architecture_page_names_exists() -> None:
    page = (REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"\bserena_memory(?:\.\w+)+", page))
    assert len(named) >= 10
    assert [n for n in sorted(named) if importlib.util.find_spec(n) is None] == []
