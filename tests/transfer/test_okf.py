"""Open Knowledge Format (OKF v0.2) bundles: `export okf DEST` and `import okf SRC`.

Real projects in tmp folders (a git repository with a source file), the real CLI, and a
part of a bundle another tool wrote (tests/fixtures/okf/acme_retail, its source in
SOURCE.txt). Every bundle written is checked by tests/helpers/okf_conformance.py, which
is written from the specification, not from the exporter."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import REPO_ROOT, run_cli, write_config
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from okf_conformance import check_bundle
from proposing import propose_write

from serena_memory.core.changes import Provenance, acting_as, current_os_user
from serena_memory.core.store import Context, MemoryStore
from serena_memory.transfer import okf_concept as C
from serena_memory.wiring import build_store

ACME = REPO_ROOT / "tests" / "fixtures" / "okf" / "acme_retail"


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=root,
        check=True,
        capture_output=True,
        env={**os.environ, "GIT_COMMITTER_DATE": "2026-01-02T03:04:05Z"},
    )


@pytest.fixture
def repo(project: Path) -> Path:
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("def start_app():\n    pass\n")
    _git(project, "init", "-q")
    _git(project, "add", ".")
    _git(project, "commit", "-qm", "app")
    return project


def _memories(store: MemoryStore) -> None:
    store.write("core", "# Core\n\nThe app starts in `src/app.py`. Login: mem:auth/login.\n")
    store.write(
        "auth/login",
        "---\nsummary: How a person logs in\nstatus: stable\nowner: team-a\n---\n"
        "Tokens last an hour. Back to mem:core; `mem:core` in code stays.\n",
    )
    store.write("index", "The memory named [index](https://x.org/i). See mem:core.")  # no line end


def _front(path: Path) -> dict:
    text = path.read_text()
    return yaml.safe_load(text.split("---\n")[1])


def _export(project: Path, dest: Path, *extra: str) -> None:
    run_cli("memories", "export", "okf", str(dest), "-p", str(project), *extra, check=True)


def test_export_writes_a_conformant_bundle_saying_where_each_field_comes_from(
    repo: Path, serena_home: Path, tmp_path: Path
) -> None:
    store = build_store(repo, home=serena_home)
    _memories(store)
    dest = tmp_path / "bundle"
    _export(repo, dest)

    count, problems = check_bundle(dest)
    assert (count, problems) == (3, [])
    core = _front(dest / "core.md")
    assert core["type"] == C.CONCEPT_TYPE and core["title"] == "core"
    assert core["description"] == "The app starts in `src/app.py`."  # its first sentence
    assert core["generated"]["by"].startswith("human:")
    assert core["sources"] == [
        {
            "resource": "src/app.py",
            "title": "project file src/app.py",
            "last_modified": "2026-01-02",
        }
    ]
    assert core["verified"][0]["by"] == "process:serena-memory-code-check"
    body = (dest / "core.md").read_text()
    assert "Login: [mem:auth/login](/auth/login.md)." in body
    login = _front(dest / "auth" / "login.md")
    assert login["description"] == "How a person logs in"  # its summary
    assert login["owner"] == "team-a" and login["status"] == "stable"
    assert "`mem:core` in code stays" in (dest / "auth" / "login.md").read_text()
    # a memory named index is no reserved file; every folder has its index
    assert "See [mem:core](/core.md)." in (dest / "index-memory.md").read_text()
    root_index = (dest / "index.md").read_text()
    assert root_index.startswith('---\nokf_version: "0.2"\n---\n')
    assert "* [core](core.md) - The app starts in `src/app.py`." in root_index
    assert "* [auth](auth/index.md) - 1 memory" in root_index
    assert "* [index](index-memory.md) - The memory named index.\n" in root_index  # no link
    assert "* [auth/login](login.md) - How a person logs in" in (dest / "auth/index.md").read_text()
    log = (dest / "log.md").read_text()
    assert "**Creation** by human:" in log and "[auth/login](/auth/login.md)" in log


def test_an_accepted_proposal_is_generated_by_the_agent_and_verified_by_the_person(
    project: Path, serena_home: Path, tmp_path: Path
) -> None:
    write_config(serena_home / "serena_config.yml", "memory_agent_writes: propose\n")
    agent = build_store(project, home=serena_home, context=Context.AGENT)
    with acting_as(Provenance("mcp", "claude-code 2.0.1", "write_memory")):
        proposal = propose_write(agent, "notes", "# Notes\n\nUse uv.\n")
    run_cli("memories", "review", "accept", proposal.id, "-p", str(project), check=True)
    dest = tmp_path / "bundle"
    _export(project, dest)

    notes = _front(dest / "notes.md")
    assert notes["generated"]["by"] == "claude-code/2.0.1"
    assert [v["by"] for v in notes["verified"]] == [f"human:{current_os_user()}"]
    assert check_bundle(dest) == (1, [])


def test_export_then_import_changes_nothing_and_a_new_project_gets_the_same_bytes(
    repo: Path, serena_home: Path, tmp_path: Path
) -> None:
    store = build_store(repo, home=serena_home)
    _memories(store)
    dest = tmp_path / "bundle"
    _export(repo, dest)

    again = run_cli("memories", "import", "okf", str(dest), "-p", str(repo), check=True)
    assert "Created 0 memories" in again.stdout and "3 already imported" in again.stdout

    other = tmp_path / "other"
    other.mkdir()
    run_cli("memories", "import", "okf", str(dest), "-p", str(other), check=True)
    fresh = build_store(other, home=serena_home)
    assert sorted(fresh.scan().files) == ["auth/login", "core", "index"]
    for name in fresh.scan().files:
        assert fresh.read_bytes(name) == store.read_bytes(name)


def test_check_tells_a_stale_bundle_and_export_removes_only_its_own_files(
    repo: Path, serena_home: Path, tmp_path: Path
) -> None:
    store = build_store(repo, home=serena_home)
    _memories(store)
    dest = tmp_path / "bundle"
    _export(repo, dest)
    (dest / "notes.md").write_text("---\ntype: Note\n---\nMine.\n")
    (dest / "viz.html").write_text("<html></html>")

    fresh = run_cli("memories", "export", "okf", str(dest), "--check", "-p", str(repo))
    assert fresh.returncode == 0 and "up to date" in fresh.stdout
    store.delete("index")
    stale = run_cli("memories", "export", "okf", str(dest), "--check", "-p", str(repo))
    assert stale.returncode == 1 and "out of date" in stale.stdout
    assert (dest / "index-memory.md").exists()  # --check writes nothing

    _export(repo, dest)
    assert not (dest / "index-memory.md").exists()
    assert (dest / "notes.md").read_text() == "---\ntype: Note\n---\nMine.\n"
    assert (dest / "viz.html").exists()
    again = run_cli("memories", "export", "okf", str(dest), "--check", "-p", str(repo))
    assert again.returncode == 0

    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "core.md").write_text("---\ntype: Note\n---\nTheirs.\n")
    refused = run_cli("memories", "export", "okf", str(theirs), "-p", str(repo))
    assert refused.returncode != 0 and "no export of memories wrote it" in refused.stderr
    assert sorted(p.name for p in theirs.iterdir()) == ["core.md"]


def test_a_bundle_another_tool_wrote_imports_with_its_front_matter_and_links(
    project: Path, serena_home: Path, tmp_path: Path
) -> None:
    source = tmp_path / "acme"
    shutil.copytree(ACME, source)
    assert check_bundle(source, links=False) == (4, [])

    first = run_cli("memories", "import", "okf", str(source), "-p", str(project), check=True)
    store = build_store(project, home=serena_home)
    assert sorted(store.scan().files) == [
        "metrics/gross-margin-legacy",
        "metrics/revenue",
        "policies/revenue-recognition",
        "tables/orders",
    ]  # index.md and log.md are no memories
    policy = store.read("policies/revenue-recognition")
    original = (ACME / "policies" / "revenue-recognition.md").read_text()
    assert policy.startswith(original.split("\n---\n", 1)[0])  # the front matter, whole
    assert "(/tables/orders.md) — `order_status`" in policy
    assert "implement the recognition rules (mem:tables/orders)" in policy
    assert "(/computations/revenue-ytd.md)" in policy  # a concept left out: a broken link
    assert "Created 4 memories" in first.stdout
    again = run_cli("memories", "import", "okf", str(source), "-p", str(project), check=True)
    assert "Created 0 memories" in again.stdout

    dest = tmp_path / "out"
    _export(project, dest)
    assert check_bundle(dest, links=False) == (4, [])
    orders = _front(dest / "tables" / "orders.md")
    assert orders["type"] == "BigQuery Table"  # its own keys win over derived ones
    assert orders["verified"] == [{"by": "human:kliu@acme", "at": orders["verified"][0]["at"]}]
    back = run_cli("memories", "import", "okf", str(dest), "-p", str(project), check=True)
    assert "Created 0 memories" in back.stdout


def test_a_hostile_bundle_gets_one_sentence_and_writes_nothing_outside(
    project: Path, serena_home: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("---\ntype: Secret\n---\nkey\n")
    bundle = tmp_path / "hostile"
    bundle.mkdir()
    (bundle / "a.md").write_text(
        "---\ntype: Note\n---\nSee [x](../../secret.md) and [y](/../x.md).\n"
    )
    plan = run_cli("memories", "import", "okf", str(bundle), "--dry-run", "-p", str(project))
    assert plan.returncode == 0 and "leads outside the bundle" in plan.stdout

    (bundle / "link.md").symlink_to(secret)
    linked = run_cli("memories", "import", "okf", str(bundle), "-p", str(project))
    assert linked.returncode != 0 and "leads outside the source folder" in linked.stderr
    assert "Traceback" not in linked.stderr and len(linked.stderr.strip().splitlines()) <= 2
    (bundle / "link.md").unlink()
    (bundle / "huge.md").write_text("---\ntype: Note\n---\n" + "x" * (3 * 1024 * 1024))
    huge = run_cli("memories", "import", "okf", str(bundle), "-p", str(project))
    assert huge.returncode != 0 and "huge.md" in huge.stderr and "Traceback" not in huge.stderr
    assert list(build_store(project, home=serena_home).scan().files) == []


def test_export_never_writes_through_a_link(
    project: Path, serena_home: Path, tmp_path: Path
) -> None:
    build_store(project, home=serena_home).write("auth/login", "Tokens.\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    linked = tmp_path / "linked"
    linked.symlink_to(outside)
    refused = run_cli("memories", "export", "okf", str(linked), "-p", str(project))
    assert refused.returncode != 0 and "symlink" in refused.stderr
    dest = tmp_path / "bundle"
    dest.mkdir()
    (dest / "auth").symlink_to(outside)
    inside = run_cli("memories", "export", "okf", str(dest), "-p", str(project))
    assert inside.returncode != 0 and "link out of the bundle folder" in inside.stderr
    assert list(outside.iterdir()) == []
    into = run_cli(
        "memories", "export", "okf", str(project / ".serena" / "memories" / "b"), "-p", str(project)
    )
    assert into.returncode != 0 and "would become memories" in into.stderr
    assert not (project / ".serena" / "memories" / "b").exists()


def test_global_memories_go_out_with_global_and_come_back_only_when_allowed(
    project: Path, serena_home: Path, tmp_path: Path
) -> None:
    store = build_store(project, home=serena_home)
    store.write("core", "Project core.\n")
    store.write("global/style", "Use tabs. See mem:core.\n")
    alone = tmp_path / "alone"
    _export(project, alone)
    assert not (alone / "global").exists()
    both = tmp_path / "both"
    _export(project, both, "--global")
    assert check_bundle(both) == (2, [])
    assert "See [mem:core](/core.md)." in (both / "global" / "style.md").read_text()

    other = tmp_path / "other"
    other.mkdir()
    skipped = run_cli("memories", "import", "okf", str(both), "-p", str(other), check=True)
    assert "global memory" in skipped.stdout
    assert sorted(build_store(other, home=serena_home).scan().files) == [
        "core",
        "global/style",
    ]  # the global memory was there already: the same home


_BODY = st.lists(
    st.sampled_from([*"ab `#-*\n[]()/:.", "mem:core", "mem:a/b", "```\n", "---\n", "\r\n"]),
    max_size=40,
).map("".join)
_OWN = st.one_of(
    st.just(""),
    st.just("---\nsummary: S\nstatus: draft\n---\n"),
    st.just("---\r\nsummary: 'x: y'\r\nextra: [1, 2]\r\n---\r\n"),
    st.just("---\n{summary: flow}\n---\n"),
    st.just("---\nsummary: closed with dots\n...\n"),
    st.just("---  \nsummary: opened with blanks\n---\n"),
)


@given(own=_OWN, body=_BODY)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_concept_reads_back_as_the_memory_it_was(own: str, body: str) -> None:
    paths = {"core": "core.md", "a/b": "a/b.md", "index": "index-memory.md"}
    names = {p: n for n, p in paths.items()}
    text = own + body
    derived = {"type": C.CONCEPT_TYPE, "title": "index", "description": "d"}
    concept = C.concept_text("index", text, derived, paths)
    assert C.split_front_matter(concept)[0]["type"]
    back, name = C.memory_text(concept, "index-memory.md", names)
    assert name == "index"
    if own.startswith("---\n{"):  # a flow mapping: its keys, written out again
        assert C.split_front_matter(back)[0] == {"summary": "flow"}
        assert C.split_front_matter(back)[2] == body
    else:
        assert back == text
