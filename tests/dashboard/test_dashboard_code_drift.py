"""Code drift on the dashboard, in a real git repository where files were moved and
deleted: the marks on a memory's page, the Code section of the Check page and its one-click
fix in a real headless browser, and the fix's gate over real HTTP."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from conftest import write_config
from helpers.browser_support import Tab, browser_only, expect
from test_code_drift import commit, git, write

from serena_memory.core.store import MemoryStore
from serena_memory.dashboard.server import DashboardServer

MEMORY = (
    "# Auth\n"
    "Token refresh lives in `src/auth/login.py` (see `src/auth/login.py:2`).\n"
    "The old helper src/auth/legacy.py does the rest; `src/auth/tokens.py` holds tokens.\n"
)


@pytest.fixture
def moved_repo(project: Path, store: MemoryStore) -> Path:
    """A project whose memory `auth` mentions a file since `git mv`'d and one deleted."""
    git(project, "init", "-q", "-b", "main")
    write(project, "src/auth/login.py", "class SessionStore:\n    def refresh(self): ...\n")
    write(project, "src/auth/legacy.py", "OLD = 1\n")
    write(project, "src/auth/tokens.py", "def refresh_token():\n    return 1\n")
    store.write("auth", MEMORY)
    commit(project, "start")
    (project / "src/auth/session").mkdir()
    git(project, "mv", "src/auth/login.py", "src/auth/session/refresh.py")
    git(project, "rm", "-q", "src/auth/legacy.py")
    commit(project, "move the refresh, drop the legacy helper")
    return project


def entries_of(store: MemoryStore, name: str) -> list:
    return store.history().entries(name)


@browser_only
def test_a_memory_page_marks_moved_and_missing_mentions_next_to_them(
    tab: Tab, moved_repo: Path
) -> None:
    page = tab.load()
    tab.open("#/memory/auth")
    rendered = page.locator("#rendered")
    moved = rendered.locator(".badge.drift.moved")
    # both spellings of the moved file are marked, each with the new path
    expect(moved).to_have_count(2)
    expect(moved.first).to_have_text("moved to src/auth/session/refresh.py")
    # the mark sits right after the mention it is about
    assert rendered.locator("code", has_text="src/auth/login.py:2").evaluate(
        "(c) => c.nextElementSibling.textContent"
    ) == ("moved to src/auth/session/refresh.py")
    missing = rendered.locator(".badge.drift.missing")
    expect(missing).to_have_count(1)  # the prose path; tokens.py exists and is unmarked
    assert "src/auth/legacy.py" in missing.evaluate("(b) => b.previousSibling.previousSibling.data")
    expect(page.locator("#code-drift li")).to_have_count(3)
    expect(page.locator("#code-drift li").nth(2)).to_contain_text("src/auth/legacy.py")
    expect(page.locator("#code-drift li").nth(2)).to_contain_text("(line 3)")


@browser_only
def test_the_check_page_lists_code_drift_and_fixes_a_moved_path_in_one_history_entry(
    tab: Tab, moved_repo: Path, store: MemoryStore
) -> None:
    before = len(entries_of(store, "auth"))
    page = tab.load()
    page.click("#nav-check")
    items = page.locator("#code li")
    expect(items).to_have_count(3)
    expect(page.locator("#code h2 .count")).to_have_text("3")
    expect(items.filter(has_text="legacy.py")).to_contain_text("missing")
    fixes = page.locator("#code button.code-fix")
    expect(fixes).to_have_count(2)
    expect(fixes.first).to_have_text("Point it to src/auth/session/refresh.py")
    fixes.first.click()
    expect(page.locator(".notice.ok")).to_contain_text(
        "Pointed `src/auth/login.py` in 'auth' (line 2) to src/auth/session/refresh.py"
    )
    # the other spelling of the same file on that line (with its line number) goes along
    expect(page.locator("#code li")).to_have_count(1)
    assert store.read("auth") == MEMORY.replace("src/auth/login.py", "src/auth/session/refresh.py")
    entries = entries_of(store, "auth")
    assert len(entries) == before + 1
    assert entries[0].to_dict()["action"] == "fix-code-reference"
    # the memory page shows only what is left
    tab.open("#/memory/auth")
    expect(page.locator("#rendered .badge.drift.missing")).to_have_count(1)
    expect(page.locator("#rendered .badge.drift.moved")).to_have_count(0)


@browser_only
def test_a_read_only_memory_offers_no_code_fix(
    tab: Tab, moved_repo: Path, serena_home: Path, store: MemoryStore
) -> None:
    write_config(serena_home / "serena_config.yml", "read_only_memory_patterns: ['auth']\n")
    page = tab.load()
    page.click("#nav-check")
    fixes = page.locator("#code button.code-fix")
    expect(fixes).to_have_count(2)
    expect(fixes.first).to_be_disabled()
    expect(page.locator("#code li").first).to_contain_text("read-only source")
    assert store.read("auth") == MEMORY


