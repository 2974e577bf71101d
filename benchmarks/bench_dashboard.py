"""Dashboard speed at 10,000 memories, in headless Chromium: medians of several runs.

Each run opens a fresh tab and measures, from the request to the drawing on screen:
- a memory's page with its local graph (target: 2 s), and the 2-step local graph;
- the topic map (2 s) and a drill-down into a topic;
- the Check page with its first page of each list (2 s);
- search as you type: from the query typed to its first ranked result on screen (1 s,
  of which 150 ms is the page's wait for a pause in typing), and Enter opening it (1 s);
- a click on a sidebar memory while the full graph lays out (1 s);
and the longest task on the page's main thread over the whole run (200 ms), from the
browser's long-task timing. The server's snapshot and check report are computed once
first (what the first visit pays), and that time is printed too.

Usage: ``python benchmarks/bench_dashboard.py [--runs N] [--count N] [--keep DIR]``
(needs chromium and the test extras: playwright).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

from _common import Workspace

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
LONG_TASKS = """
window.__longTasks = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__longTasks.push(Math.round(entry.duration));
}).observe({ type: 'longtask', buffered: true });
"""
TARGETS = {
    "memory page + local graph": 2.0,
    "local graph, 2 steps": 2.0,
    "topic map": 2.0,
    "topic drill-down": 2.0,
    "check page": 2.0,
    "sidebar click during full layout": 1.0,
    "search: typed to first result": 1.0,
    "search: Enter opens the first": 1.0,
}


def until(page, expression: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise TimeoutError(expression)
        page.wait_for_timeout(20)


def one_run(browser, url: str, hub: str) -> tuple[dict[str, float], int]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.add_init_script(LONG_TASKS)
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("#tree section")
    got: dict[str, float] = {}

    def timed(name: str, hash_route: str, selector: str) -> None:
        start = time.monotonic()
        page.evaluate("(h) => { location.hash = h; }", hash_route)
        page.wait_for_selector(selector)
        got[name] = time.monotonic() - start

    timed("memory page + local graph", "#/memory/" + hub, f'#local-graph[data-drawn="{hub}"] svg')
    start = time.monotonic()
    page.select_option("#local-depth", "2")
    until(page, "document.querySelector('#local-graph-note').textContent.includes('2 steps')")
    page.wait_for_selector(f'#local-graph[data-drawn="{hub}"] svg')
    got["local graph, 2 steps"] = time.monotonic() - start
    page.select_option("#local-depth", "1")
    timed("topic map", "#/topics", '#topic-map[data-drawn="/"] svg')
    topic = page.locator("#topic-map a.node.topic").first.get_attribute("data-node")
    timed("topic drill-down", "#/topics/" + topic, f'#topic-map[data-drawn="{topic}"] svg')
    timed("check page", "#/check", "#stale li")
    page.keyboard.press("/")
    start = time.monotonic()
    page.fill("#search-box", "retry backoff policy")
    page.wait_for_selector(
        '#search-results[data-query="retry backoff policy"]:not([aria-busy]) a.search-hit'
    )
    got["search: typed to first result"] = time.monotonic() - start
    first = page.locator("#search-results a.search-hit").first.get_attribute("data-name")
    start = time.monotonic()
    page.keyboard.press("Enter")
    until(page, f"document.querySelector('.memory-header h1')?.textContent === {first!r}")
    got["search: Enter opens the first"] = time.monotonic() - start
    page.evaluate("() => { location.hash = '#/graph'; }")
    page.click("#draw-graph")
    page.wait_for_selector("#graph canvas")
    details = page.locator("#tree details[data-topic]").nth(2)
    details.locator("summary").click()
    link = details.locator("a[data-name]").first
    name = link.get_attribute("data-name")
    start = time.monotonic()
    link.click()
    until(
        page,
        "document.querySelector('#rendered') !== null"
        f" && document.querySelector('.memory-header h1').textContent === {name!r}",
    )
    got["sidebar click during full layout"] = time.monotonic() - start
    longest = max(page.evaluate("window.__longTasks"), default=0)
    context.close()
    return got, longest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--keep", type=Path, default=None, help="keep the corpus here")
    args = parser.parse_args(argv)

    import httpx
    from playwright.sync_api import sync_playwright

    from serena_memory.dashboard.server import DashboardServer

    workspace = Workspace(args.keep)
    project, size = workspace.project(args.count, seed=7)
    print(f"{args.count} memories, {size:.1f} MB; load average {os.getloadavg()[0]:.1f}")
    server = DashboardServer(project, home=workspace.home, port=0)
    server.start()
    try:
        headers = {"X-Serena-Token": server.token}
        with httpx.Client(base_url=server.base_url, headers=headers, timeout=600) as client:
            start = time.monotonic()
            topics = client.get("/api/graph/topics").json()
            snapshot = time.monotonic() - start
            start = time.monotonic()
            query = {"include_unmarked": 1, "fuzzy": 1, "reachability": 1, "limit": 50}
            client.get("/api/check", params=query)
            check = time.monotonic() - start
            start = time.monotonic()
            client.get("/api/search", params={"q": "warm"})
            index = time.monotonic() - start
        print(
            f"first visit: snapshot and graph {snapshot:.2f} s, check report {check:.2f} s, "
            f"search index {index:.2f} s"
        )
        biggest = max(
            (n for n in topics["nodes"] if n["kind"] == "topic"), key=lambda n: n["count"]
        )
        hub = biggest["name"] + "/core"
        runs: dict[str, list[float]] = {name: [] for name in TARGETS}
        longest: list[int] = []
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for _ in range(args.runs):
                got, task = one_run(browser, server.url, hub)
                for name, seconds in got.items():
                    runs[name].append(seconds)
                longest.append(task)
            browser.close()
    finally:
        server.stop()
        workspace.cleanup()
    print(f"{'scenario':36} {'median':>8} {'best':>8} {'target':>8}")
    for name, target in TARGETS.items():
        values = runs[name]
        med = statistics.median(values)
        mark = "ok" if med < target else "SLOW"
        print(f"{name:36} {med:7.2f}s {min(values):7.2f}s {target:7.1f}s  {mark}")
    med_task = statistics.median(longest)
    print(
        f"{'longest main-thread task':36} {med_task:6.0f}ms {min(longest):6.0f}ms {200:6.0f}ms"
        f"  {'ok' if med_task <= 200 else 'LONG'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
