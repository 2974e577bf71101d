"""The dashboard's fixtures: a server on a loopback port for the test's project, and a
Chromium tab on it (one browser per module); see tests/helpers/browser_support.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.browser_support import CHROMIUM, CHROMIUM_ARGS, Tab

from serena_memory.dashboard.server import DashboardServer


@pytest.fixture
def server(project: Path, serena_home: Path) -> Iterator[DashboardServer]:
    srv = DashboardServer(project, home=serena_home, port=0)
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import expect as pw_expect
    from playwright.sync_api import sync_playwright

    pw_expect.set_options(timeout=15_000)  # generous: the suite may share a busy machine
    with sync_playwright() as pw:
        instance = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def tab(browser, server: DashboardServer) -> Iterator[Tab]:
    t = Tab(browser, server)
    yield t
    t.close()