def test_the_fix_needs_the_token_and_the_dashboards_origin_and_honours_read_only(
    server: DashboardServer, moved_repo: Path, store: MemoryStore, serena_home: Path
) -> None:
    url = server.base_url + "/api/fix-code-reference"
    body = {"memory": "auth", "line": 2, "mention": "src/auth/login.py"}
    token = {"X-Serena-Token": server.token}
    assert httpx.post(url, json=body, headers={"Origin": server.base_url}).status_code == 401
    for origin in [None, "http://evil.example"]:
        headers = {"Origin": origin, **token} if origin else token
        assert httpx.post(url, json=body, headers=headers).status_code == 403, origin
    assert store.read("auth") == MEMORY
    own = {"Origin": server.base_url, **token}
    bad = httpx.post(url, json={**body, "line": "2"}, headers=own)
    assert bad.status_code == 400
    assert bad.json()["error"] == "'line' must be a line number (1 or more)"
    gone = httpx.post(url, json={**body, "mention": "src/auth/legacy.py", "line": 3}, headers=own)
    assert gone.status_code == 409
    assert "no longer a moved path" in gone.json()["error"]
    write_config(serena_home / "serena_config.yml", "read_only_memory_patterns: ['auth']\n")
    refused = httpx.post(url, json=body, headers=own)
    assert refused.status_code == 403
    assert "read-only" in refused.json()["error"]
    assert store.read("auth") == MEMORY
    write_config(serena_home / "serena_config.yml", "read_only_memory_patterns: []\n")
    done = httpx.post(url, json=body, headers=own)
    assert done.status_code == 200
    assert done.json()["fixed"][0]["new_path"] == "src/auth/session/refresh.py"
    assert "`src/auth/session/refresh.py` (see" in store.read("auth")
    # the memory's tag follows its drift marks: the same text, other code, a new answer
    memory = httpx.get(server.base_url + "/api/memory?name=auth", headers=token)
    assert [f["mention"] for f in memory.json()["code_drift"]] == ["src/auth/legacy.py"]
    tag = {"If-None-Match": memory.headers["etag"], **token}
    assert httpx.get(server.base_url + "/api/memory?name=auth", headers=tag).status_code == 304
    git(moved_repo, "rm", "-q", "src/auth/tokens.py")
    commit(moved_repo, "drop tokens")
    again = httpx.get(server.base_url + "/api/memory?name=auth", headers=tag)
    assert again.status_code == 200
    assert sorted(f["mention"] for f in again.json()["code_drift"]) == [
        "src/auth/legacy.py",
        "src/auth/tokens.py",
    ]


def test_turning_a_page_of_the_code_section_pages_through_what_the_load_found(
    server: DashboardServer, moved_repo: Path
) -> None:
    token = {"X-Serena-Token": server.token}
    check = server.base_url + "/api/check?code=1&limit=1"
    loaded = httpx.get(check, headers=token).json()
    assert loaded["sections"]["code"]["total"] == 3
    # the code moves on while the user pages: the pages stay those of the loaded list
    git(moved_repo, "mv", "src/auth/tokens.py", "src/auth/session/tokens.py")
    commit(moved_repo, "move the tokens")
    pages = [
        httpx.get(f"{check}&section=code&offset={offset}", headers=token).json()
        for offset in (1, 2)
    ]
    assert [p["total"] for p in pages] == [3, 3]
    first = loaded["sections"]["code"]["items"][0]["mention"]
    assert sorted([first, *(p["items"][0]["mention"] for p in pages)]) == sorted(
        ["src/auth/login.py", "src/auth/login.py:2", "src/auth/legacy.py"]
    )
    # the first page of the code alone (how the page loads it) checks the code afresh
    fresh = httpx.get(f"{check}&section=code&offset=0", headers=token).json()
    assert fresh["total"] == 4 and fresh["failing"] == 4
    # another section's page leaves the code alone; checking again sees the move
    other = httpx.get(f"{check}&section=stale&offset=0", headers=token).json()
    assert other["section"] == "stale" and other["total"] == 0
    again = httpx.get(check, headers=token).json()
    assert again["sections"]["code"]["total"] == 4


def test_the_search_box_gets_the_drift_of_the_lines_it_shows_and_the_old_path(
    server: DashboardServer, moved_repo: Path
) -> None:
    token = {"X-Serena-Token": server.token}
    search = server.base_url + "/api/search"
    old = httpx.get(search, params={"q": "src/auth/login.py"}, headers=token).json()
    (line,) = [entry for entry in old["hits"][0]["lines"] if entry["line"] == 2]
    assert line["drift"]["told"] == "`src/auth/login.py` is now `src/auth/session/refresh.py`"
    new = httpx.get(search, params={"q": "src/auth/session/refresh.py"}, headers=token).json()
    assert new["hits"][0]["name"] == "auth"
    assert new["renamed"] == [
        {
            "term": "src/auth/session/refresh.py",
            "kind": "path",
            "held": [  # every mention of the old path, as written
                {"memory": "auth", "line": 2, "mention": "src/auth/login.py"},
                {"memory": "auth", "line": 2, "mention": "src/auth/login.py:2"},
            ],
        }
    ]
