"""The dashboard in a real headless browser (Debian's chromium driven by Playwright).

One browser for the whole module, a fresh project, server and browser context per test.
Skipped, with the reason, when chromium is not installed (scripts/test.sh installs it).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from conftest import REPO_ROOT, write_config
from helpers.browser_support import Tab, browser_only, expect, wait_until

from serena_memory.core.changes import Provenance, acting_as
from serena_memory.core.store import MemoryStore
from serena_memory.dashboard.server import DashboardServer
from serena_memory.usage.report import store_usage
from serena_memory.wiring import build_store

pytestmark = browser_only


# -- browsing ---------------------------------------------------------------------------------
def test_the_tree_shows_topics_scopes_read_only_badges_counts_and_filters(
    browser, server: DashboardServer, store: MemoryStore, serena_home: Path, project: Path
) -> None:
    write_config(serena_home / "serena_config.yml", "read_only_memory_patterns: ['global/.*']\n")
    write_config(project / ".serena" / "project.yml", "ignored_memory_patterns: ['drafts/.*']\n")
    for name in ["core", "auth/login", "auth/session", "payments/refunds", "global/style"]:
        store.write(name, f"# {name}\n")
    (project / ".serena" / "memories" / "drafts").mkdir()
    (project / ".serena" / "memories" / "drafts" / "secret.md").write_text("hidden")
    t = Tab(browser, server)
    page = t.load()
    project_tree = page.locator('section[data-scope="project"]')
    global_tree = page.locator('section[data-scope="global"]')
    expect(project_tree.locator("h2 .count")).to_have_text("4")
    expect(project_tree.locator('details[data-topic="auth"] summary .count')).to_have_text("2")
    expect(global_tree.locator('a[data-name="global/style"]')).to_be_visible()
    expect(global_tree.locator("li", has_text="style").locator(".badge.ro")).to_have_text(
        "read-only"
    )
    expect(project_tree.locator(".badge.ro")).to_have_count(0)
    expect(page.locator('a[data-name="drafts/secret"]')).to_have_count(0)
    page.fill("#filter", "sess")
    expect(page.locator("#tree a[data-name]")).to_have_count(1)
    expect(page.locator('a[data-name="auth/session"]')).to_be_visible()
    page.fill("#filter", "")
    expect(page.locator("#tree a[data-name]")).to_have_count(5)
    t.close()


def test_a_memory_shows_rendered_markdown_reference_links_broken_marks_and_backlinks(
    tab: Tab, store: MemoryStore
) -> None:
    store.write("core", "# Core\n\n- read `mem:auth/login` before login work\n- mem:gone\n")
    store.write("auth/login", "Login. Back to mem:core.")
    page = tab.load()
    page.click('a[data-name="core"]')
    expect(page.locator("#rendered h1")).to_have_text("Core")
    broken = page.locator("#rendered a.mem-ref.broken")
    expect(broken).to_have_text("mem:gone")
    page.locator("#rendered a.mem-ref", has_text="mem:auth/login").click()
    expect(page.locator(".memory-header h1")).to_have_text("auth/login")
    expect(page).to_have_url(f"{tab.server.base_url}/#/memory/auth/login")
    page.click('a[data-name="core"]')
    expect(page.locator("#backlinks")).to_contain_text("auth/login")
    # nothing but the memory and its panels: no stray word where a part is left out
    texts = page.locator("#main").evaluate(
        "(m) => [...m.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent)"
    )
    assert [t for t in texts if t.strip()] == []


def test_a_memory_page_shows_its_reads_by_client_and_counts_one_read_per_opening(
    tab: Tab,
    store: MemoryStore,
    project: Path,
    serena_home: Path,
) -> None:
    store.write("core", "# Core\n")
    store.write("forgotten", "# Nobody reads this\n")
    with acting_as(Provenance("mcp", "claude-code 2.0", "read_memory")):
        store.read("core")
        store.read("core")
    page = tab.load()
    page.click('a[data-name="core"]')
    usage = page.locator("#usage")
    # the agent's two reads and this opening of the page
    expect(usage).to_contain_text("Read 3 times")
    expect(usage).to_contain_text("claude-code: 2")
    expect(usage).to_contain_text("dashboard: 1")
    page.evaluate("window.dispatchEvent(new Event('focus'))")  # a poll of the open memory
    page.wait_for_timeout(500)
    tab.open("#/memory/forgotten")
    expect(page.locator(".memory-header h1")).to_have_text("forgotten")
    # the page's own opening is the first read of it
    expect(page.locator("#usage")).to_contain_text("Read once")
    reads = {m.name: m.reads for m in store_usage(build_store(project, home=serena_home)).memories}
    assert reads == {"core": 3, "forgotten": 1}


def test_a_memory_on_show_follows_changes_made_elsewhere(tab: Tab, store: MemoryStore) -> None:
    store.write("notes", "first text")
    page = tab.load()
    tab.open("#/memory/notes")
    expect(page.locator("#rendered")).to_have_text("first text")
    store.write("notes", "the agent's text")
    store.write("fresh", "new memory")
    page.evaluate("window.dispatchEvent(new Event('focus'))")  # the person comes back
    expect(page.locator("#rendered")).to_have_text("the agent's text")
    expect(page.locator('a[data-name="fresh"]')).to_be_visible()


# -- changing memories ----------------------------------------------------------------------
def test_create_a_memory(tab: Tab, store: MemoryStore) -> None:
    page = tab.load()
    page.click("#nav-new")
    page.fill("#new-name", "testing/how_to_run")
    page.fill("#new-content", "# Running tests\n\n`pytest -q`, see mem:core.\n")
    page.click("#create-button")
    expect(page.locator(".notice.ok")).to_have_text("Created 'testing/how_to_run'.")
    expect(page.locator("#rendered h1")).to_have_text("Running tests")
    expect(page.locator('a[data-name="testing/how_to_run"]')).to_be_visible()
    assert store.read("testing/how_to_run") == "# Running tests\n\n`pytest -q`, see mem:core.\n"
    # creating over an existing memory is refused, the text typed stays in the form
    page.click("#nav-new")
    page.fill("#new-name", "testing/how_to_run")
    page.fill("#new-content", "other")
    page.click("#create-button")
    expect(page.locator(".notice.error")).to_contain_text("already exists")
    expect(page.locator("#new-content")).to_have_value("other")


def test_edit_a_memory(tab: Tab, store: MemoryStore) -> None:
    store.write("conventions", "Use tabs.\n")
    page = tab.load()
    page.click('a[data-name="conventions"]')
    page.click("#edit-button")
    expect(page.locator("#editor")).to_have_value("Use tabs.\n")
    page.fill("#editor", "Use **four spaces**.\n")
    page.click("#preview-button")
    expect(page.locator("#preview strong")).to_have_text("four spaces")
    assert store.read("conventions") == "Use tabs.\n"  # a preview saves nothing
    page.click("#save-button")
    expect(page.locator("#rendered strong")).to_have_text("four spaces")
    assert store.read("conventions") == "Use **four spaces**.\n"


def test_rename_moves_the_memory_and_rewrites_references(tab: Tab, store: MemoryStore) -> None:
    store.write("auth/login", "How login works.")
    store.write("core", "See mem:auth/login.")
    store.write("payments/core", "Needs `mem:auth/login` and mem:auth/login_flow.")
    page = tab.load()
    page.click('a[data-name="auth/login"]')
    page.click("#rename-button")
    page.fill("#rename-to", "identity/sign_in")
    page.click("#rename-confirm")
    expect(page.locator(".notice.ok")).to_contain_text("rewrote 2 references in 2 memories")
    expect(page.locator(".memory-header h1")).to_have_text("identity/sign_in")
    expect(page.locator('a[data-name="identity/sign_in"]')).to_be_visible()
    expect(page.locator('a[data-name="auth/login"]')).to_have_count(0)
    assert not store.exists("auth/login")
    assert store.read("core") == "See mem:identity/sign_in."
    assert store.read("payments/core") == ("Needs `mem:identity/sign_in` and mem:auth/login_flow.")


def test_delete_asks_for_confirmation(tab: Tab, store: MemoryStore) -> None:
    store.write("obsolete", "old")
    page = tab.load()
    page.click('a[data-name="obsolete"]')
    page.click("#delete-button")
    page.click("#delete-cancel")
    assert store.exists("obsolete")
    page.click("#delete-button")
    expect(page.locator('[role="alertdialog"]')).to_contain_text("obsolete")
    page.click("#delete-confirm")
    expect(page.locator(".notice.ok")).to_contain_text("Deleted memory 'obsolete'.")
    expect(page.locator('a[data-name="obsolete"]')).to_have_count(0)
    assert not store.exists("obsolete")


def test_read_only_memories_offer_no_changes(
    browser, server: DashboardServer, store: MemoryStore, project: Path
) -> None:
    store.write("policy", "Never change this.")
    write_config(project / ".serena" / "project.yml", "read_only_memory_patterns: ['policy']\n")
    t = Tab(browser, server)
    t.load()
    t.page.click('a[data-name="policy"]')
    expect(t.page.locator(".memory-header .badge.ro")).to_have_text("read-only")
    for button in ["#edit-button", "#rename-button", "#delete-button"]:
        expect(t.page.locator(button)).to_be_disabled()
    t.close()


# -- no lost work -----------------------------------------------------------------------------
def test_two_tabs_editing_the_same_memory_lose_nothing(
    browser, server: DashboardServer, store: MemoryStore
) -> None:
    store.write("notes", "base\n")
    first, second = Tab(browser, server), Tab(browser, server)
    for t in (first, second):
        t.load()
        t.open("#/memory/notes")
        t.page.click("#edit-button")
    first.page.fill("#editor", "first tab's text\n")
    first.page.click("#save-button")
    expect(first.page.locator("#rendered")).to_contain_text("first tab's text")
    second.page.fill("#editor", "second tab's text\n")
    second.page.click("#save-button")
    # refused: the second tab sees both versions and decides
    expect(second.page.locator("#conflict-theirs")).to_have_value("first tab's text\n")
    expect(second.page.locator("#conflict-mine")).to_have_value("second tab's text\n")
    assert store.read("notes") == "first tab's text\n"
    second.page.fill("#conflict-mine", "first tab's text\nsecond tab's text\n")
    second.page.click("#keep-mine")
    expect(second.page.locator("#rendered")).to_contain_text("second tab's text")
    assert store.read("notes") == "first tab's text\nsecond tab's text\n"
    first.close()
    second.close()


def test_the_conflict_banner_says_it_once_with_what_to_do(
    browser, server: DashboardServer, store: MemoryStore
) -> None:
    """It said "memory 'notes' was changed since it was read; nothing was written. It
    changed since you opened it (...). Nothing is lost: ..."."""
    store.write("notes", "base\n")
    first, second = Tab(browser, server), Tab(browser, server)
    for t in (first, second):
        t.load()
        t.open("#/memory/notes")
        t.page.click("#edit-button")
    first.page.fill("#editor", "first tab's text\n")
    first.page.click("#save-button")
    expect(first.page.locator("#rendered")).to_contain_text("first tab's text")
    second.page.fill("#editor", "second tab's text\n")
    second.page.click("#save-button")
    banner = second.page.locator("#main .notice")
    expect(banner).to_have_count(1)
    said = banner.inner_text()
    assert said.count("changed") == 1 and said.lower().count("nothing") == 0, said
    assert said.startswith("Not saved: 'notes' was changed since you opened it"), said
    assert "Save my version" in said and "Take theirs" in said
    second.page.fill("#conflict-mine", "third\n")
    store.write("notes", "the agent again\n")  # a second conflict: still one banner
    second.page.click("#keep-mine")
    expect(second.page.locator("#conflict-theirs")).to_have_value("the agent again\n")
    expect(banner).to_have_count(1)
    first.close()
    second.close()


