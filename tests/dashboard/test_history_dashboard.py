"""The dashboard's history: a panel per memory (entries with who made them, the change as
a diff, restore), a recent-changes view, and every dashboard change attributed to the
person at the dashboard, in a real headless browser and over real HTTP."""

from __future__ import annotations

import getpass
from pathlib import Path

import httpx
from conftest import write_config
from helpers.browser_support import Tab, browser_only, expect

from serena_memory.core.store import MemoryStore
from serena_memory.dashboard.server import DashboardServer

pytestmark = browser_only


def test_the_history_panel_shows_who_the_change_and_restores(
    tab: Tab,
    store: MemoryStore,
) -> None:
    store.write("fact", "the first text\n")
    store.write("fact", "the second text\n")
    page = tab.load()
    page.click('a[data-name="fact"]')
    page.click("#history-button")
    entries = page.locator("#history-panel .history-entry")
    expect(entries).to_have_count(2)
    expect(entries.nth(0).locator(".who")).to_have_text(f"cli {getpass.getuser()}")
    entries.nth(0).locator(".history-show").click()
    expect(page.locator("#history-diff .add")).to_have_text("+the second text\n")
    expect(page.locator("#history-diff .del")).to_have_text("-the first text\n")
    expect(entries.nth(0).locator(".history-restore")).to_have_count(0)  # the current text
    entries.nth(1).locator(".history-restore").click()
    expect(page.locator(".notice.ok")).to_contain_text("Restored 1 memory to entry")
    expect(page.locator("#rendered")).to_have_text("the first text")
    assert store.read("fact") == "the first text\n"
    latest = store.history().entries("fact")[0]
    assert (latest.entry_point, latest.who, latest.action) == (
        "dashboard",
        getpass.getuser(),
        "restore-memory",
    )
    page.click("#nav-history")
    recent = page.locator("#recent-changes .history-entry")
    expect(recent).to_have_count(3)
    expect(recent.nth(0).locator(".who")).to_have_text(
        f"dashboard {getpass.getuser()} (restore-memory)"
    )
    recent.nth(0).locator("a.history-memory").click()
    expect(page.locator(".memory-header h1")).to_have_text("fact")


def test_a_deleted_memory_comes_back_from_its_page(
    tab: Tab,
    store: MemoryStore,
) -> None:
    store.write("keep", "x\n")
    store.write("topic/lost", "the one note that mattered\n")
    store.delete("topic/lost")
    page = tab.load()
    tab.open("#/history")
    recent = page.locator("#recent-changes .history-entry")
    expect(recent.nth(0).locator("a.history-memory.d")).to_have_text("topic/lost")
    recent.nth(0).locator("a.history-memory").click()
    expect(page.locator(".notice.error")).to_contain_text("not found")
    page.click("#history-button")
    first = page.locator("#history-panel .history-entry").nth(0)
    expect(first).to_contain_text("Delete topic/lost")
    first.locator(".history-restore").click()
    expect(page.locator("#rendered")).to_have_text("the one note that mattered")
    assert store.read("topic/lost") == "the one note that mattered\n"


def test_read_only_memories_show_history_but_no_restore(
    tab: Tab,
    store: MemoryStore,
    project: Path,
) -> None:
    store.write("rules", "keep\n")
    store.write("rules", "changed\n")
    write_config(project / ".serena" / "project.yml", "read_only_memory_patterns: ['rules']\n")
    page = tab.load()
    page.click('a[data-name="rules"]')
    page.click("#history-button")
    expect(page.locator("#history-panel .history-entry")).to_have_count(2)
    expect(page.locator("#history-panel .history-restore")).to_be_disabled()


def _client(srv: DashboardServer) -> httpx.Client:
    headers = {"Origin": srv.base_url, "X-Serena-Token": srv.token}
    return httpx.Client(base_url=srv.base_url, headers=headers, timeout=60)


def test_the_history_api_refuses_read_only_and_ignored(
    server: DashboardServer,
    store: MemoryStore,
    project: Path,
) -> None:
    store.write("rules", "keep\n")
    store.write("rules", "changed\n")
    store.write("secret/token", "x\n")
    write_config(
        project / ".serena" / "project.yml",
        "read_only_memory_patterns: ['rules']\nignored_memory_patterns: ['secret/.*']\n",
    )
    with _client(server) as client:
        entries = client.get("/api/history", params={"name": "rules"}).json()["entries"]
        assert [e["summary"] for e in entries] == ["Replace rules", "Create rules"]
        refused = client.post("/api/restore", json={"name": "rules", "rev": entries[1]["rev"]})
        assert refused.status_code == 403, refused.text
        assert "read-only" in refused.json()["error"]
        hidden = client.get("/api/history", params={"name": "secret/token"})
        assert hidden.status_code == 404 and "ignored" in hidden.json()["error"]
        bad = client.get("/api/history/change", params={"name": "rules", "rev": "nope"})
        assert (
            bad.status_code == 400 and "neither a history entry nor a time" in bad.json()["error"]
        )
        no_token = httpx.get(f"{server.base_url}/api/history", headers={"Origin": server.base_url})
        assert no_token.status_code == 401
    assert store.read("rules") == "changed\n"


def test_one_click_fixes_are_recorded_as_the_dashboard(
    server: DashboardServer,
    store: MemoryStore,
) -> None:
    store.write("auth/login", "how to log in\n")
    store.write("core", "see mem:auth/logn and auth/login\n")
    with _client(server) as client:
        fixed = client.post(
            "/api/fix-reference", json={"source": "core", "old": "auth/logn", "new": "auth/login"}
        )
        assert fixed.status_code == 200, fixed.text
        prefixed = client.post("/api/auto-prefix", json={"dry_run": False})
        assert prefixed.status_code == 200, prefixed.text
    entries = store.history().entries("core")
    user = getpass.getuser()
    assert [(e.entry_point, e.who, e.action) for e in entries[:2]] == [
        ("dashboard", user, "auto-prefix"),
        ("dashboard", user, "fix-reference"),
    ]
    assert store.read("core") == "see mem:auth/login and mem:auth/login\n"
