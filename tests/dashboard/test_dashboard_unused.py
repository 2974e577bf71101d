"""The unused memories on the dashboard's Check page (`check --unused DAYS`), over real
HTTP and in a real headless browser: memories read through the command line are not
listed, the others are, with their reads and what their names cost the agent's list; a
fresh machine says that counting began too recently for any to be unused."""

from __future__ import annotations

import os
import time
from pathlib import Path

import httpx
import pytest
from cli_support import run_cli, run_cli_process
from helpers.browser_support import Tab, browser_only, expect

from serena_memory.core.store import MemoryStore
from serena_memory.dashboard.server import DashboardServer
from serena_memory.usage import log
from serena_memory.usage.report import listing_chars

DAY = 86400


def counting_began(store: MemoryStore, days: float, stale_reads: int = 0) -> None:
    """Reads of this project counted since ``days`` ago; ``stale_reads`` reads of 'stale'
    counted the day after that."""
    began = int(time.time() - days * DAY)
    rows = f"{began + DAY}\t{stale_reads}\tcli\tstale\n" if stale_reads else ""
    folded = (
        store.layout.home
        / "usage"
        / (log.project_file(str(store.layout.project_root)) + log.FOLDED)
    )
    folded.parent.mkdir(parents=True, exist_ok=True)
    folded.write_text(f"#serena-usage\t1\t{began}\n{rows}", encoding="utf-8")


def age(store: MemoryStore, name: str, days: float) -> None:
    """Make memory ``name`` look last changed ``days`` ago."""
    moment = time.time() - days * DAY
    os.utime(store.real_path_of(name), (moment, moment))


@pytest.fixture
def counted(store: MemoryStore, project: Path) -> MemoryStore:
    """Counting began 40 days ago: 'core' and 'auth/login' read now through the command
    line, 'stale' last read 39 days ago, 'forgotten' never, 'fresh' written just now."""
    for name in ("core", "auth/login", "stale", "forgotten", "fresh"):
        store.write(name, f"# {name}\n")
    counting_began(store, 40, stale_reads=3)
    for name in ("core", "auth/login", "stale", "forgotten"):
        age(store, name, 45)
    for name in ("core", "auth/login"):
        run_cli("memories", "read", name, str(project), check=True)
    return store


def get(dashboard: DashboardServer, **params: str) -> httpx.Response:
    """GET /api/check as the page asks it."""
    headers = {"Origin": dashboard.base_url, "X-Serena-Token": dashboard.token}
    url = dashboard.base_url + "/api/check"
    return httpx.get(url, params=params, headers=headers, timeout=30)


def test_the_check_api_lists_the_memories_nobody_read_with_their_reads_and_cost(
    server: DashboardServer,
    counted: MemoryStore,
) -> None:
    answer = get(server, unused="1", unused_days="30", limit="50")
    assert answer.status_code == 200, answer.text
    data = answer.json()
    section = data["sections"]["unused"]
    assert section["total"] == 2 and data["clean"] is False
    forgotten, stale = section["items"]  # the longest unread first
    assert (forgotten["name"], forgotten["reads"], forgotten["last_read"]) == (
        "forgotten",
        0,
        None,
    )
    assert (stale["name"], stale["reads"], stale["clients"]) == ("stale", 3, {"cli": 3})
    assert stale["last_read"].endswith("Z") and stale["days_unread"] == 39
    assert forgotten["listing_chars"] == listing_chars("forgotten")
    assert section["unused_days"] == 30 and section["usage_counted_days"] == 40
    assert section["usage_note"] is None and "delete it" in section["unused_advice"]
    # a longer wait lists fewer; the default is 30 days; off, no section
    longer = get(server, unused="1", unused_days="40", limit="50").json()
    assert [m["name"] for m in longer["sections"]["unused"]["items"]] == ["forgotten"]
    default = get(server, unused="1", limit="50").json()["sections"]["unused"]
    assert default["unused_days"] == 30 and default["total"] == 2
    assert "unused" not in get(server, unused="0", limit="50").json()["sections"]
    # the whole report, for scripts, carries what `check --unused 30 --json` does
    whole = get(server, unused="1", unused_days="30").json()
    assert [m["name"] for m in whole["unused"]] == ["forgotten", "stale"]
    assert whole["unused_days"] == 30 and whole["usage_counted_since"].endswith("Z")
    assert whole["clean"] is False


@pytest.mark.parametrize("days", ["0", "-3", "soon", "2.5", "", "36501"])
def test_a_number_of_days_the_check_cannot_take_is_refused_in_one_sentence(
    server: DashboardServer,
    store: MemoryStore,
    days: str,
) -> None:
    store.write("core", "x")
    answer = get(server, unused="1", unused_days=days, limit="50")
    assert answer.status_code == 400
    assert answer.json()["error"] == (
        "'unused_days' must be a whole number of days from 1 to 36500: how long nobody "
        "read a memory before it is listed as unused"
    )


