"""Search as people type it: PascalCase names found as the memory holds them, exact hits
shown at the lines holding their terms, paths echoed whole, answers that say what they
hold, options that are text, and hits the limit cut counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli

from serena_memory.core.store import MemoryStore
from serena_memory.search.hits import format_hits
from serena_memory.search.index import search_memories
from serena_memory.search.query import exact_terms, parse_query


def _write(store: MemoryStore, name: str, text: str) -> None:
    path = store.layout.memories_dir / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def team(store: MemoryStore) -> MemoryStore:
    _write(
        store,
        "auth/sessions",
        "# Sessions\n\nCookies last a day.\n"
        "They are `HttpOnly` and `SameSite=Lax`; the SessionStore keeps them in Redis.\n",
    )
    _write(
        store,
        "ops/monitoring",
        "# Monitoring and alerts\n\nPages at night.\nHighErrorRate fires at 5%.\n",
    )
    _write(store, "deploy/ci", "# CI\n\nThe workflow is .github/workflows/ci.yml, on every push.\n")
    _write(store, "auth/oauth", "# OAuth\n\nThe provider calls /auth/callback/{provider} back.\n")
    _write(store, "auth/login", "# Login\n\n`authenticate_user()` checks the password.\n")
    for i in range(6):
        _write(store, f"deploy/notes{i}", f"# Deploy notes {i}\n\nHow we deploy, step {i}.\n")
    return store


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("HttpOnly", "auth/sessions"),
        ("httponly", "auth/sessions"),
        ("SessionStore", "auth/sessions"),
        ("SameSite", "auth/sessions"),
        ("HighErrorRate", "ops/monitoring"),
    ],
)
def test_a_pascal_case_name_is_found_as_the_memory_holds_it(
    team: MemoryStore, query: str, expected: str
) -> None:
    hits = search_memories(team, query)
    assert hits and hits[0].name == expected, format_hits(hits, query)
    assert any(query.lower() in text.lower() for _, text in hits[0].lines)


def test_an_exact_hit_shows_the_line_holding_its_term(team: MemoryStore) -> None:
    hits = search_memories(team, '"HighErrorRate"')
    assert hits[0].name == "ops/monitoring" and hits[0].why == "exact: HighErrorRate"
    (number, text), spans = hits[0].lines[0], hits[0].line_marks[0]
    assert number == 4 and [text[a:b] for a, b in spans] == ["HighErrorRate"]


@pytest.mark.parametrize(
    ("written", "term"),
    [
        ("look at .github/workflows/ci.yml.", ".github/workflows/ci.yml"),
        ("/auth/callback/{provider}", "/auth/callback/{provider}"),
        ("(see core.store)", "core.store"),
        ("see core.store).", "core.store"),
        ('"tests/test_docs.py",', "tests/test_docs.py"),
        ("[tests/a.py]", "tests/a.py"),
        ("maxRetries?", "maxRetries"),
    ],
)
def test_an_exact_term_keeps_its_own_marks_and_loses_the_sentences(written: str, term: str) -> None:
    assert exact_terms(written) == [term]


def test_prose_and_brand_words_are_split_as_before_where_no_hump_is() -> None:
    assert exact_terms("e.g. 3.5 sign-in HTTPServer McDonald's") == []
    parsed = parse_query("SessionStore cookies")
    assert parsed.words == ["sessionstore", "session", "store", "cookies"]
    assert parsed.phrase == '"sessionstore cookies"'


def test_paths_are_echoed_and_found_whole(team: MemoryStore) -> None:
    for query, name in [
        (".github/workflows/ci.yml", "deploy/ci"),
        ("/auth/callback/{provider}", "auth/oauth"),
    ]:
        hits = search_memories(team, query)
        assert hits[0].name == name and hits[0].why == f"exact: {query}"


def test_an_answer_says_which_terms_it_holds_and_which_none_does(team: MemoryStore) -> None:
    query = '"foo bar" authenticate_user'
    text = format_hits(search_memories(team, query), query)
    assert text.startswith("No memory holds 'foo bar' as written.\n1. auth/login")
    query = '"xyzzy plugh"'
    text = format_hits(search_memories(team, query), query)
    assert text.startswith("No memory holds 'xyzzy plugh' as written, nor its words.")


def test_a_word_like_an_option_is_text_and_a_near_option_is_told(
    team: MemoryStore, project: Path
) -> None:
    _write(team, "release/flags", "# Flags\n\nAlways try `--dry-run` first.\n")
    done = run_cli("memories", "search", "--dry-run", "-p", str(project))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("1. release/flags  (exact: --dry-run)")
    done = run_cli("memories", "search", "--jsno", "deploy", "-p", str(project))
    assert done.returncode == 0
    assert "did you mean --json?" in done.stderr


def test_hits_the_limit_cut_are_counted(team: MemoryStore, project: Path) -> None:
    hits = search_memories(team, "deploy", max_results=2)
    assert len(hits) == 2 and hits.more == 5 and hits.left_out == 0
    assert "(5 more matches were as strong as these" in format_hits(hits, "deploy")
    done = run_cli("memories", "search", "deploy", "-n", "2", "--json", "-p", str(project))
    assert json.loads(done.stdout)["more"] == 5
    shown = run_cli("memories", "search", "deploy", "-n", "2", "-p", str(project))
    told = "(5 more matches were as strong as these: give --max-results 7 to see them.)"
    assert shown.returncode == 0 and shown.stdout.rstrip().endswith(told), shown.stdout
    more = run_cli("memories", "search", "deploy", "--max-results", "7", "-p", str(project))
    assert more.stdout.count("\n") > shown.stdout.count("\n") and "as strong" not in more.stdout
    assert search_memories(team, "deploy", max_results=20).more == 0


def test_an_answer_says_when_what_it_was_asked_for_is_not_there(team: MemoryStore) -> None:
    hits = search_memories(team, "mem:does/not_exist cookies")
    assert hits.not_named == ("does/not_exist",) and hits[0].name == "auth/sessions"
    text = format_hits(hits, "mem:does/not_exist cookies")
    assert text.startswith("No memory is named 'does/not_exist' (mem:does/not_exist in the query).")
    assert search_memories(team, "mem:auth/login password", topic="deploy").not_named == ()
    hits = search_memories(team, "session", topic="nosuch")
    assert hits.empty_topic == "nosuch" and not hits
    assert format_hits(hits, "session").startswith("No memory is in the topic 'nosuch';")
    assert search_memories(team, "session", topic="auth").empty_topic == ""


def test_a_folder_where_the_index_file_goes_is_told_as_such(
    team: MemoryStore, project: Path
) -> None:
    from serena_memory.search.database import close_indexes, index_path

    close_indexes()
    path = index_path(team)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.mkdir()
    done = run_cli("memories", "search", "cookies", "-p", str(project))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"the search index {path} is a folder, not the index file; move it away" in done.stderr
    close_indexes()


def test_german_filler_words_do_not_rank(store: MemoryStore, project: Path) -> None:
    """A question asked in German: its articles, conjunctions and modal verbs are filler,
    as "the", "and" and "should" are in English; the memory about its subject comes first
    and a wordy memory that shares only filler words with it is no match."""
    _write(
        store,
        "deploy/docker",
        "# Docker\n\nDer Server startet mit `docker compose up`; Port 8080.\n",
    )
    _write(
        store,
        "team/abstimmung",
        "# Abstimmung\n\nDie Sitzung ist am Montag, und das ist nicht zu spät. Der Plan ist "
        "mit dem Team abgestimmt, die Liste ist ein Entwurf, und eine Frage ist zu klären, "
        "das ist nicht dringend, und die Antwort ist mit dem Team zu finden.\n",
    )
    query = "Wie startet der Server, und ist das mit Docker nicht zu langsam?"
    assert parse_query(query).words == ["startet", "server", "docker", "langsam"]
    done = run_cli("memories", "search", *query.split(), "-p", str(project))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("1. deploy/docker"), done.stdout
    assert "team/abstimmung" not in done.stdout, done.stdout
    assert parse_query("MIT license").words == ["mit", "license"]  # an acronym stays