def test_a_library_write_while_editing_is_shown_and_can_be_kept(
    tab: Tab, store: MemoryStore
) -> None:
    store.write("notes", "base\n")
    page = tab.load()
    tab.open("#/memory/notes")
    page.click("#edit-button")
    page.fill("#editor", "my edit\n")
    store.write("notes", "the agent wrote this\n")  # through the library, meanwhile
    page.click("#save-button")
    expect(page.locator("#conflict-theirs")).to_have_value("the agent wrote this\n")
    expect(page.locator("#conflict-mine")).to_have_value("my edit\n")
    assert store.read("notes") == "the agent wrote this\n"
    page.click("#take-theirs")
    expect(page.locator("#rendered")).to_contain_text("the agent wrote this")
    assert store.read("notes") == "the agent wrote this\n"


def test_a_memory_deleted_while_editing_can_be_saved_again(tab: Tab, store: MemoryStore) -> None:
    store.write("notes", "base\n")
    page = tab.load()
    tab.open("#/memory/notes")
    page.click("#edit-button")
    page.fill("#editor", "still needed\n")
    store.delete("notes")
    page.click("#save-button")
    expect(page.locator("#conflict-theirs-deleted")).to_be_visible()
    page.click("#keep-mine")
    expect(page.locator("#rendered")).to_contain_text("still needed")
    assert store.read("notes") == "still needed\n"


