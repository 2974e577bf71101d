"""The dashboard over real HTTP: the security gate and the JSON API, via httpx against a
real uvicorn server on a loopback port."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import write_config

from serena_memory.core.store import MemoryStore, version_of
from serena_memory.dashboard.server import DashboardServer
from serena_memory.history.location import history_folders, history_root, repository_path
from serena_memory.wiring import build_store


@pytest.fixture
def client(server: DashboardServer) -> Iterator[httpx.Client]:
    """A client that sends what the page sends: the token header and its own Origin."""
    headers = {"Origin": server.base_url, "X-Serena-Token": server.token}
    with httpx.Client(base_url=server.base_url, headers=headers) as c:
        first = c.get(server.url)
        assert first.status_code == 200
        yield c


# -- the security gate ------------------------------------------------------------------------
def test_requests_without_the_token_are_refused(
    server: DashboardServer, store: MemoryStore
) -> None:
    store.write("zebra_plans", "the hidden agenda")
    for path in ["/api/state", "/api/memory?name=zebra_plans", "/api/graph", "/api/check"]:
        response = httpx.get(server.base_url + path)
        assert response.status_code == 401, path
        assert "token" in response.text
    wrong = httpx.get(server.base_url + "/api/state?token=not-the-token")
    assert wrong.status_code == 401
    forged = httpx.get(server.base_url + "/api/state", headers={"X-Serena-Token": "guess"})
    assert forged.status_code == 401
    # scripts: the token as a header or in the query of an API call
    assert (
        httpx.get(server.base_url + "/api/state", headers={"X-Serena-Token": server.token})
    ).status_code == 200
    assert httpx.get(server.base_url + f"/api/state?token={server.token}").status_code == 200
    # only the page shell and its code are served without it, and they hold no data
    for path in ["/", "/static/app.js", "/static/style.css"]:
        response = httpx.get(server.base_url + path)
        assert response.status_code == 200, path
        assert "hidden agenda" not in response.text and "zebra" not in response.text
    assert httpx.get(server.base_url + "/static/../api/state").status_code in (401, 404)


def test_no_cookie_is_ever_set_or_accepted(server: DashboardServer) -> None:
    """Cookies ignore ports: one set for 127.0.0.1 would reach every local server."""
    headers = {"Origin": server.base_url, "X-Serena-Token": server.token}
    with httpx.Client(base_url=server.base_url, headers=headers) as c:
        responses = [c.get(server.url), c.get("/"), c.get("/static/app.js"), c.get("/api/state")]
        responses.append(c.post("/api/memory", json={"name": "x", "content": "y"}))
        for response in responses:
            assert response.is_success, response.request.url
            assert "set-cookie" not in response.headers, response.request.url
        assert len(c.cookies) == 0
    for name in ["serena_dashboard", f"serena_dashboard_{server.port}", "token"]:
        with_cookie = httpx.get(server.base_url + "/api/state", cookies={name: server.token})
        assert with_cookie.status_code == 401, name


def test_a_foreign_host_header_is_refused_even_with_the_token(server: DashboardServer) -> None:
    # DNS rebinding: evil.example resolves to 127.0.0.1, the browser sends its own Host
    for host in [f"evil.example:{server.port}", "127.0.0.1", f"127.0.0.1:{server.port + 1}"]:
        response = httpx.get(server.url, headers={"Host": host})
        assert response.status_code == 421, host
    ok = httpx.get(server.url, headers={"Host": f"localhost:{server.port}"})
    assert ok.status_code == 200
    api = server.base_url + f"/api/state?token={server.token}"
    assert httpx.get(api, headers={"Host": f"evil.example:{server.port}"}).status_code == 421


def test_state_changing_requests_need_the_dashboards_own_origin(
    server: DashboardServer, store: MemoryStore
) -> None:
    token = {"X-Serena-Token": server.token}
    body = {"name": "planted", "content": "from another site"}
    for origin in [None, "http://evil.example", f"http://localhost:{server.port + 1}", "null"]:
        headers = {"Origin": origin, **token} if origin else token
        response = httpx.post(server.base_url + "/api/memory", json=body, headers=headers)
        assert response.status_code == 403, origin
    assert not store.exists("planted")
    response = httpx.post(
        server.base_url + "/api/memory",
        json=body,
        headers={"Origin": server.base_url, **token},
    )
    assert response.status_code == 201
    assert store.read("planted") == "from another site"


def test_a_form_post_from_another_site_cannot_write(
    client: httpx.Client, store: MemoryStore
) -> None:
    # Even with a matching Origin, only JSON is accepted (a cross-site form can't send it)
    response = client.post("/api/memory", data={"name": "x", "content": "y"})
    assert response.status_code == 415
    assert not store.exists("x")


def test_every_response_carries_a_strict_content_security_policy(client: httpx.Client) -> None:
    for path in ["/", "/api/state", "/static/app.js"]:
        response = client.get(path)
        csp = response.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "default-src 'none'" in csp
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["referrer-policy"] == "no-referrer"


def test_the_default_bind_is_loopback_only(project: Path, serena_home: Path) -> None:
    srv = DashboardServer(project, home=serena_home, port=0)
    try:
        assert srv.socket.getsockname()[0] == "127.0.0.1"
        assert not srv.exposed
        assert srv.url.startswith("http://127.0.0.1:")
    finally:
        srv.socket.close()


def test_a_taken_port_is_a_clear_error(project: Path, serena_home: Path) -> None:
    import socket

    from serena_memory.core.errors import MemoryStoreError

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(MemoryStoreError, match=f"port {port}.*choose another with --port"):
            DashboardServer(project, home=serena_home, port=port)


# -- the API ------------------------------------------------------------------------------------
def test_state_lists_project_and_global_apart_with_read_only_and_without_ignored(
    client: httpx.Client, store: MemoryStore, project: Path
) -> None:
    store.write("core", "c")
    store.write("auth/login", "l")
    store.write("secret/keys", "s")
    store.write("global/style", "g")
    write_config(
        project / ".serena" / "project.yml",
        "read_only_memory_patterns: ['global/.*']\nignored_memory_patterns: ['secret/.*']\n",
    )
    data = client.get("/api/state").json()
    assert data["project"]["root"] == str(project.absolute())
    assert data["memories"] == [
        {"name": "auth/login", "read_only": False, "global": False},
        {"name": "core", "read_only": False, "global": False},
        {"name": "global/style", "read_only": True, "global": True},
    ]
    hidden = client.get("/api/memory", params={"name": "secret/keys"})
    assert hidden.status_code == 404
    assert "ignored" in hidden.json()["error"]


def test_a_broken_configuration_is_reported_not_hidden(client: httpx.Client, project: Path) -> None:
    write_config(project / ".serena" / "project.yml", "read_only_memory_patterns: ['(']\n")
    response = client.get("/api/state")
    assert response.status_code == 500
    error = response.json()["error"]
    assert "project.yml" in error and "read_only_memory_patterns" in error


def test_reading_gives_version_rendered_html_references_then_backlinks(
    client: httpx.Client, store: MemoryStore
) -> None:
    store.write("core", "# Core\nSee `mem:auth/login` and mem:gone.\n")
    store.write("auth/login", "Back to mem:core.")
    data = client.get("/api/memory", params={"name": "mem:core.md"}).json()
    assert data["name"] == "core"
    assert data["version"] == version_of(store.read("core"))
    assert (
        '<a href="#/memory/auth/login" class="mem-ref"><code>mem:auth/login</code></a>'
        in (data["html"])
    )
    assert 'class="mem-ref broken"' in data["html"]
    assert data["references"] == [
        {"name": "auth/login", "exists": True},
        {"name": "gone", "exists": False},
    ]
    backlinks = client.get("/api/backlinks", params={"name": "mem:core.md"}).json()
    assert backlinks == {
        "name": "core",
        "backlinks": [{"source": "auth/login", "lines": [1], "source_read_only": False}],
    }


def test_an_unchanged_memory_or_list_costs_a_conditional_request(
    client: httpx.Client, store: MemoryStore
) -> None:
    store.write("notes", "first")
    for path, change in [
        ("/api/memory?name=notes", lambda: store.write("notes", "second")),
        ("/api/state", lambda: store.write("more", "x")),
    ]:
        first = client.get(path)
        tag = first.headers["etag"]
        again = client.get(path, headers={"If-None-Match": tag})
        assert again.status_code == 304 and again.content == b"", path
        change()
        changed = client.get(path, headers={"If-None-Match": tag})
        assert changed.status_code == 200 and changed.headers["etag"] != tag, path
    assert client.get("/api/memory?name=notes").json()["content"] == "second"


def test_a_memory_over_the_display_limit_is_sent_truncated_saying_so(
    client: httpx.Client, store: MemoryStore
) -> None:
    from serena_memory.dashboard.api_base import DISPLAY_LIMIT

    line = "A line of notes about the build, long enough to add up quickly.\n"
    big = "# Start\n" + line * (3 * DISPLAY_LIMIT // len(line)) + "The end: mem:core\n"
    store.write("big", big)
    response = client.get("/api/memory", params={"name": "big"})
    data = response.json()
    assert data["truncated"] and data["size"] == len(big)
    assert len(data["content"]) <= DISPLAY_LIMIT and big.startswith(data["content"])
    assert data["content"].endswith("\n")  # cut at a line end
    assert "Start" in data["html"] and "The end" not in data["html"]
    assert data["version"] == version_of(big)  # the whole memory's version
    assert data["references"] == [{"name": "core", "exists": False}]  # from the whole text
    assert len(response.content) < 3 * DISPLAY_LIMIT
    small = client.get("/api/memory", params={"name": "big"}, headers={"If-None-Match": "x"})
    assert small.status_code == 200
    store.write("small", "short")
    assert client.get("/api/memory", params={"name": "small"}).json()["truncated"] is False


def test_save_with_a_stale_version_is_refused_with_both_versions(
    client: httpx.Client, store: MemoryStore
) -> None:
    store.write("notes", "original")
    base = client.get("/api/memory", params={"name": "notes"}).json()["version"]
    store.write("notes", "changed by the agent")
    response = client.put(
        "/api/memory", json={"name": "notes", "content": "mine", "base_version": base}
    )
    assert response.status_code == 409
    data = response.json()
    assert data["conflict"] is True
    assert data["current"] == "changed by the agent"
    assert store.read("notes") == "changed by the agent"
    retry = client.put(
        "/api/memory",
        json={"name": "notes", "content": "mine", "base_version": data["current_version"]},
    )
    assert retry.status_code == 200
    assert store.read("notes") == "mine"


def test_create_never_overwrites(client: httpx.Client, store: MemoryStore) -> None:
    store.write("taken", "keep me")
    response = client.post("/api/memory", json={"name": "taken", "content": "new"})
    assert response.status_code == 409
    assert "already exists" in response.json()["error"]
    assert store.read("taken") == "keep me"


def test_read_only_memories_cannot_be_changed_through_the_dashboard(
    client: httpx.Client, store: MemoryStore, project: Path
) -> None:
    write_config(project / ".serena" / "project.yml", "read_only_memory_patterns: ['locked']\n")
    store.write("locked", "fixed")
    store.write("free", "see mem:locked")
    version = version_of("fixed")
    attempts = [
        client.put("/api/memory", json={"name": "locked", "content": "x", "base_version": version}),
        client.post("/api/delete", json={"name": "locked"}),
        client.post("/api/rename", json={"old": "locked", "new": "unlocked"}),
        client.post("/api/rename", json={"old": "free", "new": "locked"}),
    ]
    for response in attempts:
        assert response.status_code == 403, response.text
        assert "is read-only" in response.json()["error"]
    assert store.read("locked") == "fixed"
    assert store.read("free") == "see mem:locked"


def test_invalid_names_are_refused_with_the_stores_reason(
    client: httpx.Client, serena_home: Path, project: Path
) -> None:
    for name in ["../escape", "/etc/passwd", "a//b", "global", ""]:
        response = client.post("/api/memory", json={"name": name, "content": "x"})
        assert response.status_code == 400, name
        assert "memory name" in response.json()["error"] or "global" in response.json()["error"]
    assert not (project / ".serena" / "escape.md").exists()
    assert not (project / "escape.md").exists()


def test_rename_reports_the_rewritten_references(client: httpx.Client, store: MemoryStore) -> None:
    store.write("auth/login", "x")
    store.write("core", "mem:auth/login and `mem:auth/login`")
    store.write("other", "mem:auth/login_old stays")
    data = client.post("/api/rename", json={"old": "auth/login", "new": "auth/sign_in"}).json()
    assert data["references_rewritten"] == 2
    assert data["memories_rewritten"] == ["core"]
    assert "rewrote 2 references" in data["summary"]
    assert store.read("core") == "mem:auth/sign_in and `mem:auth/sign_in`"
    assert store.read("other") == "mem:auth/login_old stays"


def test_delete_removes_the_file(client: httpx.Client, store: MemoryStore) -> None:
    store.write("old/stuff", "bye")
    assert client.post("/api/delete", json={"name": "old/stuff"}).json() == {"deleted": "old/stuff"}
    assert not store.exists("old/stuff")
    again = client.post("/api/delete", json={"name": "old/stuff"})
    assert again.status_code == 404


def test_delete_of_a_memory_changed_since_it_was_read_is_refused(
    client: httpx.Client, store: MemoryStore
) -> None:
    store.write("draft", "as loaded in the page")
    base = client.get("/api/memory", params={"name": "draft"}).json()["version"]
    store.write("draft", "the agent added something important")
    response = client.post("/api/delete", json={"name": "draft", "base_version": base})
    assert response.status_code == 409
    assert response.json()["current"] == "the agent added something important"
    assert store.read("draft") == "the agent added something important"
    fresh = client.get("/api/memory", params={"name": "draft"}).json()["version"]
    assert client.post("/api/delete", json={"name": "draft", "base_version": fresh}).is_success
    assert not store.exists("draft")


def test_graph_has_memories_references_and_missing_targets(
    client: httpx.Client, store: MemoryStore
) -> None:
    store.write("core", "mem:a and mem:nowhere")
    store.write("a", "mem:core")
    graph = client.get("/api/graph").json()
    names = {n["name"]: n["missing"] for n in graph["nodes"]}
    assert names == {"a": False, "core": False, "nowhere": True}
    edges = {(e["source"], e["target"], e["broken"]) for e in graph["edges"]}
    assert edges == {("core", "a", False), ("core", "nowhere", True), ("a", "core", False)}


def test_an_undecodable_memory_is_reported_on_the_check_and_graph_pages_not_a_500(
    client: httpx.Client, store: MemoryStore
) -> None:
    store.write("core", "mem:latin1 and mem:a")
    store.write("a", "mem:core")
    (store.layout.memories_dir / "latin1.md").write_bytes(b"Caf\xe9 mem:a")
    graph = client.get("/api/graph")
    assert graph.status_code == 200
    nodes = {n["name"]: n for n in graph.json()["nodes"]}
    assert nodes["latin1"]["unreadable"] and not nodes["a"]["unreadable"]
    check = client.get("/api/check", params={"include_unmarked": 1, "fuzzy": 1, "reachability": 1})
    assert check.status_code == 200
    assert check.json()["unreadable"] == ["latin1"] and check.json()["unreachable"] == []
    page = client.get("/api/memory", params={"name": "latin1"})
    assert page.status_code == 400 and "not valid UTF-8" in page.json()["error"]
    assert client.get("/api/backlinks", params={"name": "a"}).json()["backlinks"] == [
        {"source": "core", "lines": [1], "source_read_only": False}
    ]


def test_local_graph_topic_map_and_filtered_graph_follow_the_files(
    client: httpx.Client, store: MemoryStore
) -> None:
    store.write("core", "mem:auth/login mem:gone")
    store.write("auth/login", "mem:auth/session")
    store.write("auth/session", "x")
    store.write("island", "x")
    local = client.get("/api/graph/local", params={"name": "auth/login"}).json()
    assert {n["name"]: n["distance"] for n in local["nodes"]} == {
        "auth/login": 0,
        "core": 1,
        "auth/session": 1,
    }
    two = client.get("/api/graph/local", params={"name": "auth/session", "depth": 2}).json()
    assert {n["name"] for n in two["nodes"]} == {"auth/session", "auth/login", "core"}
    assert client.get("/api/graph/local", params={"name": "x", "depth": 3}).status_code == 400
    assert client.get("/api/graph/local", params={"name": "nope"}).status_code == 404
    topics = client.get("/api/graph/topics").json()
    assert {n["id"]: n["count"] for n in topics["nodes"]} == {"auth/": 2, "core": 1, "island": 1}
    assert {n["id"]: n["broken"] for n in topics["nodes"]}["core"] == 1
    inside = client.get("/api/graph/topics", params={"topic": "auth"}).json()
    assert [n["id"] for n in inside["nodes"]] == ["auth/login", "auth/session"]
    unreachable = client.get("/api/graph", params={"reach": "unreachable"}).json()
    assert [n["name"] for n in unreachable["nodes"]] == ["island"]
    capped = client.get("/api/graph", params={"cap": 2}).json()
    assert capped["capped"] and capped["total_nodes"] == 5 and len(capped["nodes"]) == 2
    assert client.get("/api/graph", params={"reach": "sideways"}).status_code == 400
    # a change made elsewhere shows up (the snapshot is refreshed from the files)
    store.write("island", "now mem:auth/login")
    store.write("auth/extra", "mem:core")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        local = client.get("/api/graph/local", params={"name": "auth/login"}).json()
        around_core = client.get("/api/graph/local", params={"name": "core"}).json()
        if "island" in {n["name"] for n in local["nodes"]} and "auth/extra" in {
            n["name"] for n in around_core["nodes"]
        }:
            break
        time.sleep(0.5)
    else:
        raise AssertionError(local)
    # a change made through the dashboard shows up at once
    version = client.get("/api/memory", params={"name": "auth/extra"}).json()["version"]
    saved = client.put(
        "/api/memory", json={"name": "auth/extra", "content": "none", "base_version": version}
    )
    assert saved.status_code == 200
    local = client.get("/api/graph/local", params={"name": "core"}).json()
    assert "auth/extra" not in {n["name"] for n in local["nodes"]}


def test_the_check_report_is_paged(client: httpx.Client, store: MemoryStore) -> None:
    store.write("core", " ".join(f"mem:gone{i:03d}" for i in range(120)))
    first = client.get("/api/check", params={"reachability": 1, "limit": 50}).json()
    stale = first["sections"]["stale"]
    assert stale["total"] == 120 and len(stale["items"]) == 50
    assert stale["items"][0]["target"] == "gone000"
    assert first["sections"]["unreachable"] == {"total": 0, "items": []}
    page = client.get(
        "/api/check", params={"reachability": 1, "section": "stale", "offset": 100, "limit": 50}
    ).json()
    assert page["total"] == 120 and [i["target"] for i in page["items"]][:2] == [
        "gone100",
        "gone101",
    ]
    assert len(page["items"]) == 20
    bad = client.get("/api/check", params={"section": "bare"})
    assert bad.status_code == 400 and "no section" in bad.json()["error"]


def test_check_reports_stale_references_bare_mentions_and_unreachable(
    client: httpx.Client, store: MemoryStore
) -> None:
    store.write("core", "Start: mem:auth/loginn. Also see auth/session for sessions.")
    store.write("auth/login", "How login works.")
    store.write("auth/session", "Sessions.")
    store.write("island", "Nobody points here.")
    quick = client.get("/api/check").json()
    assert [s["target"] for s in quick["stale_references"]] == ["auth/loginn"]
    assert "auth/login" in quick["stale_references"][0]["candidates"]
    assert "bare_mentions" not in quick
    full = client.get(
        "/api/check", params={"include_unmarked": 1, "fuzzy": 1, "reachability": 1}
    ).json()
    high = full["bare_mentions"]["high_confidence"]
    assert [(b["source"], b["name"]) for b in high] == [("core", "auth/session")]
    assert full["unreachable"] == ["auth/login", "auth/session", "island"]
    assert store.read("core") == "Start: mem:auth/loginn. Also see auth/session for sessions."


def test_one_click_fixes_write_through_the_library(
    client: httpx.Client, store: MemoryStore
) -> None:
    store.write("core", "Start: mem:auth/loginn. Also see auth/session for sessions.")
    store.write("auth/login", "How login works.")
    store.write("auth/session", "Sessions.")
    fixed = client.post(
        "/api/fix-reference", json={"source": "core", "old": "auth/loginn", "new": "auth/login"}
    )
    assert fixed.json()["count"] == 1
    preview = client.post("/api/auto-prefix", json={"dry_run": True}).json()
    assert preview["replacements"] == 1
    assert store.read("core") == "Start: mem:auth/login. Also see auth/session for sessions."
    applied = client.post("/api/auto-prefix", json={"dry_run": False}).json()
    assert applied["memories_changed"] == ["core"]
    assert store.read("core") == "Start: mem:auth/login. Also see mem:auth/session for sessions."
    assert client.get("/api/check", params={"include_unmarked": 1}).json()["clean"] is True
    refused = client.post(
        "/api/fix-reference", json={"source": "core", "old": "gone", "new": "nowhere"}
    )
    assert refused.status_code == 404


# -- next to another server -----------------------------------------------------------------
def test_background_dashboard_follows_the_active_project(tmp_path: Path, serena_home: Path) -> None:
    from serena_memory.dashboard import start_dashboard_in_background
    from serena_memory.dashboard.server import stop_background_dashboards

    active: dict[str, Path | None] = {"root": None}
    url = start_dashboard_in_background(
        lambda: active["root"], home=serena_home, port=0, open_browser=False
    )
    try:
        base, token = url.split("/?token=")
        with httpx.Client(base_url=base, headers={"Origin": base, "X-Serena-Token": token}) as c:
            assert c.get(url).status_code == 200
            assert c.get("/api/state").json() == {"project": None, "memories": []}
            refused = c.post("/api/memory", json={"name": "x", "content": "y"})
            assert refused.status_code == 409
            assert "no project is active" in refused.json()["error"]
            for name in ("one", "two"):
                root = tmp_path / name
                root.mkdir()
                build_store(root, home=serena_home).write(f"{name}_notes", name)
                active["root"] = root
                names = [m["name"] for m in c.get("/api/state").json()["memories"]]
                assert names == [f"{name}_notes"]
    finally:
        stop_background_dashboards()
    with pytest.raises(httpx.TransportError):
        httpx.get(url, timeout=2)


def test_allowed_host_headers_for_each_kind_of_bind() -> None:
    from serena_memory.dashboard.security import allowed_host_headers

    assert allowed_host_headers("127.0.0.1", 8000) == {"127.0.0.1:8000", "localhost:8000"}
    assert allowed_host_headers("::1", 8000) == {"[::1]:8000", "localhost:8000"}
    assert allowed_host_headers("localhost", 8000) == {
        "localhost:8000",
        "127.0.0.1:8000",
        "[::1]:8000",
    }
    assert allowed_host_headers("192.168.1.20", 8000) == {"192.168.1.20:8000"}
    assert allowed_host_headers("0.0.0.0", 8000) is None  # any name; the token still guards


# -- the command ------------------------------------------------------------------------------
def test_serena_dashboard_prints_a_working_url(project: Path, store: MemoryStore) -> None:
    store.write("core", "hello from the command")
    proc = subprocess.Popen(
        [sys.executable, "-m", "serena_memory.cli", "dashboard", str(project), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(2)]
        match = re.search(r"(http://127\.0\.0\.1:\d+)/\?token=(\S+)", "".join(lines))
        assert match, lines
        base, token = match.groups()
        with httpx.Client(base_url=base, headers={"Origin": base, "X-Serena-Token": token}) as c:
            assert c.get(f"/?token={token}").status_code == 200
            assert c.get("/api/memory", params={"name": "core"}).json()["content"] == (
                "hello from the command"
            )
    finally:
        proc.terminate()
        proc.wait(10)


def test_serena_dashboard_refuses_a_missing_project(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "serena_memory.cli", "dashboard", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        timeout=60,
    )
    assert result.returncode == 1
    assert "does not exist" in result.stderr


def test_a_folder_in_the_memorys_place_is_a_json_error_the_page_can_show(
    client: httpx.Client, project: Path
) -> None:
    """A folder where the memory's file must go: the page gets a JSON error naming the
    folder and what to do, not a bare 500, and the folder stays."""
    (project / ".serena" / "memories" / "x.md").mkdir(parents=True)
    response = client.post("/api/memory", json={"name": "x", "content": "y"})
    assert response.status_code == 400
    error = response.json()["error"]
    assert "x.md is a folder" in error and "rename or remove" in error
    assert (project / ".serena" / "memories" / "x.md").is_dir()


def test_a_body_nested_too_deeply_is_refused_with_a_sentence(client: httpx.Client) -> None:
    """JSON nested past Python's recursion limit is the client's mistake: a 400 worded like
    every other front-end's message, never a server error."""
    deep = "[" * 100_000 + "]" * 100_000
    response = client.post(
        "/api/render", content=deep, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert "nested too deeply" in response.json()["error"]


# -- search -------------------------------------------------------------------------------------
SEARCH_CORPUS = {
    "billing/refunds": "# Refunds\nMoney back within 30 days.\n\n## Partial refunds\nUp to it.\n",
    "billing/invoices": "# Invoices\nA refund creates a credit note.\n",
    "core": "# Core\nStart here; refunds are in `mem:billing/refunds`.\n",
    "ops/deploy": "# Deploy\nNothing about money.\n",
    "global/style": "# Style\nRefund wording: say 'money back'.\n",
}


def test_search_ranks_exactly_as_the_library_does_with_marks(
    client: httpx.Client, store: MemoryStore, project: Path
) -> None:
    from serena_memory.search.index import search_memories

    write_config(project / ".serena" / "project.yml", "read_only_memory_patterns: ['global/.*']\n")
    for name, text in SEARCH_CORPUS.items():
        store.write(name, text)
    for query, params in [
        ("refunds", {}),
        ("money back", {}),
        ("refund", {"scope": "project"}),
        ("refund", {"topic": "billing", "max_results": "1"}),
    ]:
        answer = client.get("/api/search", params={"q": query, **params})
        assert answer.status_code == 200, answer.text
        limit = int(params.get("max_results", 20))
        core = search_memories(
            store, query, topic=params.get("topic"), scope=params.get("scope"), max_results=limit
        )
        assert answer.json() == {"query": query, **core.to_dict()}
    hits = client.get("/api/search", params={"q": "refunds"}).json()["hits"]
    assert hits[0]["name"] == "billing/refunds"
    assert hits[0]["name_marks"] == [[8, 15]]  # billing/[refunds]
    heading = next(line for line in hits[0]["lines"] if line["line"] == 1)
    assert heading == {"line": 1, "text": "# Refunds", "marks": [[2, 9]]}
    style = next(hit for hit in hits if hit["name"] == "global/style")
    assert style["read_only"] is True
    assert style["lines"][0]["text"][slice(*style["lines"][0]["marks"][0])] == "Refund"
    assert "ops/deploy" not in {hit["name"] for hit in hits}
    assert client.get("/api/search", params={"q": "zzzqqq"}).json()["hits"] == []
    assert client.get("/api/search", params={"q": ""}).json()["hits"] == []


def test_search_needs_the_token(server: DashboardServer, store: MemoryStore) -> None:
    store.write("secret_plan", "# Plan\nthe hidden agenda\n")
    for headers in [{}, {"X-Serena-Token": "guess"}]:
        answer = httpx.get(server.base_url + "/api/search?q=agenda", headers=headers)
        assert answer.status_code == 401
        assert "agenda" not in answer.text and "secret_plan" not in answer.text


def test_a_bad_search_request_is_a_400_with_one_sentence(client: httpx.Client) -> None:
    for params, words in [
        ({}, "?q="),
        ({"q": "x", "scope": "nowhere"}, "scope"),
        ({"q": "x", "max_results": "many"}, "max_results"),
        ({"q": "x", "max_results": "0"}, "max_results"),
        ({"q": "x", "max_results": "101"}, "max_results"),
        ({"q": "x", "topic": "../etc"}, "'..'"),
    ]:
        answer = client.get("/api/search", params=params)
        assert answer.status_code == 400, (params, answer.text)
        error = answer.json()["error"]
        assert words in error and "\n" not in error and "Traceback" not in error, error
    # query syntax is only text: nothing a person types is a bad query
    for query in ['"NEAR(AND', "*", "a OR", "mem:", "\x00\x01\x02", "x" * 10_000]:
        assert client.get("/api/search", params={"q": query}).status_code == 200, query


def test_search_sends_hostile_memory_text_as_json_data_only(
    client: httpx.Client, store: MemoryStore
) -> None:
    hostile = "<img src=x onerror=\"window.__xss='search'\"> refunds </script><b>"
    store.write("hostile", f"# <script>alert(1)</script> refunds\n{hostile}\n")
    answer = client.get("/api/search", params={"q": "refunds <script>"})
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/json")
    assert answer.headers["x-content-type-options"] == "nosniff"
    [hit] = answer.json()["hits"]
    assert {"line": 2, "text": hostile, "marks": [[44, 51], [54, 60]]} in hit["lines"]
    assert hit["lines"][0]["text"] == "# <script>alert(1)</script> refunds"


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="counts bytes read in /proc")
def test_a_memory_shows_without_every_memory_being_read(
    client: httpx.Client, store: MemoryStore
) -> None:
    """Backlinks need every memory read; the memory itself needs only the names, so its
    first answer in a large folder reads a small part of what the backlinks' first does
    (bytes this process read, from the kernel's count)."""
    store.write("core", "# Core\nSee mem:notes/n0 and mem:gone.\n")
    folder = store.layout.memories_dir / "notes"
    folder.mkdir()
    filler = "Words about the deploy and the build, mem:core, again and again.\n" * 40
    for i in range(3000):
        (folder / f"n{i}.md").write_text(f"# Note {i}\n{filler}", encoding="utf-8")
    folder_bytes = 3000 * len(filler)
    before = _bytes_read()
    page = client.get("/api/memory", params={"name": "core"})
    page_read = _bytes_read() - before
    assert page.status_code == 200
    assert page.json()["references"] == [
        {"name": "gone", "exists": False},
        {"name": "notes/n0", "exists": True},
    ]
    before = _bytes_read()
    backlinks = client.get("/api/backlinks", params={"name": "core"})
    backlinks_read = _bytes_read() - before
    assert len(backlinks.json()["backlinks"]) == 3000
    assert page_read < folder_bytes / 10 < backlinks_read, (page_read, backlinks_read)


