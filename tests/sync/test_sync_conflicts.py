"""Unresolved sync conflicts are shown wherever a person or the agent looks: `check`,
`list`, the dashboard (both versions side by side) and the agent's activation message.
Two stores with their own $SERENA_HOME sync through a real local bare repository."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import run_cli

from serena_memory.agent.onboarding import activation_message
from serena_memory.core.store import MemoryStore
from serena_memory.dashboard.server import DashboardServer
from serena_memory.integrity.references.check import run_check
from serena_memory.sync.conflicts import conflicts
from serena_memory.sync.merge import sync
from serena_memory.wiring import build_store

pytestmark = [
    pytest.mark.skipif(shutil.which("git") is None, reason="sync needs git"),
    pytest.mark.slow,  # syncs end to end over real git remotes
]

BASE = "# Style\n\nindent: 4\nquotes: double\nline: 100\n"
LAPTOP = BASE.replace("quotes: double", "quotes: single (laptop)")
OURS = BASE.replace("quotes: double", "quotes: backticks (here)")


@pytest.fixture
def conflicted(tmp_path: Path, store: MemoryStore) -> MemoryStore:
    """``store`` (this machine) holds a conflict on global/style against a laptop."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    (tmp_path / "laptop-project").mkdir()
    (tmp_path / "laptop-home").mkdir()
    laptop = build_store(tmp_path / "laptop-project", home=tmp_path / "laptop-home")
    laptop.write("global/style", BASE)
    sync(laptop, "global", str(remote))
    sync(store, "global", str(remote))
    laptop.write("global/style", LAPTOP)
    sync(laptop, "global", str(remote))
    store.write("global/style", OURS)
    result = sync(store, "global", str(remote))
    assert result.conflicts == ["global/style"]
    assert store.read("global/style") == OURS
    return store


def test_check_reports_the_conflict_until_it_is_resolved(conflicted: MemoryStore) -> None:
    report = run_check(conflicted)
    assert report.sync_conflicts == ["global/style"] and not report.is_clean()
    assert "Unresolved sync conflicts (1)" in report.to_text()
    assert report.to_dict()["sync_conflicts"] == ["global/style"]
    strict = run_cli("memories", "check", str(conflicted.layout.project_root), "--strict")
    assert strict.returncode == 1 and "global/style" in strict.stdout
    from serena_memory.sync.conflicts import resolve

    resolve(conflicted, "global/style", "local")
    assert run_check(conflicted).is_clean()
    assert conflicted.read("global/style") == OURS


def test_list_and_the_activation_message_name_the_conflict(conflicted: MemoryStore) -> None:
    listed = run_cli("memories", "list", str(conflicted.layout.project_root))
    assert "Unresolved sync conflicts (1" in listed.stdout and "global/style" in listed.stdout
    as_json = run_cli("memories", "list", str(conflicted.layout.project_root), "--json")
    assert '"sync_conflicts": ["global/style"]' in as_json.stdout.replace("\n", "")
    message = activation_message(conflicted)
    assert "Unresolved sync conflicts (1): `global/style`" in message


@pytest.fixture
def dashboard(conflicted: MemoryStore) -> Iterator[httpx.Client]:
    server = DashboardServer(conflicted.layout.project_root, home=conflicted.layout.home, port=0)
    server.start()
    headers = {"Origin": server.base_url, "X-Serena-Token": server.token}
    try:
        with httpx.Client(base_url=server.base_url, headers=headers) as client:
            yield client
    finally:
        server.stop()


def test_the_dashboard_shows_both_versions_and_resolves(
    dashboard: httpx.Client, conflicted: MemoryStore
) -> None:
    state = dashboard.get("/api/state").json()
    assert state["sync_conflicts"] == ["global/style"]
    both = dashboard.get("/api/sync-conflict", params={"name": "global/style"}).json()
    assert both["local_text"] == OURS and both["remote_text"] == LAPTOP
    check = dashboard.get("/api/check", params={"limit": 50}).json()
    assert check["sections"]["sync_conflicts"]["items"] == ["global/style"]
    done = dashboard.post(
        "/api/sync-conflict/resolve", json={"name": "global/style", "keep": "remote"}
    )
    assert done.status_code == 200, done.text
    assert conflicted.read("global/style") == LAPTOP
    assert conflicts(conflicted) == []
    again = dashboard.get("/api/sync-conflict", params={"name": "global/style"})
    assert again.status_code == 404 and "no sync conflict" in again.json()["error"]
    # the local text is one restore away: taking the other side was a history entry
    entries = conflicted.history().entries("global/style")
    assert entries[0].entry_point == "dashboard"


def test_the_dashboard_page_shows_both_versions_and_their_diff_read_only(
    conflicted: MemoryStore,
) -> None:
    from helpers.browser_support import CHROMIUM, CHROMIUM_ARGS, Tab, expect

    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    server = DashboardServer(conflicted.layout.project_root, home=conflicted.layout.home, port=0)
    server.start()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            tab = Tab(browser, server)
            page = tab.load()
            page.click("#sync-conflicts a")
            expect(page.locator("#sync-local")).to_have_text(OURS)
            expect(page.locator("#sync-remote")).to_have_text(LAPTOP)
            # read-only texts are text, not boxes that look editable and ignore typing
            assert page.locator("textarea").count() == 0
            diff = page.locator("#sync-diff")
            expect(diff.locator(".del")).to_have_text("-quotes: backticks (here)\n")
            expect(diff.locator(".add")).to_have_text("+quotes: single (laptop)\n")
            page.click("#sync-keep-remote")
            expect(page.locator("#rendered")).to_contain_text("quotes: single (laptop)")
            expect(page.locator("#sync-conflict-badge")).to_have_count(0)
            assert conflicted.read("global/style") == LAPTOP
            tab.close()
            browser.close()
    finally:
        server.stop()
