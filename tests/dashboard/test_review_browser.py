"""The dashboard's Review page in a real headless browser: the agent's proposals with their
diffs, a count in the header, accept and reject buttons, and a conflict that can't be
accepted."""

from __future__ import annotations

from pathlib import Path

from conftest import write_config
from helpers.browser_support import Tab, browser_only, expect
from proposing import propose_edit, propose_write

from serena_memory.core.store import Context, MemoryStore
from serena_memory.history.restore import MemoryHistory
from serena_memory.wiring import build_store

pytestmark = browser_only


def test_review_page_shows_diffs_accepts_rejects_and_marks_conflicts(
    tab: Tab,
    store: MemoryStore,
    project: Path,
    serena_home: Path,
) -> None:
    write_config(serena_home / "serena_config.yml", "memory_agent_writes: propose\n")
    store.write("core", "# Core\n\nUse uv.\n")
    store.write("notes", "# Notes\n")
    agent = build_store(project, home=serena_home, context=Context.AGENT)
    edit, _ = propose_edit(agent, "core", "uv", "pip", "literal")
    create = propose_write(agent, "ideas", "# Ideas\n")
    stale = propose_write(agent, "notes", "# Notes by the agent\n")
    store.write("notes", "# Notes, edited by a person\n")  # since the proposal
    assert edit is not None
    before = len(MemoryHistory(store).entries())

    page = tab.load()
    expect(page.locator("#review-count")).to_have_text("3")
    page.click("#nav-review")
    item = page.locator(f"#proposal-{edit.id}")
    expect(item.locator(".diff .del")).to_contain_text("-Use uv.")
    expect(item.locator(".diff .add")).to_contain_text("+Use pip.")
    conflict = page.locator(f"#proposal-{stale.id}")
    expect(conflict.locator(".notice.warn")).to_contain_text("Conflict")
    expect(conflict.locator(".proposal-accept")).to_be_disabled()

    item.locator(".proposal-accept").click()
    expect(page.locator(".notice.ok")).to_contain_text("Accepted")
    expect(page.locator(f"#proposal-{edit.id}")).to_have_count(0)
    assert store.read("core") == "# Core\n\nUse pip.\n"
    entries = MemoryHistory(store).entries()
    assert len(entries) == before + 1 and "accepted by" in entries[0].who
    assert entries[0].entry_point == "dashboard"

    page.locator(f"#proposal-{create.id} .proposal-reject").click()
    expect(page.locator(".notice.ok")).to_contain_text("Rejected")
    page.locator(f"#proposal-{stale.id} .proposal-reject").click()
    expect(page.locator("#no-proposals")).to_be_visible()
    expect(page.locator("#review-count")).to_be_hidden()
    assert not store.exists("ideas")
    assert store.read("notes") == "# Notes, edited by a person\n"
