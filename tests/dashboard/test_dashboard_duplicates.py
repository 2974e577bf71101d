"""Duplicates on the dashboard's Check page, in a real headless browser over real HTTP:
a near-duplicate pair and a conflict shown with both texts side by side, and the JSON
the page reads."""

from __future__ import annotations

import httpx
import pytest
from helpers.browser_support import Tab, browser_only, expect
from test_duplicates import DEPLOY

from serena_memory.core.store import MemoryStore
from serena_memory.dashboard.server import DashboardServer

COPY = "\n".join(reversed(DEPLOY.replace("8080", "3000").splitlines()[2:])) + "\n"
TESTING = "# Testing\n\nRun `npm test` before pushing any branch to the remote.\n"
WORKFLOW = (
    "# Workflow\n\nFirst a line.\n\nRun `yarn test` before pushing any branch to the remote.\n"
)


@pytest.fixture
def written(store: MemoryStore) -> MemoryStore:
    store.write("ops/deploy", DEPLOY)
    store.write("notes/deploying", COPY)
    store.write("testing/core", TESTING)
    store.write("workflow", WORKFLOW)
    return store


def test_the_check_api_lists_duplicates_with_both_sides(
    server: DashboardServer,
    written: MemoryStore,
) -> None:
    headers = {"Origin": server.base_url, "X-Serena-Token": server.token}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=30) as client:
        answer = client.get("/api/check", params={"duplicates": "1", "limit": "50"})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["clean"] is False
    items = data["sections"]["duplicates"]["items"]
    assert [i["finding"] for i in items] == ["memories", "conflicts"]
    pair, conflict = items
    assert pair["first_text"] == COPY.rstrip("\n")
    assert pair["second_text"] == DEPLOY.rstrip("\n")
    assert (conflict["first_value"], conflict["second_value"]) == ("npm test", "yarn test")


@browser_only
def test_the_check_page_shows_duplicates_and_conflicts_side_by_side(
    tab: Tab,
    written: MemoryStore,
) -> None:
    page = tab.load()
    page.click("#nav-check")
    items = page.locator("#duplicates li.duplicate")
    expect(items).to_have_count(2)
    expect(page.locator("#duplicates h2 .count")).to_have_text("2")
    pair = items.nth(0)
    expect(pair).to_contain_text("Near-duplicate memories: 92% of the lines alike")
    expect(pair).to_contain_text("they disagree: 3000 vs 8080")
    sides = pair.locator(".side-by-side > div")
    expect(sides).to_have_count(2)
    expect(sides.nth(0).locator("h3")).to_have_text("notes/deploying lines 1–6")
    expect(sides.nth(1).locator("h3")).to_have_text("ops/deploy lines 1–8")
    expect(sides.nth(1).locator("pre")).to_contain_text("port 8080 every ten seconds")
    # next to each other, not one under the other
    left, right = (sides.nth(i).bounding_box() for i in (0, 1))
    assert left is not None and right is not None
    assert abs(left["y"] - right["y"]) < 2 and right["x"] > left["x"] + left["width"] - 1
    conflict = items.nth(1)
    expect(conflict).to_contain_text("They contradict each other: npm test vs yarn test")
    expect(conflict.locator("pre").nth(0)).to_have_text(
        "Run `npm test` before pushing any branch to the remote."
    )
    expect(conflict).to_contain_text("Fix the statement that is wrong")
    expect(page.locator("#check-summary")).to_have_text("4 memories checked.")
    # the Duplicates box off: the section goes
    page.uncheck("#opt-duplicates")
    expect(page.locator("#duplicates")).to_have_count(0)
