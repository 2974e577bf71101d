"""The dashboard on a generated project of 10,000 memories, in a real headless browser.

The project is generated once for the module (benchmarks/corpus.py) and one dashboard
serves it; the server's snapshot and the check report are computed once before the timed
steps, as they are after the first visit. Every page records the browser's long tasks
(PerformanceObserver "longtask"): none may last over 200 ms.

Timed scenarios are the best of up to three attempts, each in a fresh tab: other
processes on a shared machine only ever add time, so the best attempt is the one that
shows what the dashboard itself costs. The limits are those of an idle machine; on a
machine with more runnable processes than processors they stretch by that ratio (the
one-minute load average per processor), as every task then waits its turn that much
longer. `benchmarks/bench_dashboard.py` measures the same scenarios for the figures.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import REPO_ROOT
from helpers.browser_support import CHROMIUM, CHROMIUM_ARGS, WATCHDOG, expect, wait_until

from serena_memory.dashboard.server import DashboardServer

COUNT = 10_000
LONG_TASK_LIMIT_MS = 200

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason="chromium is not installed (apt-get install chromium; scripts/test.sh does it as root)",
)

LONG_TASKS = """
window.__longTasks = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__longTasks.push(Math.round(entry.duration));
}).observe({ type: 'longtask', buffered: true });
"""


@pytest.fixture(scope="module")
def big_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DashboardServer]:
    base = tmp_path_factory.mktemp("scale")
    project, home = base / "project", base / "home"
    project.mkdir()
    home.mkdir()
    generated = subprocess.run(
        [sys.executable, str(REPO_ROOT / "benchmarks" / "corpus.py"), str(project),
         "--count", str(COUNT), "--seed", "7", "--home", str(home), "--global-fraction", "0.02"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert generated.returncode == 0, generated.stderr
    server = DashboardServer(project, home=home, port=0)
    server.start()
    # what the first visit computes, once: the snapshot, the graph, the check report and
    # the search index
    headers = {"X-Serena-Token": server.token}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=600) as client:
        assert client.get("/api/graph/topics").status_code == 200
        warm = client.get(
            "/api/check", params={"include_unmarked": 1, "fuzzy": 1, "reachability": 1, "limit": 50}
        )
        assert warm.status_code == 200
        assert client.get("/api/search", params={"q": "warm"}).status_code == 200  # the index
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import expect as pw_expect
    from playwright.sync_api import sync_playwright

    pw_expect.set_options(timeout=30_000)
    with sync_playwright() as pw:
        instance = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


class Attempt:
    """A fresh tab on the big project that records errors and long tasks."""

    def __init__(self, browser, server: DashboardServer) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 800})
        self.context.add_init_script(WATCHDOG)
        self.context.add_init_script(LONG_TASKS)
        self.context.set_default_timeout(30_000)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.goto(server.url)
        self.page.wait_for_selector("#tree section")

    def long_tasks(self) -> list[int]:
        return self.page.evaluate("window.__longTasks")

    def close(self) -> None:
        assert self.errors == []
        assert self.page.evaluate("window.__csp") == []
        self.context.close()


def load_factor() -> float:
    """How much longer every task waits on this machine now than on an idle one."""
    return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))


def best_of_three(browser, server: DashboardServer, scenario) -> None:
    """Run ``scenario(page) -> {what: (seconds, limit)}`` until one attempt meets every
    limit and has no long task over the limit; fail with all attempts otherwise."""
    tried = []
    for _ in range(3):
        factor = load_factor()
        attempt = Attempt(browser, server)
        try:
            timings = scenario(attempt.page)
            long_tasks = attempt.long_tasks()
        finally:
            attempt.close()
        factor = max(factor, load_factor())
        slow = {k: round(v, 2) for k, (v, limit) in timings.items() if v >= limit * factor}
        longest = max(long_tasks, default=0)
        tried.append({"slow": slow, "longest task ms": longest, "load factor": round(factor, 1)})
        if not slow and longest <= LONG_TASK_LIMIT_MS * factor:
            return
    raise AssertionError(f"no attempt within the limits: {tried}")


def timed(page, hash_route: str, ready: str) -> float:
    """Seconds from asking for a route until ``ready`` is on the page."""
    start = time.monotonic()
    page.evaluate("(h) => { location.hash = h; }", hash_route)
    page.wait_for_selector(ready)
    return time.monotonic() - start


def a_hub(server: DashboardServer) -> str:
    """A memory in a topic with both references and backlinks."""
    headers = {"X-Serena-Token": server.token}
    topics = httpx.get(server.base_url + "/api/graph/topics", headers=headers).json()
    topic = max((n for n in topics["nodes"] if n["kind"] == "topic"), key=lambda n: n["count"])
    return topic["name"] + "/core" if topic["count"] else "core"


def test_the_sidebar_shows_topics_folded_and_no_ten_thousand_links(
    browser, big_server: DashboardServer
) -> None:
    def scenario(page):
        assert page.locator("#tree a[data-name]").count() < 300
        topic = page.locator("#tree details[data-topic]").first
        start = time.monotonic()
        topic.locator("summary").click()
        expect(topic.locator("a[data-name]").first).to_be_visible()
        return {"expand a topic": (time.monotonic() - start, 1)}

    best_of_three(browser, big_server, scenario)


def test_memory_page_and_local_graph_are_interactive_within_2s(
    browser, big_server: DashboardServer
) -> None:
    name = a_hub(big_server)

    def scenario(page):
        seconds = timed(page, "#/memory/" + name, f'#local-graph[data-drawn="{name}"] svg')
        expect(page.locator("#rendered h1")).to_have_text(name)
        assert page.locator("#local-graph a.node").count() > 2
        start = time.monotonic()
        page.select_option("#local-depth", "2")
        wait_until(
            page,
            "document.querySelectorAll('#local-graph a.node').length > 10"
            " && document.querySelector('#local-graph-note').textContent.includes('2 steps')",
            30,
        )
        two_steps = time.monotonic() - start
        neighbour = page.locator("#local-graph a.node:not(.center):not(.missing)").first
        target = neighbour.get_attribute("data-node")
        neighbour.dispatch_event("click")
        expect(page.locator("#rendered h1")).to_have_text(target)
        return {"memory page and local graph": (seconds, 2), "two steps": (two_steps, 2)}

    best_of_three(browser, big_server, scenario)


def test_topic_map_is_interactive_within_2s_and_drills_down(
    browser, big_server: DashboardServer
) -> None:
    def scenario(page):
        seconds = timed(page, "#/topics", '#topic-map[data-drawn="/"] svg')
        assert page.locator("#topic-table tbody tr").count() > 10
        topic = page.locator("#topic-map a.node.topic").first
        name = topic.get_attribute("data-node")
        start = time.monotonic()
        topic.dispatch_event("click")  # nodes may overlap; the click itself is the test
        page.wait_for_selector(f'#topic-map[data-drawn="{name}"] svg')
        drill = time.monotonic() - start
        expect(page.locator("h1")).to_have_text(f"Topic map: {name}/")
        return {"topic map": (seconds, 2), "drill-down": (drill, 2)}

    best_of_three(browser, big_server, scenario)


def test_check_page_is_interactive_within_2s_and_pages_its_lists(
    browser, big_server: DashboardServer
) -> None:
    def scenario(page):
        seconds = timed(page, "#/check", "#stale li")
        stale = page.locator("#stale .report-list > li")
        expect(stale).to_have_count(50)
        first = stale.first.inner_text()
        start = time.monotonic()
        page.locator("#stale .pager .next").click()
        expect(page.locator("#stale .page-range")).to_contain_text("51–100 of")
        turn = time.monotonic() - start
        assert stale.first.inner_text() != first
        return {"check page": (seconds, 2), "next page": (turn, 2)}

    best_of_three(browser, big_server, scenario)


def test_a_sidebar_click_opens_a_memory_within_1s_while_the_full_graph_lays_out(
    browser, big_server: DashboardServer
) -> None:
    def scenario(page):
        page.evaluate("() => { location.hash = '#/graph'; }")
        page.click("#draw-graph")
        expect(page.locator("#graph-note")).to_contain_text("most connected")  # capped, said
        expect(page.locator("#graph canvas")).to_have_count(1)
        expect(page.locator("#graph-progress")).to_have_text("Laying out…")
        topic = page.locator("#tree details[data-topic]").nth(2)
        topic.locator("summary").click()
        link = topic.locator("a[data-name]").first
        name = link.get_attribute("data-name")
        start = time.monotonic()
        link.click()
        expect(page.locator("#rendered h1")).to_have_text(name)
        return {f"open {name}": (time.monotonic() - start, 1)}

    best_of_three(browser, big_server, scenario)


def test_the_full_graph_is_filtered_and_finishes(browser, big_server: DashboardServer) -> None:
    attempt = Attempt(browser, big_server)
    try:
        page = attempt.page
        page.evaluate("() => { location.hash = '#/graph'; }")
        page.select_option("#graph-reach", "unreachable")
        page.check("#graph-broken")
        page.click("#draw-graph")
        expect(page.locator("#graph-progress")).to_have_text(
            "Click a memory to open it.", timeout=120_000
        )
        page.evaluate("() => { location.hash = '#/graph'; }")
        page.click("#draw-graph")  # the whole graph, capped, to the end
        expect(page.locator("#graph-progress")).to_have_text(
            "Click a memory to open it.", timeout=120_000
        )
    finally:
        attempt.close()


def test_a_search_shows_ranked_results_within_1s_and_enter_opens_the_first(
    browser, big_server: DashboardServer
) -> None:
    def scenario(page):
        page.keyboard.press("/")
        expect(page.locator("#search-box")).to_be_focused()
        timings = {}
        for query in ["refund ledger", "retry backoff policy"]:
            start = time.monotonic()
            page.fill("#search-box", query)
            results = page.locator(f'#search-results[data-query="{query}"]:not([aria-busy])')
            expect(results.locator("a.search-hit").first).to_be_visible()
            timings[f"results for {query!r}"] = (time.monotonic() - start, 1)
        hits = page.locator("#search-results a.search-hit")
        assert hits.count() == 20
        first = hits.first.get_attribute("data-name")
        assert hits.first.locator("mark").count() > 0
        start = time.monotonic()
        page.keyboard.press("Enter")
        expect(page.locator(".memory-header h1")).to_have_text(first)
        timings["open the first"] = (time.monotonic() - start, 1)
        return timings

    best_of_three(browser, big_server, scenario)