# -- integrity ----------------------------------------------------------------------------------
def test_the_integrity_report_and_its_one_click_fixes(tab: Tab, store: MemoryStore) -> None:
    store.write("core", "Start with mem:auth/loginn, then read auth/session.\n")
    store.write("auth/login", "Login.")
    store.write("auth/session", "Sessions. Back to mem:core.")
    store.write("island", "Nothing points here.")
    page = tab.load()
    page.click("#nav-check")
    stale = page.locator("#stale li")
    expect(stale).to_have_count(1)
    expect(stale).to_contain_text("mem:auth/loginn")
    expect(page.locator("#bare li")).to_contain_text("auth/session")
    expect(page.locator("#unreachable li")).to_have_text(["auth/login", "auth/session", "island"])
    stale.locator('button[data-candidate="auth/login"]').click()
    expect(page.locator(".notice.ok")).to_contain_text(
        "Pointed 1 reference in 'core' from mem:auth/loginn to mem:auth/login"
    )
    expect(page.locator("#stale li")).to_have_count(0)
    assert store.read("core") == "Start with mem:auth/login, then read auth/session.\n"
    page.click("#auto-prefix")
    expect(page.locator("#auto-prefix-result")).to_contain_text("Added `mem:` to 1 bare mention")
    expect(page.locator("#bare li")).to_have_count(0)
    assert store.read("core") == "Start with mem:auth/login, then read mem:auth/session.\n"
    expect(page.locator("#unreachable li")).to_have_text(["island"])


