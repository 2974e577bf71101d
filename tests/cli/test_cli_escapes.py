"""Names and texts from files, remotes and clients never reach a terminal as control
sequences: memory files named with escape sequences in a real project, a real bare remote
whose commit carries them in its author and summary, the real `serena` in a subprocess,
on a pipe and on a real pseudo-terminal."""

from __future__ import annotations

import codecs
import json
import os
import shutil
import subprocess
import tty
from pathlib import Path

import pygit2
import pytest
from conftest import SERENA, run_cli
from hypothesis import given
from hypothesis import strategies as st

from serena_memory.core.display import escape_json, escape_line, escape_text

# Names a cloned repository can give its memory files: an OSC (window title), a CSI
# (clear screen), a C1 CSI, a carriage return, a bidi override, a zero-width space, a
# newline and a tab.
NAMES = {
    "osc": "\x1b]0;pwned\x07",
    "csi": "clear\x1b[2Jscreen",
    "c1": "c1\x9b31mred",
    "cr": "over\rwrite",
    "bidi": "evil\u202etxt.exe",
    "zw": "zero\u200bwidth",
    "nl": "two\nlines",
    "tab": "tab\tname",
    # valid names (the name gate refuses the controls above) that still print escaped
    "nbsp": "no\u00a0break",
    "pua": "private\ue000use",
}
SEARCHABLE = ("pua",)
# What each still reads as once escaped.
SHOWN = {key: escape_line(name) for key, name in NAMES.items()}
BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
ZERO_WIDTH = "\u200b\u2060\ufeff"


def unsafe(text: str, *, lines: bool = True) -> list[str]:
    """The characters of printed text that could steer a terminal or disguise a name:
    C0 controls (newline and tab allowed when ``lines``, and a carriage return only
    before a newline), DEL, C1 controls, bidi controls, zero-width spaces, undecodable
    bytes (surrogates after decoding)."""
    found = []
    for i, c in enumerate(text):
        code = ord(c)
        if lines and (c in "\n\t" or (c == "\r" and text[i + 1 : i + 2] == "\n")):
            continue
        control = code < 0x20 or 0x7F <= code <= 0x9F
        if control or c in BIDI or c in ZERO_WIDTH or 0xD800 <= code <= 0xDFFF:
            found.append(c)
    return found


