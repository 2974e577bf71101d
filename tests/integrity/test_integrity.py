"""Integrity checks on small hand-made memory folders: every finding type and every flag."""

from __future__ import annotations

import re

import pytest
from conftest import write_config
from hypothesis import given, settings
from hypothesis import strategies as st

from serena_memory.core.errors import MemoryNotFoundError, MemoryStoreError, ReadOnlyMemoryError
from serena_memory.core.names import normalize_name
from serena_memory.core.store import MemoryStore
from serena_memory.integrity.references.analysis import IntegrityAnalyzer
from serena_memory.integrity.references.check import run_check
from serena_memory.integrity.references.links import backlinks, fix_reference
from serena_memory.integrity.references.prefixing import auto_prefix, prefix_bare_mentions
from serena_memory.integrity.references.scanning import BareMentionFinder, iter_reference_runs


def fill(store: MemoryStore, memories: dict[str, str]) -> None:
    """Write files as a person would (so ignored and read-only ones too)."""
    for name, text in memories.items():
        path = store.layout.path_of(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def stale_of(report) -> list[tuple[str, str]]:
    return [(s.source, s.target) for s in report.stale]


# -- stale references ---------------------------------------------------------------------


def test_stale_reference_once_per_source_with_lines_and_candidates(store: MemoryStore) -> None:
    fill(
        store,
        {
            "core": "Start.\nSee `mem:auth/logn` and again\n`mem:auth/logn`, `mem:auth/login`.\n",
            "auth/login": "Login.\n",
            "notes": "Also `mem:auth/logn`.\n",
        },
    )
    report = run_check(store)
    assert stale_of(report) == [("core", "auth/logn"), ("notes", "auth/logn")]
    first = report.stale[0]
    assert first.lines == (2, 3)
    assert first.candidates == ("auth/login",)
    assert not first.source_read_only


def test_reference_boundaries(store: MemoryStore) -> None:
    """Whole runs only; `xmem:` is no reference; a trailing slash is part of the target."""
    fill(
        store,
        {
            "auth": "A.\n",
            "auth/login": "L.\n",
            "src": "mem:auth/login mem:authx xmem:ghost mem:auth/ (mem:auth). mem:auth.md\n",
        },
    )
    assert stale_of(run_check(store)) == [("src", "authx"), ("src", "auth/")]


def test_candidates_for_the_usual_mistakes(store: MemoryStore) -> None:
    targets = {
        "frontend/grid_layout": ["frontend-grid-layout", "grid_layout", "frontend/gridLayout",
                                 "frontend/grid_layouts", "frontend/layout_grid",
                                 "frontend/grid_layout_v2", "legacy_grid_layout",
                                 "frontend/grid_layot", "ui/grid_layout"],
        "auth/session_handling": ["auth/session_handling_old", "auth/SessionHandling",
                                  "auth/session-handling", "session_handling"],
        "tech_stack": ["techstack", "tech_stacks", "Tech_Stack"],
    }  # fmt: skip
    memories = {name: "x\n" for name in targets}
    memories["unrelated/holiday_calendar"] = "y\n"
    memories["core"] = "".join(f"`mem:{s}`\n" for stales in targets.values() for s in stales)
    memories["core"] += "`mem:zebra_quartz_walrus`\n"
    fill(store, memories)
    found = {s.target: s.candidates for s in run_check(store).stale}
    for intended, stales in targets.items():
        for stale in stales:
            assert found[stale][:1] == (intended,), stale
    assert found["zebra_quartz_walrus"] == ()
    assert all(len(c) <= 3 for c in found.values())


def test_read_only_sources_marked_and_ignored_memories_skipped(
    store: MemoryStore, serena_home
) -> None:
    write_config(
        store.layout.project_root / ".serena" / "project.yml",
        'read_only_memory_patterns: ["frozen/.*"]\nignored_memory_patterns: ["_archive/.*"]\n',
    )
    fill(
        store,
        {
            "frozen/decisions": "`mem:frozen/gone` and auth/login.\n",
            "_archive/old": "`mem:nothing` here is never reported.\n",
            "auth/login": "Login. Old notes in `mem:_archive/old`.\n",
        },
    )
    report = run_check(store, include_unmarked=True)
    assert stale_of(report) == [("auth/login", "_archive/old"), ("frozen/decisions", "frozen/gone")]
    assert report.stale[0].target_ignored  # it exists, but the agent can't read it
    assert report.stale[1].source_read_only
    assert [(b.source, b.name, b.source_read_only) for b in report.bare_high] == [
        ("frozen/decisions", "auth/login", True)
    ]
    text = report.to_text()
    assert "`mem:frozen/gone` in `frozen/decisions` [read-only source]" in text
    assert "`mem:_archive/old` in `auth/login`" in text and "`mem:nothing`" not in text


def test_global_memories_are_checked(store: MemoryStore) -> None:
    fill(store, {"global/style": "See `mem:global/missing` and tech_stack.\n", "tech_stack": "."})
    report = run_check(store, include_unmarked=True)
    assert stale_of(report) == [("global/style", "global/missing")]
    assert [(b.source, b.name) for b in report.bare_high] == [("global/style", "tech_stack")]


def test_maintenance_memory_and_empty_memories_not_scanned(store: MemoryStore) -> None:
    fill(
        store,
        {
            "memory_maintenance": "Examples: `mem:db/migrations`, tech_stack.\n",
            "global/memory_maintenance": "Examples: `mem:frontend/core`.\n",
            "empty": "",
            "tech_stack": "Python.\n",
            "core": "See memory_maintenance first.\n",
        },
    )
    report = run_check(store, include_unmarked=True)
    assert report.stale == []
    # it is still a memory others may mention
    assert [(b.source, b.name) for b in report.bare_high] == [("core", "memory_maintenance")]


# -- bare mentions ------------------------------------------------------------------------


def test_bare_mentions_confidence_self_and_common_words(store: MemoryStore) -> None:
    fill(
        store,
        {
            "core": "Entry.\n",
            "style": "Short flat name.\n",
            "changelog": "9 characters.\n",
            "changelogs": "10 characters.\n",
            "auth/login": "Mentions itself: auth/login, login. And core, auth/core.\n",
            "auth/core": "Topic entry.\n",
            "login": "Flat login.\n",
            "notes": (
                "style, changelog, changelogs and auth/login twice: auth/login.\n"
                "Not these: styles, my_style, style-guide, /style, mem:style, `mem:auth/login`.\n"
                "core and auth/core are common words. `style` in backticks counts.\n"
            ),
        },
    )
    report = run_check(store, include_unmarked=True)
    high = {(b.source, b.name): b.occurrences for b in report.bare_high}
    low = {(b.source, b.name): b.occurrences for b in report.bare_low}
    assert high == {("notes", "auth/login"): 2, ("notes", "changelogs"): 1}
    assert low == {("notes", "style"): 2, ("notes", "changelog"): 1}
    mention = next(b for b in report.bare_high if b.name == "auth/login")
    assert mention.lines == (1, 1)


def test_bare_mentions_only_reported_when_asked(store: MemoryStore) -> None:
    fill(store, {"tech_stack": "x", "core": "see tech_stack\n"})
    report = run_check(store)
    assert report.bare_high == [] and report.is_clean()
    assert "bare_mentions" not in report.to_dict()


def test_near_misses_point_to_the_intended_name_never_to_the_source(store: MemoryStore) -> None:
    fill(
        store,
        {
            "frontend/grid_layout": "Grid.\n",
            "suggested_commands": "Run Suggested_Commands; see suggested_commands_list.\n",
            "core": (
                "Layout in frontend-grid-layout; commands in suggested_commands_list and\n"
                "Suggested_Commands; unrelated configuration and implementation words.\n"
                "Not a near-miss: mem:frontend-grid-layout is a stale reference.\n"
            ),
        },
    )
    report = run_check(store, include_unmarked=True, fuzzy=True)
    near = {(b.source, b.token): b.name for b in report.near_misses}
    assert near == {
        ("core", "frontend-grid-layout"): "frontend/grid_layout",
        ("core", "suggested_commands_list"): "suggested_commands",
        ("core", "Suggested_Commands"): "suggested_commands",
    }
    assert run_check(store, fuzzy=True).near_misses == []  # only with include_unmarked


def test_reachability_and_references_into_ignored(store: MemoryStore) -> None:
    write_config(
        store.layout.project_root / ".serena" / "project.yml",
        'ignored_memory_patterns: ["_archive/.*"]\n',
    )
    fill(
        store,
        {
            "core": "Start: `mem:auth/core`.\n",
            "auth/core": "Read `mem:auth/login`; old: `mem:_archive/login`.\n",
            "auth/login": "Back to `mem:core`.\n",
            "orphan": "Nobody points here; I point to `mem:auth/login`.\n",
            "memory_maintenance": "Conventions.\n",
            "_archive/login": "old\n",
        },
    )
    report = run_check(store, reachability=True)
    assert report.unreachable == ["orphan"]
    assert [(r.source, r.target, r.lines) for r in report.ignored_references] == [
        ("auth/core", "_archive/login", (1,))
    ]
    assert report.to_dict()["entry_point"] == "core"
    store.delete("core")
    report = run_check(store, reachability=True)
    assert not report.entry_point_exists
    assert "auth/core" in report.unreachable


def test_undecodable_memory_is_reported_not_fatal(store: MemoryStore) -> None:
    fill(store, {"core": "`mem:gone`\n"})
    (store.layout.memories_dir / "broken.md").write_bytes(b"\xff\xfe bad")
    report = run_check(store)
    assert stale_of(report) == [("core", "gone")]
    assert report.unreadable == ["broken"]


# -- backlinks ----------------------------------------------------------------------------


def test_backlinks_with_line_numbers(store: MemoryStore) -> None:
    fill(
        store,
        {
            "auth/login": "L\n",
            "core": "one\n`mem:auth/login`\nthree mem:auth/login\n",
            "notes": "`mem:auth/login/extra` and `mem:auth/loginx` are other names\n",
            "tech": "mem:auth/login.\n",
        },
    )
    found = backlinks(store, "mem:auth/login.md")
    assert [(b.source, b.lines) for b in found] == [("core", (2, 3)), ("tech", (1,))]
    assert backlinks(store, "nothing") == []


# -- auto-prefix --------------------------------------------------------------------------


def test_auto_prefix_defaults_flags_and_idempotence(store: MemoryStore, serena_home) -> None:
    write_config(serena_home / "serena_config.yml", 'read_only_memory_patterns: ["frozen/.*"]\n')
    fill(
        store,
        {
            "auth/login": "L\n",
            "style": "S\n",
            "tech_stack": "T\n",
            "core": "See auth/login, `auth/login`, mem:auth/login, tech_stack and style.\n",
            "frozen/rules": "auth/login here.\n",
            "global/team": "tech_stack there.\n",
            "notes": "Near-miss: auth-login-flow; tech_stacks.\n",
        },
    )
    dry = auto_prefix(store, dry_run=True)
    assert store.read("core").startswith("See auth/login,")  # nothing written
    report = auto_prefix(store)
    assert [(c.source, c.name, c.count) for c in report.changed] == [
        ("core", "auth/login", 2),
        ("core", "tech_stack", 1),
    ]
    assert dry.to_dict()["changed"] == report.to_dict()["changed"]
    assert store.read("core") == (
        "See mem:auth/login, `mem:auth/login`, mem:auth/login, mem:tech_stack and style.\n"
    )
    reasons = {(s.source, s.name): s.reason for s in report.skipped}
    assert reasons[("core", "style")] == "flat name"
    assert reasons[("frozen/rules", "auth/login")] == "read-only source"
    assert reasons[("global/team", "tech_stack")] == "global memory"
    assert reasons[("notes", "tech_stack")] == "near-miss"
    assert store.read("frozen/rules") == "auth/login here.\n"
    again = auto_prefix(store)
    assert again.changed == []
    wide = auto_prefix(store, include_flat_names=True, include_read_only=True, include_global=True)
    assert {(c.source, c.name) for c in wide.changed} == {
        ("core", "style"),
        ("frozen/rules", "auth/login"),
        ("global/team", "tech_stack"),
    }
    assert store.read("global/team") == "mem:tech_stack there.\n"
    assert store.read("notes") == "Near-miss: auth-login-flow; tech_stacks.\n"
    assert auto_prefix(store, True, True, True, True).changed == []


def test_auto_prefix_in_agent_context_respects_read_only(agent_store, serena_home) -> None:
    write_config(serena_home / "serena_config.yml", 'read_only_memory_patterns: ["frozen/.*"]\n')
    fill(agent_store, {"auth/login": "L\n", "frozen/rules": "auth/login\n"})
    with pytest.raises(ReadOnlyMemoryError):
        auto_prefix(agent_store, include_read_only=True)


# -- fixing one reference -----------------------------------------------------------------


def test_fix_reference_rewrites_whole_names_in_one_memory(store: MemoryStore) -> None:
    fill(
        store,
        {
            "auth/login": "L\n",
            "core": "`mem:login` and mem:login. but not mem:login_flow or xmem:login\n",
            "other": "`mem:login` stays\n",
        },
    )
    assert fix_reference(store, "core", "mem:login", "auth/login") == 2
    assert store.read("core") == (
        "`mem:auth/login` and mem:auth/login. but not mem:login_flow or xmem:login\n"
    )
    assert store.read("other") == "`mem:login` stays\n"
    with pytest.raises(MemoryStoreError, match="no reference `mem:login`"):
        fix_reference(store, "core", "login", "auth/login")
    with pytest.raises(MemoryNotFoundError, match="'nowhere' not found"):
        fix_reference(store, "other", "login", "nowhere")


# -- properties ---------------------------------------------------------------------------

_NC = r"[A-Za-z0-9_\-/]"


def _valid_name(name: str) -> bool:
    try:
        return normalize_name(name) == name
    except MemoryStoreError:
        return False


name_text = st.text(alphabet="ab/_-.: \nmexX", max_size=40)
names = st.lists(
    st.text(alphabet="ab/_-. x", min_size=1, max_size=5).filter(_valid_name),
    min_size=1,
    max_size=5,
    unique=True,
)


def _oracle_bare(text: str, name: str) -> int:
    """The definition, as a regex: no name character around, not directly after `mem:`."""
    return len(re.findall(rf"(?<!mem:)(?<!{_NC}){re.escape(name)}(?!{_NC})", text))


@settings(max_examples=150, deadline=None)
@given(text=name_text, names=names)
def test_bare_mention_finder_matches_the_definition(text: str, names: list[str]) -> None:
    found = BareMentionFinder(names).find(text)
    for name in names:
        assert len(found.get(name, [])) == _oracle_bare(text, name), name


@settings(max_examples=150, deadline=None)
@given(text=st.text(alphabet="mem:ab/_-x \n", max_size=40))
def test_reference_runs_match_the_definition(text: str) -> None:
    expected = re.findall(rf"(?<!{_NC})mem:({_NC}+)", text)
    assert [t for t, _start in iter_reference_runs(text)] == expected


@settings(max_examples=150, deadline=None)
@given(text=name_text, names=names)
def test_prefixing_only_inserts_prefixes_and_is_idempotent(text: str, names: list[str]) -> None:
    once, counts = prefix_bare_mentions(text, names)
    assert once.replace("mem:", "") == text.replace("mem:", "")
    assert "mem:mem:" not in once or "mem:mem:" in text
    twice, again = prefix_bare_mentions(once, names)
    assert twice == once and again == {}
    assert sum(counts.values()) == once.count("mem:") - text.count("mem:")


def test_analyzer_is_pure() -> None:
    """The analysis needs no store and no files: a mapping is enough."""
    analyzer = IntegrityAnalyzer({"core": "see `mem:a/b` and c/d\n", "c/d": "x"}, read_only={"c/d"})
    report = analyzer.check(include_unmarked=True)
    assert [(s.source, s.target) for s in report.stale] == [("core", "a/b")]
    assert [(b.source, b.name) for b in report.bare_high] == [("core", "c/d")]


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("auth/login_v2", "auth/login"),
        ("tech_stack_old", "tech_stack"),
        ("TECH_STACK", "tech_stack"),
        ("techStacks", None),  # camelCase is how code names things; the name is snake_case
        ("deploy/docker_compose_file", "deploy/docker_compose"),
        ("session_handling_notes", "session_handling"),
        ("frontend/x-subtleties-more", "frontend/x-subtleties"),
        ("frontend-grid-layout", "frontend/grid_layout"),
        ("repository", None),  # one word of three
        ("authentication_flow", None),  # half of the words
        ("modules/frontend/core_extra", None),  # `core` names are common words
    ],
)
def test_near_miss_table(token: str, expected: str | None) -> None:
    names = [
        "auth/login", "tech_stack", "deploy/docker_compose", "session_handling",
        "frontend/x-subtleties", "frontend/grid_layout", "serena_repository_structure",
        "authentication", "modules/frontend/core",
    ]  # fmt: skip
    memories = {name: "x\n" for name in names}
    memories["notes"] = f"Bare: {token} here.\n"
    report = IntegrityAnalyzer(memories).check(include_unmarked=True, fuzzy=True)
    found = [(b.token, b.name) for b in report.near_misses]
    assert found == ([(token, expected)] if expected else [])