def _bytes_read() -> int:
    """What this process has read so far (files, pipes, sockets), as the kernel counts it."""
    fields = dict(
        line.split(": ") for line in Path("/proc/self/io").read_text().splitlines() if line
    )
    return int(fields["rchar"])


def test_the_dashboard_saves_and_restores_on_after_the_history_was_removed_under_it(
    client: httpx.Client, store: MemoryStore
) -> None:
    """docs/secrets.md, step 3, while the dashboard runs: its next save starts the new
    history, which its history panel shows and restores from."""

    def save(text: str) -> None:
        base = client.get("/api/memory", params={"name": "deploy"}).json()["version"]
        saved = client.put(
            "/api/memory", json={"name": "deploy", "content": text, "base_version": base}
        )
        assert saved.status_code == 200, saved.text

    store.write("deploy", "# Deploy\n\nv1\n")
    save("# Deploy\n\nv2\n")
    assert client.get("/api/history", params={"name": "deploy"}).json()["total"] == 2
    for folder in history_folders(store):
        shutil.rmtree(repository_path(history_root(store), folder.root), ignore_errors=True)

    save("# Deploy\n\nv3\n")
    entries = client.get("/api/history", params={"name": "deploy"}).json()["entries"]
    assert [e["summary"].split(" ")[0] for e in entries] == ["Replace", "History"]
    restored = client.post("/api/restore", json={"name": "deploy", "rev": entries[1]["rev"]})
    assert restored.status_code == 200, restored.text
    assert store.read("deploy") == "# Deploy\n\nv2\n"