def out(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert not unsafe(result.stdout), result.stdout
    assert not unsafe(result.stderr), result.stderr
    return result.stdout


def serena(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The command line, its output decoded as from a pipe with undecodable bytes kept as
    surrogates, so a raw byte that is not UTF-8 is seen, never hidden by the decoding."""
    return run_cli(*args, cwd=cwd, errors="surrogateescape")


def on_terminal(*args: str) -> str:
    """The real command line with a pseudo-terminal as its stdout (raw mode: the bytes as
    written, no newline translation)."""
    main, side = os.openpty()
    tty.setraw(side)
    proc = subprocess.Popen(
        [*SERENA, *args],
        stdin=subprocess.DEVNULL,
        stdout=side,
        stderr=subprocess.PIPE,
        env=dict(os.environ),
    )
    os.close(side)
    chunks = []
    while True:
        try:
            data = os.read(main, 65536)
        except OSError:  # the other side closed
            break
        if not data:
            break
        chunks.append(data)
    stderr = proc.stderr.read() if proc.stderr else b""
    assert proc.wait(timeout=300) == 0, stderr
    os.close(main)
    return b"".join(chunks).decode("utf-8", "surrogateescape")


@pytest.fixture
def cloned(project: Path) -> Path:
    """A project whose memories came with a repository: each named with an escape
    sequence, each referring to `mem:core` and to a missing memory."""
    folder = project / ".serena" / "memories"
    folder.mkdir(parents=True)
    (folder / "core.md").write_text("The entry point. needle\n", encoding="utf-8")
    for name in NAMES.values():
        (folder / f"{name}.md").write_text(
            "needle: see `mem:core` and `mem:gone`.\n", encoding="utf-8"
        )
    return project


def test_list_escapes_every_name_on_a_pipe_and_json_keeps_them_exact(cloned: Path) -> None:
    text = out(serena("memories", "list", str(cloned)))
    for shown in SHOWN.values():
        assert f"  {shown}\n" in text
    assert "  \\x1b]0;pwned\\x07\n" in text and "  two\\nlines\n" in text
    raw = serena("memories", "list", str(cloned), "--json")
    data = json.loads(out(raw))
    assert sorted(data["memories"]) == sorted([*NAMES.values(), "core"])


def test_list_escapes_a_file_name_that_is_not_utf8(cloned: Path) -> None:
    folder = os.fsencode(cloned / ".serena" / "memories")
    with open(os.path.join(folder, b"raw\x9bbyte.md"), "wb") as f:
        f.write(b"x\n")
    assert "  raw\\udc9bbyte\n" in out(serena("memories", "list", str(cloned)))
    data = json.loads(out(serena("memories", "list", str(cloned), "--json")))
    assert "raw\udc9bbyte" in data["memories"]


def test_list_escapes_names_on_a_terminal(cloned: Path) -> None:
    text = on_terminal("memories", "list", str(cloned))
    assert not unsafe(text), text
    assert all(shown in text for shown in SHOWN.values())


def test_check_escapes_the_names_it_reports(cloned: Path) -> None:
    text = out(serena("memories", "check", str(cloned)))
    for key in ("osc", "csi", "c1", "bidi", "zw"):
        assert SHOWN[key] in text


def test_graph_escapes_names_in_every_format(cloned: Path) -> None:
    for fmt in ("mermaid", "dot", "graphml"):
        text = out(serena("memories", "graph", str(cloned), "--format", fmt))
        assert "\\x1b]0;pwned\\x07" in text and "evil\\u202etxt.exe" in text
    data = json.loads(out(serena("memories", "graph", str(cloned), "--format", "json")))
    assert set(NAMES.values()) <= {node["name"] for node in data["nodes"]}


def test_search_escapes_names(cloned: Path) -> None:
    text = out(serena("memories", "search", "needle", "-p", str(cloned), "-n", "20"))
    for key in SEARCHABLE:  # names the name gate accepts, so search indexes them
        assert SHOWN[key] in text, key
    data = json.loads(
        out(serena("memories", "search", "needle", "-p", str(cloned), "--json", "-n", "20"))
    )
    assert {NAMES[key] for key in SEARCHABLE} <= {hit["name"] for hit in data["hits"]}


def test_backlinks_escapes_the_sources(cloned: Path) -> None:
    text = out(serena("memories", "backlinks", "core", str(cloned)))
    for shown in SHOWN.values():
        assert f"  {shown}: line 1" in text


def test_write_rename_edit_delete_messages_escape_names(project: Path) -> None:
    """Names a client may give: private-use characters pass the name rules and print
    escaped; C1, bidi and zero-width characters are refused, in an escaped error."""
    p = str(project)
    name, other = "a\ue0002Jb", "zero\ue001width"
    text = out(serena("memories", "write", name, p, "--content", "hello\n"))
    assert "a\\ue0002Jb" in text
    text = out(serena("memories", "edit", name, p, "--needle", "hello", "--repl", "hi"))
    assert "a\\ue0002Jb" in text
    text = out(serena("memories", "rename", name, other, p))
    assert "a\\ue0002Jb" in text and "zero\\ue001width" in text
    assert "zero\\ue001width" in out(serena("memories", "delete", other, p))
    for refused in ("a\x9b2J", "evil\u202etxt", "zero\u200bwidth"):
        done = serena("memories", "write", refused, p, "--content", "x\n")
        assert done.returncode == 1 and "not allowed in memory names" in done.stderr
        assert not unsafe(done.stderr)


def test_an_error_naming_a_file_escapes_it(project: Path) -> None:
    done = serena("memories", "read", "a\x9b2J", str(project))
    assert done.returncode == 1
    assert not unsafe(done.stderr) and "a\\x9b2J" in done.stderr


@pytest.mark.slow  # real processes, a terminal, syncs
def test_read_gives_the_exact_content_to_a_pipe_and_escapes_it_on_a_terminal(
    project: Path,
) -> None:
    content = "line one\r\n\ttabbed \x1b]0;pwned\x07 \x9b2J \u202eevil\rover\n"
    folder = project / ".serena" / "memories"
    folder.mkdir(parents=True)
    (folder / "notes.md").write_bytes(content.encode("utf-8"))
    piped = subprocess.run(
        [*SERENA, "memories", "read", "notes", str(project)], capture_output=True, check=True
    )
    assert piped.stdout == content.encode("utf-8")
    shown = on_terminal("memories", "read", "notes", str(project))
    assert not unsafe(shown), shown
    assert shown == ("line one\r\n\ttabbed \\x1b]0;pwned\\x07 \\x9b2J \\u202eevil\\rover\n")


@pytest.mark.slow  # real processes, a terminal, syncs
@pytest.mark.skipif(shutil.which("git") is None, reason="sync needs git")
def test_history_escapes_a_remote_commits_author_and_summary(tmp_path: Path, project: Path) -> None:
    """A sync brings in a remote's commits, whose messages and authors anyone with push
    access writes: `history` prints them escaped, --json exactly."""
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(bare)], check=True)
    p = str(project)
    out(serena("memories", "write", "global/base", p, "--content", "base\n"))
    out(serena("memories", "sync", "--remote", str(bare), cwd=project))
    repo = pygit2.Repository(str(bare))
    head = repo.references["refs/heads/main"].peel(pygit2.Commit)
    builder = repo.TreeBuilder(head.tree)
    builder.insert("fine.md", repo.create_blob(b"fine\n"), pygit2.GIT_FILEMODE_BLOB)
    author = pygit2.Signature("Mal\x1b[2Jlory\x9b", "m@example.org")
    message = (
        "\x1b]0;pwned\x07 summary \u202eevil\r\n\n"
        "Entry-point: mcp\x1b[31m\nWho: \x1b]2;who\x07bob\nAction: a\x9bb\n"
    )
    first = repo.create_commit(
        "refs/heads/main", author, author, message, builder.write(), [head.id]
    )
    builder.insert("more.md", repo.create_blob(b"more\n"), pygit2.GIT_FILEMODE_BLOB)
    message = '\x1b[2Jexternal\n\nChanged: A "more\\u001b[2J"\n'
    repo.create_commit("refs/heads/main", author, author, message, builder.write(), [first])
    out(serena("memories", "sync", cwd=project))
    text = out(serena("memories", "history", "--project", p))
    assert "  mcp\\x1b[31m \\x1b]2;who\\x07bob (a\\x9bb)  " in text
    assert "  \\x1b]0;pwned\\x07 summary \\u202eevil\\r\n" in text
    assert "  external Mal\\x1b[2Jlory\\x9b  \\x1b[2Jexternal\n" in text
    assert "more\\x1b[2J created" in text
    on_a_terminal = on_terminal("memories", "history", "--project", p)
    assert not unsafe(on_a_terminal) and "\\x1b]2;who\\x07bob" in on_a_terminal
    data = json.loads(out(serena("memories", "history", "--project", p, "--json")))
    assert {"\x1b]2;who\x07bob", "Mal\x1b[2Jlory\x9b"} <= {entry["who"] for entry in data}


@pytest.mark.slow  # real processes, a terminal, syncs
@pytest.mark.skipif(shutil.which("git") is None, reason="sync needs git")
def test_sync_and_conflicts_escape_names_and_show_the_other_text_safely(
    tmp_path: Path, project: Path
) -> None:
    """A teammate's memory named with a C1 CSI and a bidi override, in conflict here."""
    from serena_memory.sync.merge import sync
    from serena_memory.wiring import build_store

    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    (tmp_path / "laptop").mkdir()
    (tmp_path / "laptop-home").mkdir()
    laptop = build_store(tmp_path / "laptop", home=tmp_path / "laptop-home")
    name = "global/x\ue0002Jy"
    laptop.write(name, "base\n")
    sync(laptop, "global", str(remote))
    out(serena("memories", "sync", "--remote", str(remote), cwd=project))
    laptop.write(name, "laptop \x1b]0;pwned\x07\n")
    sync(laptop, "global", str(remote))
    out(serena("memories", "write", name, str(project), "--content", "here\n"))
    text = out(serena("memories", "sync", cwd=project))
    assert "x\\ue0002Jy" in text
    text = out(serena("memories", "conflicts", str(project)))
    assert "  global/x\\ue0002Jy  (" in text and "set aside: the text from " in text
    assert "x\\ue0002Jy" in out(serena("memories", "list", str(project)))
    piped = serena("memories", "conflicts", str(project), "--show", name)
    assert "\n+laptop \x1b]0;pwned\x07\n" in piped.stdout  # the diff, exact to a script
    shown = on_terminal("memories", "conflicts", str(project), "--show", name)
    assert "\n+laptop \\x1b]0;pwned\\x07\n" in shown and "\x1b" not in shown


# -- the helper itself -----------------------------------------------------------------------
@given(st.text())
def test_escape_line_is_one_safe_line_that_reads_back_exactly(text: str) -> None:
    shown = escape_line(text)
    assert not unsafe(shown, lines=False)
    assert shown.isprintable()
    assert codecs.decode(shown.encode("ascii", "backslashreplace"), "unicode_escape") == text


@given(st.text(), st.text())
def test_escape_line_never_shows_two_names_alike(a: str, b: str) -> None:
    assert (escape_line(a) == escape_line(b)) == (a == b)


@given(st.text())
def test_escape_text_keeps_lines_and_lets_no_control_through(text: str) -> None:
    shown = escape_text(text)
    assert not unsafe(shown)
    assert shown.count("\n") == text.count("\n")
    if text.isprintable():
        assert shown == text


@given(st.recursive(st.text(), lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner)))
def test_escape_json_is_the_same_data_and_safe(data: object) -> None:
    dumped = escape_json(json.dumps(data, ensure_ascii=False))
    assert not unsafe(dumped, lines=False)
    assert json.loads(dumped) == data


def _escape_text_by_character(text: str) -> str:
    """The rule of escape_text, one character at a time (what its line-by-line speed-up
    must equal)."""
    from serena_memory.core.display import _escaped, _text_safe

    out = []
    for i, c in enumerate(text):
        crlf = c == "\r" and text[i + 1 : i + 2] == "\n"
        out.append(c if _text_safe(c) or crlf else _escaped(c))
    return "".join(out)


@given(st.text(alphabet=st.sampled_from("ab\n\r\t\x1b\x9b\u202e\u200b\u00a0\u2028 \\")))
def test_escape_text_line_by_line_equals_the_rule_per_character(text: str) -> None:
    assert escape_text(text) == _escape_text_by_character(text)


@given(st.text())
def test_escape_text_equals_the_rule_per_character_for_any_text(text: str) -> None:
    assert escape_text(text) == _escape_text_by_character(text)