def test_many_names_with_other_characters_use_the_automaton() -> None:
    names = [f"notes {i}.v2" for i in range(20)] + ["plan", "plan.v2"]
    text = "See notes 3.v2, notes 13.v2x and mem:notes 4.v2; plan.v2 and plan.\n"
    found = BareMentionFinder(names).find(text)
    assert {n: len(o) for n, o in found.items()} == {
        n: _oracle_bare(text, n) for n in names if _oracle_bare(text, n)
    }
    assert set(found) == {"notes 3.v2", "plan.v2", "plan"}


def test_an_undecodable_memory_is_a_dead_end_for_reachability_not_an_error(
    store: MemoryStore,
) -> None:
    fill(store, {"core": "`mem:broken` and `mem:next`\n", "next": "x\n", "after": "y\n"})
    (store.layout.memories_dir / "broken.md").write_bytes(b"\xff `mem:after`")
    report = run_check(store, include_unmarked=True, fuzzy=True, reachability=True)
    assert report.unreadable == ["broken"]
    assert report.unreachable == ["after"]
    assert "Not valid UTF-8, not checked (1):" in report.to_text()
    assert [b.source for b in backlinks(store, "broken")] == ["core"]


def test_a_snapshot_is_reused_until_a_file_changes_and_then_reads_only_that(
    store: MemoryStore,
) -> None:
    from serena_memory.integrity.references.snapshot import Snapshot

    fill(store, {"core": "`mem:a`\n", "a": "`mem:b`\n", "b": "x\n"})
    first = Snapshot.refresh(store)
    assert Snapshot.refresh(store, first) is first
    assert [b.source for b in first.backlinks("a")] == ["core"]
    assert first.check(reachability=True) is first.check(reachability=True)
    store.write("b", "`mem:core` and `mem:gone`\n")
    second = Snapshot.refresh(store, first)
    assert second is not first
    assert second.analyzer.memories["a"] is first.analyzer.memories["a"]  # not read again
    assert [b.source for b in second.backlinks("core")] == ["b"]
    assert [s.target for s in second.check().stale] == ["gone"]
    store.delete("a")
    third = Snapshot.refresh(store, second)
    assert "a" not in third.analyzer.existing
    assert third.check(reachability=True).unreachable == ["b"]  # core led there through a
