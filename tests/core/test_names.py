"""Memory names: normalization, refusals, containment and aliases of ignored names."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import write_config
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from serena_memory.core.errors import IgnoredMemoryError, InvalidNameError
from serena_memory.core.names import normalize_name, normalize_topic
from serena_memory.core.store import Context, MemoryStore
from serena_memory.wiring import build_store


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("auth/login", "auth/login"),
        ("mem:auth/login", "auth/login"),
        ("auth/login.md", "auth/login"),
        ("mem:auth/login.md", "auth/login"),
        ("auth\\login", "auth/login"),
        ("mem:auth\\login.md", "auth/login"),
        ("  core  ", "core"),
        ("global/style", "global/style"),
        ("mem:global\\team\\rules.md", "global/team/rules"),
        ("x.md.md", "x"),
        ("notes.markdown", "notes.markdown"),
        ("a.md/b", "a.md/b"),
        ("a...b", "a...b"),
    ],
)
def test_normalization(raw: str, expected: str) -> None:
    assert normalize_name(raw) == expected


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("mem:", "empty"),
        (".md", "empty"),
        ("mem:.md", "empty"),
        ("a//b", "empty"),
        ("a/", "empty"),
        ("auth\\\\login", "empty"),
        (".", "'.'"),
        ("./x", "'.'"),
        ("a/./x", "'.'"),
        ("..", "'..'"),
        ("../x", "'..'"),
        ("a/../../x", "'..'"),
        ("..\\x", "'..'"),
        ("/etc/passwd", "absolute"),
        ("\\x", "absolute"),
        ("C:/x", "absolute"),
        ("c:x", "absolute"),
        ("global", "global"),
        ("mem:global.md", "global"),
        ("global/", "empty"),
        ("a\x00b", "character"),
        ("a\nb", "character"),
        ("a\x1bb", "character"),
        ("a\x7fb", "character"),
        ("a/ b", "spaces"),
        ("caf\udce9", "character"),  # an undecodable command-line byte
        (".hidden", "starting with '.'"),
        ("topic/.hidden", "starting with '.'"),
        ("...", "starting with '.'"),
        ("x" * 253, "255 bytes"),  # with .md the file name would be 256 bytes
        ("é" * 128 + "/x", "255 bytes"),  # a topic folder name, counted in UTF-8 bytes
        ("a/" * 500 + "x", "more than the 1000 allowed"),
    ],
)
def test_refused_names_say_why(raw: str, why: str) -> None:
    with pytest.raises(InvalidNameError) as info:
        normalize_name(raw)
    assert why in str(info.value)


def test_longest_names_are_accepted() -> None:
    assert normalize_name("x" * 252) == "x" * 252
    assert normalize_name("t" * 255 + "/x") == "t" * 255 + "/x"
    assert normalize_name("a/" * 499 + "x") == "a/" * 499 + "x"


def test_refusals_surface_through_every_store_operation(store: MemoryStore, project: Path) -> None:
    store.write("ok", "fine")
    for bad in ("../outside", "/abs", "global", "a//b"):
        with pytest.raises(InvalidNameError):
            store.write(bad, "x")
        with pytest.raises(InvalidNameError):
            store.read(bad)
        with pytest.raises(InvalidNameError):
            store.delete(bad)
        with pytest.raises(InvalidNameError):
            store.edit(bad, "a", "b")
        with pytest.raises(InvalidNameError):
            store.rename(bad, "y")
        with pytest.raises(InvalidNameError):
            store.rename("ok", bad)
    assert not (project / "outside.md").exists()
    assert not (project / ".serena" / "outside.md").exists()
    assert store.list().all == ["ok"]


def test_topics_normalize() -> None:
    assert normalize_topic("") == ""
    assert normalize_topic("global") == "global"
    assert normalize_topic("auth/") == "auth"
    assert normalize_topic("mem:auth\\sub") == "auth/sub"
    with pytest.raises(InvalidNameError):
        normalize_topic("../x")


# -- containment, for any string ------------------------------------------------------------


def _tokens(tokens: list[str], max_size: int) -> st.SearchStrategy[str]:
    """Strings built from name-ish pieces, where the interesting cases live."""
    return st.lists(st.sampled_from(tokens), max_size=max_size).map("".join)


_NAMEISH = _tokens(list("ab./\\:- \x00\n\tM") + ["mem:", ".md", "..", "global", "C:", "\u2028"], 24)
_ANY = st.one_of(
    st.text(max_size=40),
    st.text(st.characters(exclude_categories=()), max_size=20),  # lone surrogates too
    _NAMEISH,
)


def _inside(path: Path, root: Path) -> bool:
    path_n, root_n = os.path.normpath(path), os.path.normpath(root)
    return os.path.commonpath([path_n, root_n]) == root_n and path_n != root_n


@pytest.mark.slow  # many generated names on disk
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=_ANY)
def test_any_string_is_refused_or_stays_inside_its_folder(raw: str, tmp_path_factory) -> None:
    base = tmp_path_factory.getbasetemp() / "containment"
    s = build_store(base / "project", home=base / "home")
    try:
        name = normalize_name(raw)
    except InvalidNameError as exc:
        assert str(exc)  # refused with a message
        return
    path = s.layout.path_of(raw)
    root = s.layout.global_dir if name.startswith("global/") else s.layout.memories_dir
    assert _inside(path, root), (raw, path)
    assert path.name.endswith(".md")
    assert os.fsencode(path).decode("utf-8")  # a file name every tool can show
    # the canonical name is a fixed point: what a listing shows reads the same file
    assert normalize_name(name) == name
    assert s.layout.path_of(name) == path


@pytest.mark.slow  # many generated names on disk
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=_tokens(list("abc/\\ ") + ["mem:", ".md", "global/", "x-y_z"], 16))
def test_accepted_names_round_trip_through_the_disk(raw: str, tmp_path_factory) -> None:
    """Whatever name a write accepts is listed and read back under its canonical form."""
    base = tmp_path_factory.mktemp("roundtrip")
    s = build_store(base / "project", home=base / "home")
    try:
        name = normalize_name(raw)
        s.write(raw, "body")
    except InvalidNameError:
        return
    assert s.list().all == [name]
    assert s.read(name) == "body"
    assert s.read(raw) == "body"
    s.delete(raw)
    assert s.list().all == []


# -- ignored names can't be reached through aliases ------------------------------------------

_ALIASES = {
    "secret": ["secret", "mem:secret", "secret.md", "mem:secret.md", " secret ", "secret.md.md"],
    "a/x": ["a/x", "a\\x", "mem:a\\x", "a/x.md", "mem:a/x.md", "a\\x.md"],
    "global/private/key": ["mem:global/private/key", "global\\private\\key.md"],
}
_DOTTED = ["./secret", "a/./x", "./a/x", "a/../a/x", "global/./private/key"]


@pytest.fixture(params=[Context.HUMAN, Context.AGENT], ids=["human", "agent"])
def guarded(request, project: Path, serena_home: Path) -> MemoryStore:
    write_config(
        project / ".serena" / "project.yml",
        "ignored_memory_patterns: ['secret', 'a/x']\n",
    )
    write_config(
        serena_home / "serena_config.yml", "ignored_memory_patterns: ['global/private/.*']\n"
    )
    mem = project / ".serena" / "memories"
    (mem / "a").mkdir(parents=True)
    (mem / "secret.md").write_text("top secret\n", encoding="utf-8")
    (mem / "a" / "x.md").write_text("hidden x\n", encoding="utf-8")
    (serena_home / "memories" / "global" / "private").mkdir(parents=True)
    (serena_home / "memories" / "global" / "private" / "key.md").write_text("k\n")
    (mem / "visible.md").write_text("see me\n", encoding="utf-8")
    return build_store(project, home=serena_home, context=request.param)


def _operations(s: MemoryStore, alias: str):
    return [
        ("read", lambda: s.read(alias)),
        ("write", lambda: s.write(alias, "overwritten")),
        ("delete", lambda: s.delete(alias)),
        ("edit", lambda: s.edit(alias, "e", "E", allow_multiple_occurrences=True)),
        ("rename-from", lambda: s.rename(alias, "moved")),
        ("rename-to", lambda: s.rename("visible", alias)),
    ]


@pytest.mark.parametrize(("canonical", "aliases"), list(_ALIASES.items()))
def test_ignored_names_cannot_be_reached_by_alias(
    guarded: MemoryStore, canonical: str, aliases: list[str], project: Path
) -> None:
    raw_path = guarded.layout.path_of(canonical)
    before = raw_path.read_bytes()
    for alias in aliases:
        for op, call in _operations(guarded, alias):
            with pytest.raises(IgnoredMemoryError) as info:
                call()
            message = str(info.value)
            assert str(raw_path) in message, (alias, op, message)
    assert raw_path.read_bytes() == before
    assert guarded.read("visible") == "see me\n"
    assert not guarded.layout.path_of("moved").exists()
    assert guarded.list().all == ["visible"]


@pytest.mark.parametrize("alias", _DOTTED)
def test_dotted_aliases_of_ignored_names_are_refused(guarded: MemoryStore, alias: str) -> None:
    for _op, call in _operations(guarded, alias):
        with pytest.raises(InvalidNameError):
            call()
    assert guarded.read("visible") == "see me\n"
    assert (guarded.layout.memories_dir / "secret.md").read_text() == "top secret\n"


def test_hand_saved_files_with_non_portable_characters_stay_usable(store: MemoryStore) -> None:
    """A person on Linux or macOS may save `ADR: caching.md`; the tools list it, so they
    must also read, edit, rename and delete it. Only *new* names must be portable."""
    folder = store.layout.memories_dir / "decisions"
    folder.mkdir(parents=True)
    (folder / "ADR: caching.md").write_text("use `mem:core`", encoding="utf-8")
    assert store.list().all == ["decisions/ADR: caching"]
    assert store.read("decisions/ADR: caching") == "use `mem:core`"
    store.edit("decisions/ADR: caching", "use", "read")
    store.write("decisions/ADR: caching", "rewritten")  # replacing it is fine too
    store.rename("decisions/ADR: caching", "decisions/adr_caching")
    assert store.read("decisions/adr_caching") == "rewritten"
    (folder / "what?.md").write_text("x", encoding="utf-8")
    store.delete("decisions/what?")
    assert store.list().all == ["decisions/adr_caching"]


@pytest.mark.parametrize("new_name", ["ADR: caching", "a<b", "why?", 'say"so"', "a|b", "x*"])
def test_new_names_must_be_portable(store: MemoryStore, new_name: str) -> None:
    with pytest.raises(InvalidNameError, match="Windows"):
        store.write(new_name, "x")
    store.write("fine", "x")
    with pytest.raises(InvalidNameError, match="Windows"):
        store.rename("fine", new_name)
    with pytest.raises(InvalidNameError, match="Windows"):
        store.write_if_unchanged(new_name, "x", None)  # the dashboard's create
    assert store.list().all == ["fine"]


def test_a_doubled_mem_prefix_is_refused() -> None:
    with pytest.raises(InvalidNameError, match="twice"):
        normalize_name("mem:mem:x")
