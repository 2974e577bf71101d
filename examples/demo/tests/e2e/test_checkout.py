"""Playwright against a server the fixture starts, Stripe in test mode."""

import threading
from collections.abc import Iterator

import pytest
from flask import Flask
from playwright.sync_api import Page, expect
from werkzeug.serving import make_server

from tests import factories

pytestmark = pytest.mark.e2e


@pytest.fixture
def live_server(app: Flask) -> Iterator[str]:
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


def test_a_guest_finds_a_shirt_despite_a_typo_and_pays_with_a_test_card(
    page: Page, live_server: str
) -> None:
    factories.variant(name="Blue shirt", size="M")
    page.goto(live_server)
    page.get_by_placeholder("Search").fill("blue shrit")  # pg_trgm finds it all the same
    page.get_by_label("M").fill("1")
    page.get_by_placeholder("Email").fill("guest@example.com")
    page.get_by_role("button", name="Buy").click()
    card = page.frame_locator("#payment-element iframe").first
    card.get_by_placeholder("1234 1234 1234 1234").fill("4242 4242 4242 4242")
    card.get_by_placeholder("MM / YY").fill("12 / 34")
    card.get_by_placeholder("CVC").fill("123")
    page.get_by_role("button", name="Pay").click()
    expect(page).to_have_url(live_server + "/", timeout=30_000)
