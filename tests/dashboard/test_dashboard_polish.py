"""What a person sees on the dashboard, in Chromium: recent changes that stay on the page,
a search box that belongs to the search page, the command line's times, topic circles
sized by their memories, styled controls; with screenshots at 50 and 10,000 memories
(kept in $SERENA_SCREENSHOTS when it is set, to look at)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT, run_cli
from helpers.browser_support import Tab, browser_only, expect

from serena_memory.core.store import MemoryStore, catch_up_history
from serena_memory.dashboard.server import DashboardServer
from serena_memory.wiring import build_store

pytestmark = browser_only


def no_horizontal_overflow(page) -> bool:
    return page.evaluate(
        "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"
        " && [...document.querySelectorAll('#recent-changes li')]"
        ".every((li) => li.scrollWidth <= li.clientWidth + 1)"
    )


def test_an_entry_of_many_memories_stays_on_the_page(tab: Tab, store: MemoryStore) -> None:
    folder = store.layout.memories_dir
    folder.mkdir(parents=True)
    for i in range(44):  # one change made outside: one entry touching 44 memories
        (folder / f"module_{i:02d}_with_a_rather_long_name.md").write_text(f"# {i}\n")
    catch_up_history(store)
    page = tab.load()
    tab.open("#/history")
    entry = page.locator("#recent-changes li").first
    expect(entry.locator("a.history-memory")).to_have_count(5)
    expect(entry.locator("button.history-more")).to_have_text("and 39 more")
    assert no_horizontal_overflow(page)
    entry.locator("button.history-more").click()
    expect(entry.locator("a.history-memory")).to_have_count(44)
    assert no_horizontal_overflow(page)  # every name wraps inside the page


def test_the_search_box_holds_the_query_of_the_search_page_only(
    tab: Tab, store: MemoryStore
) -> None:
    store.write("auth/tokens", "How token refresh works.\n")
    page = tab.load()
    tab.open("#/search/token")
    expect(page.locator("#search-results .search-hit")).to_have_count(1)
    assert page.input_value("#search-box") == "token"
    tab.open("#/history")
    expect(page.locator("h1")).to_have_text("Recent changes")
    assert page.input_value("#search-box") == ""
    page.go_back()  # back to the search: its query comes back with it
    expect(page.locator("#search-results .search-hit")).to_have_count(1)
    assert page.input_value("#search-box") == "token"


def test_times_read_as_the_command_line_prints_them(
    tab: Tab, store: MemoryStore, project: Path
) -> None:
    store.write("notes", "x\n")
    page = tab.load()
    tab.open("#/history")
    shown = page.locator("#recent-changes li time").first.inner_text()
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", shown), shown
    cli = run_cli("memories", "history", "-p", str(project))
    assert shown in cli.stdout  # the same words for the same moment


def test_topic_circles_differ_with_their_memories(tab: Tab, store: MemoryStore) -> None:
    store.write("small/one", "x\n")
    for i in range(7):
        store.write(f"big/m{i}", "x\n")
    page = tab.load()
    tab.open("#/topics")
    expect(page.locator("#topic-map")).to_have_attribute("data-drawn", "/")
    radius = {
        topic: float(page.locator(f'#topic-map [data-node="{topic}"] circle').get_attribute("r"))
        for topic in ("small", "big")
    }
    assert radius["big"] >= 1.8 * radius["small"], radius  # area follows the count


def test_the_graph_pages_select_is_styled_like_the_other_controls(tab: Tab) -> None:
    page = tab.load()
    tab.open("#/graph")
    select = page.locator("#graph-reach")
    expect(select).to_be_visible()
    style = select.evaluate(
        "(s) => { const c = getComputedStyle(s); return [c.appearance, c.borderRadius,"
        " c.borderTopColor, c.fontSize]; }"
    )
    field = page.locator("#graph-topic").evaluate(
        "(s) => { const c = getComputedStyle(s); return [c.borderRadius, c.borderTopColor,"
        " c.fontSize]; }"
    )
    assert style[0] == "none" and style[1:] == field


def _screens(browser, server: DashboardServer, folder: Path, label: str) -> None:
    t = Tab(browser, server)
    try:
        page = t.load()
        for route, ready, name in (
            ("#/history", "#recent-changes li, main p.muted", "recent-changes"),
            ("#/topics", '#topic-map[data-drawn="/"]', "topic-map"),
            ("#/graph", "#graph-reach", "graph"),
        ):
            t.open(route)
            # what is tested is the layout, not the speed (test_dashboard_scale.py times it):
            # 10,000 memories on a loaded machine may take longer than the default wait
            page.wait_for_selector(ready, timeout=60_000)
            assert no_horizontal_overflow(page), (label, route)
            page.screenshot(path=str(folder / f"{label}-{name}.png"))
    finally:
        t.close()


@pytest.mark.parametrize("count", [50, 10_000])
def test_screenshots_at_50_and_10000_memories(
    browser,
    tmp_path: Path,
    count: int,
) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    made = subprocess.run(
        [sys.executable, str(REPO_ROOT / "benchmarks" / "corpus.py"), str(project),
         "--count", str(count), "--seed", "7", "--home", str(home), "--global-fraction", "0.02"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    catch_up_history(build_store(project, home=home))  # one entry touching every memory
    folder = Path(os.environ.get("SERENA_SCREENSHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    server = DashboardServer(project, home=home, port=0)
    server.start()
    try:
        _screens(browser, server, folder, f"{count}-memories")
    finally:
        server.stop()


def test_no_page_shows_a_stray_null_or_undefined(
    tab: Tab, store: MemoryStore, project: Path, serena_home: Path
) -> None:
    """A part with nothing to show (no sync conflicts, no notice, no proposals) leaves no
    word behind: the home page and the Review page once printed a literal "null"."""
    (serena_home / "serena_config.yml").write_text("memory_agent_writes: propose\n")
    store.write("core", "# Core\n\nSee `mem:notes`.\n")
    store.write("notes", "# Notes\n")
    page = tab.load()
    for view in ("#/", "#/review", "#/history", "#/check", "#/topics", "#/memory/core", "#/new"):
        tab.open(view)
        page.wait_for_timeout(300)
        shown = page.locator("#main").inner_text()
        words = set(re.findall(r"[A-Za-z]+", shown))
        assert not words & {"null", "undefined", "NaN"}, f"{view}: {shown!r}"