def test_the_reference_graph_is_drawn_and_clickable(tab: Tab, store: MemoryStore) -> None:
    store.write("core", "mem:a mem:b mem:missing")
    store.write("a", "mem:b")
    store.write("b", "back to mem:core")
    store.write("alone", "x")
    page = tab.load()
    page.click("#nav-graph")
    expect(page.locator("#graph svg")).to_have_count(0)  # only drawn when asked for
    page.click("#draw-graph")
    graph = page.locator("#graph svg")
    expect(graph.locator("a.node")).to_have_count(5)
    expect(graph.locator("line.edge")).to_have_count(5)
    expect(graph.locator("line.edge.broken")).to_have_count(1)
    expect(graph.locator('a.node.missing[data-node="missing"]')).to_have_count(1)
    expect(graph.locator('a.node.unreached[data-node="alone"]')).to_have_count(1)
    # every node sits inside the drawing
    box = graph.bounding_box()
    for circle in graph.locator("circle").all():
        c = circle.bounding_box()
        assert box["x"] <= c["x"] and c["x"] + c["width"] <= box["x"] + box["width"] + 1
    graph.locator('a.node[data-node="a"]').click()
    expect(page.locator(".memory-header h1")).to_have_text("a")


def test_an_undecodable_memory_is_shown_as_such_on_the_check_and_graph_pages(
    tab: Tab, store: MemoryStore
) -> None:
    store.write("core", "mem:latin1 mem:a")
    store.write("a", "fine")
    (store.layout.memories_dir / "latin1.md").write_bytes(b"Caf\xe9 mem:a")
    page = tab.load()
    page.click("#nav-check")
    expect(page.locator("#unreadable li")).to_have_text(["latin1"])
    expect(page.locator("#unreachable")).to_contain_text("Every memory can be reached")
    page.click("#nav-graph")
    page.click("#draw-graph")
    expect(page.locator('#graph a.node.unreadable[data-node="latin1"]')).to_have_count(1)
    expect(page.locator('#graph a.node[data-node="a"]')).to_have_count(1)
    tab.open("#/memory/latin1")
    expect(page.locator(".notice.error")).to_contain_text("not valid UTF-8")


# -- large memories and slow answers -----------------------------------------------------------
# Installed before the page: counts the API calls in flight per path, records each answer's
# status, and, while window.__slowMs is set, answers them that much later (a slow server).
FETCH_PROBE = """
window.__inflight = {}; window.__maxInflight = {}; window.__statuses = [];
window.__slowMs = 0;
const realFetch = window.fetch.bind(window);
window.fetch = async (input, init) => {
  const path = new URL(String(input), location.href).pathname;
  window.__inflight[path] = (window.__inflight[path] || 0) + 1;
  window.__maxInflight[path] = Math.max(window.__maxInflight[path] || 0, window.__inflight[path]);
  try {
    const response = await realFetch(input, init);
    if (window.__slowMs) await new Promise((done) => setTimeout(done, window.__slowMs));
    window.__statuses.push(path + ' ' + response.status);
    return response;
  } finally {
    window.__inflight[path] -= 1;
  }
};
"""


