"""A first week on the dashboard, in Chromium: a delete that says it can be undone (and
what it breaks), a stale link that says so on one page, a search box that stays on the
search page, a Check page that keeps global memories out of a project's reach."""

from __future__ import annotations

from pathlib import Path

from conftest import write_config
from helpers.browser_support import Tab, browser_only, expect

from serena_memory.core.store import MemoryStore
from serena_memory.dashboard.server import DashboardServer

pytestmark = browser_only


def test_the_delete_dialog_says_the_history_brings_it_back_and_names_its_referrers(
    tab: Tab, store: MemoryStore
) -> None:
    """It said "Delete http/middleware for good? This can't be undone." while the History
    panel then brought it back."""
    store.write("http/middleware", "# Middleware\n\nOrder matters.\n")
    store.write("core", "# Core\n\nRead `mem:http/middleware` before touching a handler.\n")
    page = tab.load()
    page.click('a[data-name="http/middleware"]')
    page.click("#delete-button")
    dialog = page.locator('[role="alertdialog"]')
    expect(dialog).to_contain_text("The history keeps its text")
    expect(dialog).not_to_contain_text("can't be undone")
    expect(dialog.locator("#delete-referrers")).to_contain_text("1 memory refers to it (core)")
    page.click("#delete-confirm")
    expect(page.locator(".notice.ok")).to_contain_text("Deleted memory 'http/middleware'.")
    page.click(".notice.ok a.notice-link")
    page.click("#history-button")
    page.locator(".history-restore", has_text="Bring back the text before this").click()
    expect(page.locator("#rendered h1")).to_have_text("Middleware")
    assert store.read("http/middleware") == "# Middleware\n\nOrder matters.\n"


def test_with_history_off_the_delete_dialog_says_it_cannot_be_undone(
    tab: Tab, store: MemoryStore, project: Path
) -> None:
    write_config(project / ".serena" / "project.yml", "memory_history: false\n")
    store.write("scratch", "# Scratch\n")
    page = tab.load()
    page.click('a[data-name="scratch"]')
    page.click("#delete-button")
    dialog = page.locator('[role="alertdialog"]')
    expect(dialog).to_contain_text("History is off for it (memory_history: false)")
    expect(dialog.locator("#delete-referrers")).to_have_count(0)


def test_a_link_without_this_runs_token_is_one_page_that_says_what_to_run(
    tab: Tab, store: MemoryStore, server: DashboardServer
) -> None:
    """A bookmark after a restart showed "No project", "0 project memories, 0 global
    memories, 0 read-only." and live buttons, the only error a small box in the sidebar."""
    store.write("core", "# Core\n")
    page = tab.page
    for address in (server.base_url + "/", server.base_url + "/?token=from-an-earlier-run"):
        page.goto(address)
        stale = page.locator("#stale-link")
        expect(stale).to_contain_text("This dashboard link is out of date")
        expect(stale).to_contain_text("serena dashboard")
        expect(page.locator("#main")).not_to_contain_text("No project")
        expect(page.locator("#main")).not_to_contain_text("0 project memories")
        expect(page.locator("#main button")).to_have_count(0)
        expect(page.locator(".sidebar")).to_be_hidden()
        expect(page.locator("nav.nav")).to_be_hidden()
        tab.open("#/check")  # every view is the same page
        expect(page.locator("#stale-link")).to_be_visible()
    page.goto(server.url)  # the printed address works again at once
    expect(page.locator('a[data-name="core"]')).to_be_visible()
    expect(page.locator("#stale-link")).to_have_count(0)


def test_the_home_page_counts_one_memory_as_one(tab: Tab, store: MemoryStore) -> None:
    """It said "1 project memories, 1 global memories"."""
    store.write("core", "# Core\n")
    store.write("global/style", "# Style\n")
    page = tab.load()
    expect(page.locator("#main")).to_contain_text("1 project memory, 1 global memory, 0 read-only.")


def test_the_search_box_is_emptied_on_every_other_page(tab: Tab, store: MemoryStore) -> None:
    """Only history and home emptied it: a memory, the Check page, the graph and the
    topics kept the query of a search left behind."""
    store.write("auth/tokens", "How token refresh works.\n")
    page = tab.load()
    for route in ("#/memory/auth/tokens", "#/check", "#/topics", "#/new"):
        tab.open("#/search/token")
        expect(page.locator("#search-results .search-hit")).to_have_count(1)
        assert page.input_value("#search-box") == "token"
        tab.open(route)
        expect(page.locator("#search-box")).to_have_value("")
