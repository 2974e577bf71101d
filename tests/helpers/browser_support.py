"""The dashboard in a real headless browser (Debian's chromium driven by Playwright): a
tab with what went wrong in it recorded, and the waits the page's CSP allows. The fixtures
that open them are in tests/dashboard/conftest.py."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from serena_memory.dashboard.server import DashboardServer

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# Installed before any page script: records every sign that hostile content ran.
WATCHDOG = """
window.__csp = [];
document.addEventListener('securitypolicyviolation',
    (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
"""


class Tab:
    """A page in its own browser context, with what went wrong recorded. Not loaded until
    :meth:`load`, so the test can write its memories first."""

    def __init__(self, browser, server: DashboardServer) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 800})
        self.context.add_init_script(WATCHDOG)
        self.context.set_default_timeout(15_000)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on("dialog", self._dialog)
        self.server = server

    def load(self):
        """Open the printed URL, as a person does once the memories exist."""
        self.page.goto(self.server.url)
        self.page.wait_for_selector("#tree section")
        return self.page

    def _dialog(self, dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def open(self, hash_route: str) -> None:
        self.page.evaluate("(h) => { location.hash = h; }", hash_route)

    def close(self) -> None:
        assert self.errors == [], self.errors
        assert self.dialogs == [], self.dialogs
        assert self.page.evaluate("window.__csp") == []
        self.context.close()


def wait_until(page, expression: str, seconds: float) -> None:
    """Poll a page expression until it is true (the page's CSP forbids the string
    evaluation that Playwright's wait_for_function uses)."""
    import time

    deadline = time.monotonic() + seconds
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"still false after {seconds} s: {expression}"
        page.wait_for_timeout(100)


def expect(locator):
    from playwright.sync_api import expect as pw_expect

    return pw_expect(locator)


browser_only = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason="chromium is not installed (apt-get install chromium; scripts/test.sh does it as root)",
)
