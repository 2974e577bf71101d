"""Markdown rendering for the dashboard: references become links, hostile input stays text."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from serena_memory.dashboard.render import render_markdown

ALLOWED_TAGS = {
    "a", "blockquote", "br", "code", "del", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr",
    "img", "li", "ol", "p", "pre", "s", "strong", "table", "tbody", "td", "th", "thead", "tr",
    "ul",
}  # fmt: skip
ALLOWED_ATTRS = {"href", "class", "title", "rel", "target", "src", "alt", "start", "style"}
SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")


def is_safe_url(value: str) -> bool:
    """What a browser would run: it strips tabs and newlines anywhere and leading
    spaces and control characters before reading the scheme."""
    cleaned = re.sub(r"^[\x00-\x20]+", "", re.sub(r"[\t\n\r]", "", value))
    match = SCHEME.match(cleaned)
    return match is None or match.group(1).lower() in {"http", "https", "mailto"}


class Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs) -> None:
        self.tags.append((tag, dict(attrs)))

    handle_startendtag = handle_starttag


def parse(html: str) -> list[tuple[str, dict[str, str | None]]]:
    collector = Collector()
    collector.feed(html)
    return collector.tags


def all_exist(_name: str) -> bool:
    return True


def test_references_in_text_and_code_spans_become_links() -> None:
    html = render_markdown(
        "Read `mem:auth/login` first, then mem:core_notes.\n", lambda n: n == "auth/login"
    )
    assert '<a href="#/memory/auth/login" class="mem-ref"><code>mem:auth/login</code></a>' in html
    assert '<a href="#/memory/core_notes" class="mem-ref broken"' in html
    assert "no memory named core_notes" in html


def test_whole_name_rule_comes_from_the_library() -> None:
    # `xmem:core` is not a reference (a name character is glued before `mem:`)
    html = render_markdown("xmem:core and mem:core", all_exist)
    assert html.count("<a ") == 1
    assert "xmem:core" in html


def test_markdown_links_to_mem_names_are_dashboard_links() -> None:
    html = render_markdown("[the entry point](mem:core)", lambda n: False)
    assert '<a href="#/memory/core" class="mem-ref broken"' in html
    assert ">the entry point</a>" in html


def test_external_links_open_apart_and_dangerous_schemes_are_text() -> None:
    html = render_markdown(
        "[a](https://example.org) [b](javascript:alert(1)) [c](JAVASCRIPT:x) "
        "[d](vbscript:x) [e](data:text/html,x) [f](file:///etc/passwd) [g](java%0Ascript:x)",
        all_exist,
    )
    assert 'href="https://example.org" rel="noopener noreferrer" target="_blank"' in html
    hrefs = [attrs.get("href") for tag, attrs in parse(html) if tag == "a"]
    assert hrefs == ["https://example.org"]


def test_raw_html_is_escaped() -> None:
    html = render_markdown('<script>alert(1)</script>\n\n<b onclick="x()">hi</b>', all_exist)
    assert "<script" not in html and "<b" not in html
    assert "&lt;script&gt;" in html


MARKDOWN_PIECES = st.sampled_from(
    [
        "<", ">", '"', "'", "&", "(", ")", "[", "]", "`", "*", "_", "!", ":", "\n", " ",
        "mem:", "javascript:", "JaVaScRiPt:", "data:", "on", "onerror=", "onclick=", "href=",
        "<script>", "</script>", "<img src=x ", "<a ", "<svg", "style=", "&#x09;", "%0a", "\\",
        "http://x", "[a](", "](", "![i](", "<http:", "<javascript:", "a/b", "core", "#",
    ]
)  # fmt: skip


@pytest.mark.slow  # three hundred generated texts
@settings(max_examples=300, deadline=None)
@given(st.lists(MARKDOWN_PIECES | st.text(max_size=4), max_size=40).map("".join))
def test_any_input_renders_to_inert_html(text: str) -> None:
    html = render_markdown(text, lambda n: len(n) % 2 == 0)
    for tag, attrs in parse(html):
        assert tag in ALLOWED_TAGS, (tag, text)
        for name, value in attrs.items():
            assert name in ALLOWED_ATTRS, (name, text)
            if name in ("href", "src"):
                assert value is not None and is_safe_url(value), (value, text)
            if name == "style":
                assert re.fullmatch(r"text-align:(left|right|center)", value or ""), text


def test_a_mem_link_without_a_name_has_no_target() -> None:
    for text in ("<mem:>", "[x](mem:)", "[x](mem:a b)"):
        html = render_markdown(text, lambda n: True)
        assert 'href="mem:' not in html, (text, html)
    for text in ("![i](mem:)", "![i](mem:core)"):  # found by the generated texts above
        html = render_markdown(text, lambda n: True)
        assert "<img" in html and 'src="mem:' not in html, (text, html)