def test_polls_never_overlap_and_an_unchanged_memory_costs_a_304(
    tab: Tab, store: MemoryStore
) -> None:
    store.write("notes", "hello")
    tab.context.add_init_script(FETCH_PROBE)
    page = tab.load()
    tab.open("#/memory/notes")
    expect(page.locator("#rendered")).to_contain_text("hello")
    page.evaluate("window.__maxInflight = {}; window.__statuses = []; window.__slowMs = 7000")
    page.wait_for_timeout(16_000)  # a 5 s poll interval against 7 s answers
    page.evaluate("window.__slowMs = 0")
    assert page.evaluate("window.__maxInflight['/api/memory']") == 1
    assert page.evaluate("window.__maxInflight['/api/state']") == 1
    wait_until(page, "window.__statuses.includes('/api/memory 304')", 20)
    assert "/api/state 304" in page.evaluate("window.__statuses")
    store.write("notes", "changed elsewhere")  # a change still shows up
    expect(page.locator("#rendered")).to_contain_text("changed elsewhere", timeout=20_000)


def test_a_large_memory_is_shown_truncated_saying_so(tab: Tab, store: MemoryStore) -> None:
    from serena_memory.dashboard.api_base import DISPLAY_LIMIT

    line = "Notes on the deploy pipeline, step after step after step.\n"
    store.write("big", "# Top of big\n" + line * (2 * DISPLAY_LIMIT // len(line)) + "LAST LINE\n")
    page = tab.load()
    tab.open("#/memory/big")
    expect(page.locator("#truncated-note")).to_contain_text("only the first")
    expect(page.locator("#rendered h1")).to_have_text("Top of big")
    expect(page.locator("#rendered")).not_to_contain_text("LAST LINE")
    expect(page.locator("#edit-button")).to_be_disabled()
    expect(page.locator("#edit-button")).to_have_attribute("title", re.compile("Too large"))


# -- other local servers ------------------------------------------------------------------------
class Recorder:
    """An unrelated HTTP server on the same machine that records every request it gets, and
    whose page reports what it can read in its own origin (cookies, storage)."""

    PAGE = (
        b"<!doctype html><title>other</title><script>"
        b"fetch('/report?' + new URLSearchParams({cookie: document.cookie,"
        b" storage: JSON.stringify(Object.assign({}, localStorage)),"
        b" session: JSON.stringify(Object.assign({}, sessionStorage))}));"
        b"</script>"
    )

    def __init__(self) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        received: list[str] = []
        page = self.PAGE

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                received.append(self.requestline + "\n" + str(self.headers))
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def log_message(self, *args) -> None:
                pass

        self.received = received
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def test_no_other_local_server_receives_anything_that_authenticates_to_the_dashboard(
    tab: Tab, store: MemoryStore, server: DashboardServer
) -> None:
    store.write("core", "mem:notes")
    store.write("notes", "hello")
    recorder = Recorder()
    try:
        page = tab.load()
        assert "token" not in page.url  # taken out of the address bar (and so of history)
        tab.open("#/memory/notes")
        expect(page.locator("#rendered")).to_contain_text("hello")
        page.click("#nav-check")
        expect(page.locator("#check-summary, .notice.ok").first).to_be_visible()
        assert tab.context.cookies() == []
        page.reload()  # still works without the token in the URL
        expect(page.locator('#tree a[data-name="notes"]')).to_be_visible()
        for host in ["127.0.0.1", "localhost"]:
            other = tab.context.new_page()
            other.goto(f"http://{host}:{recorder.port}/landing")
            other.wait_for_function("() => performance.getEntriesByType('resource').length > 0")
            other.close()
        reports = [r for r in recorder.received if r.startswith("GET /report")]
        assert len(reports) == 2
        seen = "\n".join(recorder.received)
        assert server.token not in seen
        assert "cookie:" not in seen.lower()
        for report in reports:
            assert "cookie=&" in report and "storage=%7B%7D" in report, report
    finally:
        recorder.close()
    # the dashboard keeps its token in its own origin only: a stale one is refused
    assert page.evaluate("localStorage.getItem('serena-dashboard-token')") == server.token


# -- hostile content ------------------------------------------------------------------------------
HOSTILE = r"""# Hostile

<script>window.__xss = 'script'</script>
<img src=x onerror="window.__xss = 'img'">
<a href="javascript:window.__xss = 'raw-a'">raw link</a>
<svg onload="window.__xss = 'svg'"></svg>
<iframe src="javascript:window.__xss = 'iframe'"></iframe>
<details open ontoggle="window.__xss = 'toggle'"><summary>x</summary></details>
<style>body { display: none }</style>

[markdown link](javascript:window.__xss='md')
[spaced](  javascript:window.__xss='spaced')
[entity](jav&#x09;ascript:window.__xss='entity')
[encoded](java%0ascript:window.__xss='encoded')
[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)
<javascript:window.__xss='autolink'>
![image](x" onerror="window.__xss='attr')
![titled](pic.png "a\" onerror=\"window.__xss='title'")
[reference link][evil] and a fine one: [core](mem:core "x\" onclick=\"window.__xss='t'")

[evil]: javascript:window.__xss='ref'
"""


def test_hostile_markdown_runs_nothing(tab: Tab, store: MemoryStore) -> None:
    store.write("hostile", HOSTILE)
    store.write("core", "entry")
    page = tab.load()
    page.click('a[data-name="hostile"]')
    rendered = page.locator("#rendered")
    expect(rendered.locator("h1")).to_have_text("Hostile")
    # the raw HTML is shown as text, not interpreted
    expect(rendered).to_contain_text("<script>window.__xss = 'script'</script>")
    expect(rendered).to_contain_text("<img src=x onerror=\"window.__xss = 'img'\">")
    assert rendered.locator("script, iframe, svg, style, object, embed, details").count() == 0
    has_handlers = page.evaluate(
        """() => [...document.querySelectorAll('#rendered *')].some(
               (el) => [...el.attributes].some((a) => a.name.toLowerCase().startsWith('on')))"""
    )
    assert not has_handlers
    hrefs = page.evaluate(
        "() => [...document.querySelectorAll('#rendered a, #rendered img')]"
        ".map((el) => el.getAttribute('href') || el.getAttribute('src'))"
    )
    for href in hrefs:
        assert not href.lower().replace("%0a", "").startswith(("javascript", "data")), href
    assert rendered.locator("a").count() == 1  # only the harmless mem: link became one
    rendered.locator("a").click()
    expect(page.locator(".memory-header h1")).to_have_text("core")
    assert page.evaluate("window.__xss") is None
    # the editor shows the same text as plain text
    tab.open("#/memory/hostile")
    expect(page.locator(".memory-header h1")).to_have_text("hostile")
    page.click("#edit-button")
    expect(page.locator("#editor")).to_have_value(HOSTILE)
    assert page.evaluate("window.__xss") is None


def test_hostile_text_in_a_conflict_and_in_the_report_runs_nothing(
    tab: Tab, store: MemoryStore
) -> None:
    store.write("notes", "base")
    page = tab.load()
    tab.open("#/memory/notes")
    page.click("#edit-button")
    store.write("notes", "<img src=x onerror=\"window.__xss='theirs'\"> mem:<b>x</b>")
    page.fill("#editor", "<script>window.__xss='mine'</script>")
    page.click("#save-button")
    expect(page.locator("#conflict-theirs")).to_have_value(
        "<img src=x onerror=\"window.__xss='theirs'\"> mem:<b>x</b>"
    )
    tab.open("#/check")
    expect(page.locator("#check-summary, .notice.ok").first).to_be_visible()
    assert page.evaluate("window.__xss") is None


# -- search ----------------------------------------------------------------------------------
def search_answer(page, query: str):
    """The results box once it holds the answer to ``query``."""
    results = page.locator(f'#search-results[data-query="{query}"]:not([aria-busy])')
    expect(results).to_have_count(1)
    return results


def test_search_as_you_type_ranks_marks_and_opens_with_the_keyboard(
    tab: Tab, store: MemoryStore
) -> None:
    from serena_memory.search.index import search_memories

    store.write("billing/refunds", "# Refunds\nMoney goes back within 30 days.\n")
    store.write("billing/invoices", "# Invoices\nA refund creates a credit note.\n")
    store.write("core", "# Core\nStart here; refunds: `mem:billing/refunds`.\n")
    store.write("ops/deploy", "# Deploy\nNothing about money.\n")
    page = tab.load()
    page.click("#main h1")  # anywhere but a text field
    page.keyboard.press("/")
    expect(page.locator("#search-box")).to_be_focused()
    page.keyboard.type("refunds", delay=40)  # as a person types: one search, once they pause
    results = search_answer(page, "refunds")
    expected = [hit.name for hit in search_memories(store, "refunds", max_results=20)]
    expect(results.locator("a.search-hit")).to_have_count(len(expected))
    shown = results.locator("a.search-hit").evaluate_all("(as) => as.map((a) => a.dataset.name)")
    assert shown == expected and expected[0] == "billing/refunds"
    first = results.locator("a.search-hit").first
    expect(first.locator(".hit-name mark")).to_have_text("refunds")
    expect(first.locator(".hit-why")).to_contain_text("words: refunds")  # why it matched
    expect(first.locator(".hit-line").first.locator("mark")).to_have_text("Refunds")
    expect(first.locator(".hit-line").first.locator(".line-no")).to_have_text("1")
    assert "#/search/refunds" in page.url
    # Enter opens the first hit
    page.keyboard.press("Enter")
    expect(page.locator("#rendered h1")).to_have_text("Refunds")
    # back to the results, down to the second hit, open it
    page.go_back()
    results = search_answer(page, "refunds")
    expect(page.locator("#search-box")).to_have_value("refunds")
    page.focus("#search-box")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    expect(results.locator("a.search-hit").nth(1)).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator(".memory-header h1")).to_have_text(expected[1])
    # typing `/` in a text field is only a slash
    tab.open("#/new")
    page.focus("#new-name")
    page.keyboard.type("a/b")
    expect(page.locator("#new-name")).to_have_value("a/b")


def test_search_empty_no_match_and_error_states(
    tab: Tab, store: MemoryStore, project: Path
) -> None:
    store.write("core", "# Core\nentry\n")
    page = tab.load()
    page.fill("#search-box", "core")
    expect(search_answer(page, "core").locator("a.search-hit")).to_have_count(1)
    page.fill("#search-box", "")
    expect(search_answer(page, "").locator("#search-empty")).to_contain_text("1 memory")
    page.fill("#search-box", "zebra unicorn")
    none = search_answer(page, "zebra unicorn").locator("#search-none")
    expect(none).to_contain_text("No memory matches “zebra unicorn”")
    page.keyboard.press("Enter")  # nothing to open: the page stays
    expect(none).to_be_visible()
    write_config(project / ".serena" / "project.yml", "read_only_memory_patterns: ['(']\n")
    page.fill("#search-box", "core")
    error = search_answer(page, "core").locator(".notice.error")
    expect(error).to_contain_text("read_only_memory_patterns")
    text = error.inner_text()
    assert "project.yml" in text and "\n" not in text and "Traceback" not in text


# Delays the answer to any search for "slowly", and lets it arrive even after the page gave
# up on it, so only the page's own check keeps it off the screen.
SLOW_SEARCH = """
window.__answered = [];
const realFetch = window.fetch;
window.fetch = async (input, init) => {
  const url = String(input);
  const plain = Object.assign({}, init || {});
  delete plain.signal;
  const response = await realFetch(input, plain);
  if (url.includes('/api/search') && url.includes('q=slowly')) {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    window.__answered.push('slowly');
  }
  return response;
};
"""


def test_a_late_answer_to_an_older_query_never_replaces_the_newer_one(
    browser, server: DashboardServer, store: MemoryStore
) -> None:
    store.write("notes/slowly", "# Slowly\nslowly and carefully\n")
    store.write("notes/quickly", "# Quickly\nquickly and roughly\n")
    t = Tab(browser, server)
    t.context.add_init_script(SLOW_SEARCH)
    try:
        page = t.load()
        page.fill("#search-box", "slowly")
        page.wait_for_timeout(400)  # the search for "slowly" is asked for, its answer late
        page.fill("#search-box", "quickly")
        results = search_answer(page, "quickly")
        expect(results.locator("a.search-hit")).to_have_count(1)
        wait_until(page, "window.__answered.includes('slowly')", 15)
        page.wait_for_timeout(200)
        expect(page.locator("#search-results")).to_have_attribute("data-query", "quickly")
        expect(page.locator("#search-results a.search-hit")).to_have_text(
            re.compile(r"^notes/quickly")
        )
    finally:
        t.close()


def test_hostile_memory_text_in_search_results_is_only_text(tab: Tab, store: MemoryStore) -> None:
    hostile = "<img src=x onerror=\"window.__xss='search'\"> refunds <b>bold</b>"
    store.write("hostile", f"# <script>window.__xss='heading'</script> refunds\n{hostile}\n")
    page = tab.load()
    page.fill("#search-box", "refunds")
    results = search_answer(page, "refunds")
    lines = results.locator(".hit-line .line-text")
    expect(lines.nth(1)).to_have_text(hostile)
    expect(lines.first).to_have_text("# <script>window.__xss='heading'</script> refunds")
    assert results.locator("img, script, b, iframe").count() == 0
    assert results.locator("mark").all_inner_texts() == ["refunds", "refunds"]
    assert page.evaluate("window.__xss") is None


# -- the screenshot in the README ------------------------------------------------------------
def screenshot_folder(tmp_path: Path) -> Path:
    """Where screenshots go: the docs when SERENA_UPDATE_SCREENSHOTS=1 asks to refresh them,
    else a temporary folder, so a test run leaves the work tree as it found it."""
    if os.environ.get("SERENA_UPDATE_SCREENSHOTS") == "1":
        return REPO_ROOT / "docs"
    return tmp_path


def test_screenshot_for_the_readme(browser, tmp_path: Path, serena_home: Path) -> None:
    root = tmp_path / "acme-shop"
    root.mkdir()
    store = build_store(root, home=serena_home)
    write_config(serena_home / "serena_config.yml", "read_only_memory_patterns: ['global/.*']\n")
    memories = {
        "core": (
            "# acme-shop\n\nAn online shop: a Django backend and a small React front end.\n\n"
            "## Where to look\n"
            "- `mem:tech_stack`: versions and services; read before adding a dependency.\n"
            "- `mem:suggested_commands`: how to run, test and lint.\n"
            "- `mem:payments/core`: before touching checkout or refunds.\n"
            "- `mem:auth/core`: login, sessions and API tokens.\n"
            "- `mem:task_completion`: what to do before calling a task done.\n\n"
            "Style rules shared by every project: `mem:global/style`.\n"
        ),
        "tech_stack": "Python 3.12, Django 5, PostgreSQL 16, Redis for sessions. Back: mem:core",
        "suggested_commands": "`make test`, `make lint`; on Windows use `py -m pytest`.",
        "conventions": "Type hints everywhere; services in `shop/services/`.",
        "task_completion": "Run `make test lint`; update `mem:payments/core` if flows change.",
        "auth/core": "Session auth for the site, tokens for the API. See mem:auth/tokens.",
        "auth/tokens": "Tokens rotate every 24h.",
        "payments/core": "Stripe. Refunds: mem:payments/refunds. Webhooks are idempotent.",
        "payments/refunds": "Partial refunds allowed up to the captured amount.",
        "global/style": "Short functions, docstrings say why.",
    }
    for name, text in memories.items():
        store.write(name, text)
    server = DashboardServer(root, home=serena_home, port=0)
    server.start()
    t = Tab(browser, server)
    t.load()
    t.open("#/memory/core")
    expect(t.page.locator("#rendered h1")).to_have_text("acme-shop")
    expect(t.page.locator("#backlinks")).to_contain_text("tech_stack")
    target = screenshot_folder(tmp_path) / "dashboard.png"
    t.page.screenshot(path=str(target))
    assert target.stat().st_size > 10_000
    t.close()
    server.stop()


def test_screenshots_of_the_local_graph_and_the_topic_map(
    browser, tmp_path: Path, serena_home: Path
) -> None:
    """From the example project, with a read-only global memory as a person would have."""
    root = tmp_path / "demo"
    shutil.copytree(REPO_ROOT / "examples" / "demo", root)
    write_config(serena_home / "serena_config.yml", "read_only_memory_patterns: ['global/.*']\n")
    store = build_store(root, home=serena_home)
    store.write("global/style", "Short functions, docstrings say why. See mem:conventions.")
    store.edit(
        "conventions", "# Conventions\n", "# Conventions\n\nShared rules: `mem:global/style`.\n"
    )
    store.write(  # a memory that names one removed since: a missing node in the graph
        "payments/invoices",
        store.read("payments/invoices") + "Old format notes: `mem:payments/invoice_v1`.\n",
    )
    server = DashboardServer(root, home=serena_home, port=0)
    server.start()
    t = Tab(browser, server)
    try:
        t.load()
        t.open("#/memory/payments/core")
        t.page.select_option("#local-depth", "2")
        t.page.wait_for_selector('#local-graph[data-drawn="payments/core"] svg')
        expect(
            t.page.locator('#local-graph a.node.missing[data-node="payments/invoice_v1"]')
        ).to_have_count(1)
        t.page.locator("#local-graph-section").screenshot(
            path=str(screenshot_folder(tmp_path) / "dashboard-local-graph.png")
        )
        t.open("#/topics")
        expect(t.page.locator("#topic-map")).to_have_attribute("data-drawn", "/")
        t.page.locator("#main").screenshot(
            path=str(screenshot_folder(tmp_path) / "dashboard-topic-map.png")
        )
    finally:
        t.close()
        server.stop()