def test_a_fresh_machine_lists_none_and_says_why_before_anyone_deletes(
    server: DashboardServer,
    store: MemoryStore,
) -> None:
    for name in ("core", "old/notes"):
        store.write(name, name)
        age(store, name, 400)  # old files: only the counting is new
    section = get(server, unused="1", unused_days="30", limit="50").json()["sections"]["unused"]
    assert section["total"] == 0 and section["usage_counted_days"] == 0
    assert section["usage_note"].startswith("No read has been counted on this machine yet")
    assert "none can be before" in section["usage_note"]
    # counting long enough ago, yet no read counted at all: listed, with a warning
    counting_began(store, 60)
    section = get(server, unused="1", unused_days="30", limit="50").json()["sections"]["unused"]
    assert section["total"] == 2
    assert section["usage_note"].startswith("No read of any memory has been counted")


def test_a_large_folder_pages_the_unused_like_the_other_sections(
    server: DashboardServer,
    store: MemoryStore,
) -> None:
    names = [f"notes/n{i:03}" for i in range(120)]
    for name in names:
        store.write(name, name)
        age(store, name, 45)
    counting_began(store, 40)
    first = get(server, unused="1", limit="50").json()["sections"]["unused"]
    assert first["total"] == 120 and len(first["items"]) == 50
    second = get(server, unused="1", limit="50", section="unused", offset="50").json()
    third = get(server, unused="1", limit="50", section="unused", offset="100").json()
    assert (second["total"], len(second["items"]), len(third["items"])) == (120, 50, 20)
    assert second["unused_days"] == 30
    paged = [m["name"] for m in first["items"] + second["items"] + third["items"]]
    assert sorted(paged) == names


@browser_only
def test_the_check_page_lists_the_memories_nobody_read_and_not_the_read_ones(
    tab: Tab,
    counted: MemoryStore,
    project: Path,
) -> None:
    page = tab.load()
    page.click("#nav-check")
    items = page.locator("#unused li.unused")
    expect(items).to_have_count(2)
    expect(page.locator("#unused h2")).to_contain_text("Unused for 30 days or more")
    expect(page.locator("#unused h2 .count")).to_have_text("2")
    forgotten, stale = items.nth(0), items.nth(1)
    expect(forgotten.locator("a")).to_have_text("forgotten")
    expect(forgotten).to_contain_text("forgotten: never read, unread for 40 days; ")
    expect(forgotten).to_contain_text(
        f"{listing_chars('forgotten')} characters in the agent's list"
    )
    expect(stale.locator("a")).to_have_text("stale")
    expect(stale).to_contain_text("3 reads, last read")
    expect(stale).to_contain_text(f"unread for 39 days; {listing_chars('stale')} characters")
    for read in ("core", "auth/login", "fresh"):  # read through the command line, or new
        expect(page.locator("#unused a", has_text=read)).to_have_count(0)
    expect(page.locator("#usage-since")).to_contain_text("Reads counted on this machine since")
    expect(page.locator("#unused")).to_contain_text("delete it, merge it")
    expect(page.locator("#usage-note")).to_have_count(0)
    expect(page.locator("#check-summary")).to_have_text("5 memories checked.")
    # a longer wait: only the memory never read is left
    page.fill("#opt-unused-days", "40")
    page.locator("#opt-unused-days").dispatch_event("change")
    expect(page.locator("#unused h2")).to_contain_text("Unused for 40 days or more")
    expect(items).to_have_count(1)
    expect(items.nth(0).locator("a")).to_have_text("forgotten")
    # read by another process (the command line): checked again, it is no longer listed
    run_cli_process("memories", "read", "forgotten", str(project), check=True)
    page.click("#recheck")
    expect(page.locator("#unused h2 .count")).to_have_text("0")
    expect(page.locator("#unused")).to_contain_text("No memory went unread for 40 days.")
    # the link opens the memory's page
    page.fill("#opt-unused-days", "30")
    page.locator("#opt-unused-days").dispatch_event("change")
    expect(items).to_have_count(1)
    items.nth(0).locator("a").click()
    expect(page.locator("#rendered h1")).to_have_text("stale")
    # the box off: the section goes
    page.click("#nav-check")
    expect(page.locator("#unused")).to_have_count(1)
    page.uncheck("#opt-unused")
    expect(page.locator("#unused")).to_have_count(0)


@browser_only
def test_a_fresh_machine_says_counting_began_and_a_bad_number_of_days_is_told(
    tab: Tab,
    store: MemoryStore,
) -> None:
    store.write("core", "# Core\n\nSee mem:old/notes.\n")
    store.write("old/notes", "# Notes\n")
    for name in ("core", "old/notes"):
        age(store, name, 400)
    page = tab.load()
    page.click("#nav-check")
    expect(page.locator("#unused h2 .count")).to_have_text("0")
    expect(page.locator("#usage-note")).to_contain_text(
        "No read has been counted on this machine yet"
    )
    expect(page.locator("#unused")).not_to_contain_text("never read")
    expect(page.locator(".notice.ok")).to_contain_text("No integrity problems found")
    page.fill("#opt-unused-days", "0")
    page.locator("#opt-unused-days").dispatch_event("change")
    expect(page.locator(".notice.error")).to_contain_text(
        "'unused_days' must be a whole number of days from 1 to 36500"
    )
    expect(page.locator("#opt-unused-days")).to_have_value("0")  # the options stay to fix it
