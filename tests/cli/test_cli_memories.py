"""The `serena memories` command line, run as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SERENA, run_cli, write_config

from serena_memory.agent.maintenance import template_text


def ok(result) -> str:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result.stdout


def failed(result, *words: str) -> str:
    """Exit status 1 and exactly one line on stderr, starting with 'Error:'."""
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: ")
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def usage_error(result) -> None:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert "Usage:" in result.stderr or "Error:" in result.stderr


def mem(project: Path, name: str) -> Path:
    return project / ".serena" / "memories" / f"{name}.md"


def test_every_command_with_an_explicit_project(project: Path, tmp_path: Path) -> None:
    p = str(project)
    out = ok(run_cli("memories", "write", "auth/login", p, "--content", "Login uses tokens.\n"))
    assert "Created" in out and "auth/login" in out
    assert mem(project, "auth/login").read_text() == "Login uses tokens.\n"
    out = ok(run_cli("memories", "write", "core", p, "-c", "Start: `mem:auth/login`.\n"))
    assert ok(run_cli("memories", "list", p)) == ("Project memories (2):\n  auth/login\n  core\n")
    assert ok(run_cli("memories", "read", "mem:auth/login.md", p)) == "Login uses tokens.\n"
    out = ok(run_cli("memories", "edit", "auth/login", p, "--needle", "tokens", "--repl", "JWT"))
    assert "1 replacement" in out
    assert mem(project, "auth/login").read_text() == "Login uses JWT.\n"
    out = ok(run_cli("memories", "rename", "auth/login", "security/login", p))
    assert "rewrote 1 reference" in out
    assert mem(project, "core").read_text() == "Start: `mem:security/login`.\n"
    out = ok(run_cli("memories", "delete", "security/login", p))
    assert "Deleted" in out and "security/login" in out
    assert not mem(project, "security/login").exists()
    assert not (project / ".serena" / "memories" / "security").exists()
    out = ok(run_cli("memories", "write", "core", p, "-c", "v2"))
    assert "Updated" in out


def test_project_defaults_to_the_current_folder(project: Path, tmp_path: Path) -> None:
    ok(run_cli("memories", "write", "here", "--content", "in cwd", cwd=project))
    assert mem(project, "here").read_text() == "in cwd"
    assert "here" in ok(run_cli("memories", "list", cwd=project))
    assert ok(run_cli("memories", "read", "here", cwd=project)) == "in cwd\n"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert ok(run_cli("memories", "list", cwd=elsewhere)).startswith("No memories yet: write")
    assert ok(run_cli("memories", "list", str(project), cwd=elsewhere)).endswith("  here\n")
    # a relative PROJECT is taken from the current folder
    ok(run_cli("memories", "delete", "here", "project", cwd=tmp_path))
    assert not mem(project, "here").exists()


def test_list_sections_topic_and_json(project: Path, serena_home: Path) -> None:
    write_config(project / ".serena" / "project.yml", "read_only_memory_patterns: ['frozen/.*']\n")
    for name in ("core", "auth/login", "frozen/decisions", "global/style"):
        path = (
            serena_home / "memories" / f"{name}.md"
            if name.startswith("global/")
            else mem(project, name)
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(name)
    assert ok(run_cli("memories", "list", str(project))) == (
        "Project memories (2):\n  auth/login\n  core\n"
        "Global memories (1):\n  global/style\n"
        "Read-only memories (1):\n  frozen/decisions\n"
    )
    data = json.loads(ok(run_cli("memories", "list", str(project), "--json")))
    assert data == {
        "project": str(project.resolve()),
        "memories": ["auth/login", "core", "global/style"],
        "read_only_memories": ["frozen/decisions"],
    }
    data = json.loads(ok(run_cli("memories", "list", str(project), "--topic", "global", "--json")))
    assert data == {
        "project": str(project.resolve()),
        "memories": ["global/style"],
        "read_only_memories": [],
    }
    assert ok(run_cli("memories", "list", str(project), "-t", "auth")) == (
        "Project memories (1):\n  auth/login\n"
    )
    assert ok(run_cli("memories", "list", str(project), "--topic", "nope")) == (
        "No memories in topic 'nope'; `serena memories list` shows them all.\n"
    )


def test_read_json(project: Path) -> None:
    write_config(project / ".serena" / "project.yml", "read_only_memory_patterns: ['frozen/.*']\n")
    path = mem(project, "frozen/x")
    path.parent.mkdir(parents=True)
    path.write_text("line one\nno newline ✓", encoding="utf-8")
    data = json.loads(ok(run_cli("memories", "read", "mem:frozen\\x.md", str(project), "--json")))
    assert data == {"name": "frozen/x", "content": "line one\nno newline ✓", "read_only": True}
    # the plain form prints the content, ending in exactly one newline
    assert ok(run_cli("memories", "read", "frozen/x", str(project))) == "line one\nno newline ✓\n"


def test_write_from_file_and_stdin(project: Path, tmp_path: Path) -> None:
    source = tmp_path / "draft.md"
    source.write_text("# from a file\nü\n", encoding="utf-8")
    ok(run_cli("memories", "write", "a", str(project), "--file", str(source)))
    assert mem(project, "a").read_text(encoding="utf-8") == "# from a file\nü\n"
    ok(run_cli("memories", "write", "b", str(project), input="# from stdin\n`mem:a`\n"))
    assert mem(project, "b").read_text() == "# from stdin\n`mem:a`\n"
    ok(run_cli("memories", "write", "c", str(project), "--file", "-", input="dash\n"))
    assert mem(project, "c").read_text() == "dash\n"
    # piped content is stored exactly as given, Windows line endings included
    crlf = subprocess.run(
        [*SERENA, "memories", "write", "d", str(project)],
        input=b"one\r\ntwo\r\n",
        capture_output=True,
        timeout=60,
    )
    assert crlf.returncode == 0, crlf.stderr
    assert mem(project, "d").read_bytes() == b"one\r\ntwo\r\n"
    ok(run_cli("memories", "write", "e", str(project), "--content", "", "--empty"))
    assert mem(project, "e").read_bytes() == b""


def test_edit_regex_flags(project: Path) -> None:
    p = str(project)
    ok(run_cli("memories", "write", "v", p, "-c", "a=1\nb=2\n"))
    out = ok(
        run_cli(
            "memories", "edit", "v", p, "--needle", r"^(\w)=(\d)$", "--repl", "$!2:$!1",
            "--mode", "regex", "--allow-multiple-occurrences",
        )
    )  # fmt: skip
    assert "2 replacement" in out
    assert mem(project, "v").read_text() == "1:a\n2:b\n"
    failed(
        run_cli("memories", "edit", "v", p, "--needle", r"^\d", "--repl", "x", "--mode", "regex"),
        "2 times",
    )
    assert mem(project, "v").read_text() == "1:a\n2:b\n"


def test_people_may_change_read_only_memories_from_the_command_line(project: Path) -> None:
    write_config(project / ".serena" / "project.yml", "read_only_memory_patterns: ['frozen/.*']\n")
    ok(run_cli("memories", "write", "frozen/x", str(project), "-c", "by hand"))
    ok(run_cli("memories", "rename", "frozen/x", "frozen/y", str(project)))
    assert mem(project, "frozen/y").read_text() == "by hand"


# -- failures: one line, exit 1, never a traceback ------------------------------------------


def test_failures_are_one_line_errors(project: Path, tmp_path: Path) -> None:
    p = str(project)
    ok(run_cli("memories", "write", "a", p, "-c", "A"))
    ok(run_cli("memories", "write", "b", p, "-c", "B"))
    failed(run_cli("memories", "read", "nope", p), "'nope'", "not found")
    failed(run_cli("memories", "delete", "nope", p), "not found")
    failed(run_cli("memories", "read", "../etc/passwd", p), "'..'")
    failed(run_cli("memories", "write", "global", p, "-c", "x"), "global")
    failed(run_cli("memories", "write", "/abs", p, "-c", "x"), "absolute")
    failed(run_cli("memories", "rename", "a", "b", p), "'b' already exists")
    failed(run_cli("memories", "edit", "a", p, "--needle", "zzz", "--repl", "y"), "no match")
    failed(
        run_cli("memories", "edit", "a", p, "--needle", "(", "--repl", "y", "--mode", "regex"),
        "invalid regex",
    )
    failed(run_cli("memories", "write", "a.md/x", p, "-c", "x"), "in the way")
    # names too long for a file system, or so deep that making their folders would recurse
    failed(run_cli("memories", "write", "a/" * 2000 + "x", p, "-c", "x"), "characters")
    failed(run_cli("memories", "write", "n" * 300, p, "-c", "x"), "255 bytes")
    failed(run_cli("memories", "list", str(tmp_path / "missing")), "does not exist")
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    usage_error(run_cli("memories", "list", str(a_file)))  # a PROJECT that is a file
    # undecodable bytes on the command line, in a name or in the content
    for args in ([b"\xff", b"--content", b"x"], [b"d", b"--content", b"caf\xe9"]):
        bad = subprocess.run(
            [*SERENA, "memories", "write", *args, p], capture_output=True, timeout=60
        )
        bad.stdout, bad.stderr = bad.stdout.decode(), bad.stderr.decode()
        failed(bad)
    raw = subprocess.run(
        [*SERENA, "memories", "write", "c", p], input=b"caf\xe9", capture_output=True, timeout=60
    )
    raw.stdout, raw.stderr = raw.stdout.decode(), raw.stderr.decode()
    failed(raw, "UTF-8")
    assert not mem(project, "c").exists()
    # piped, --json is compact (one line): cheap to produce and to parse
    assert ok(run_cli("memories", "list", "--json", p)) == (
        json.dumps({"project": str(Path(p).resolve())}, ensure_ascii=False)[:-1]
        + ', "memories": ["a", "b"], "read_only_memories": []}\n'
    )


def test_non_utf8_memory_is_an_error_for_it_alone(project: Path) -> None:
    p = str(project)
    ok(run_cli("memories", "write", "good", p, "-c", "fine"))
    mem(project, "bad").write_bytes(b"caf\xe9\n")
    failed(run_cli("memories", "read", "bad", p), "'bad'", "UTF-8")
    assert ok(run_cli("memories", "list", p)) == "Project memories (2):\n  bad\n  good\n"
    assert ok(run_cli("memories", "read", "good", p)) == "fine\n"


@pytest.mark.parametrize(
    ("where", "text", "words"),
    [
        ("project", "read_only_memory_patterns: [oops\n", ["project.yml", "invalid YAML"]),
        (
            "project",
            "ignored_memory_patterns: '_archive/.*'\n",
            ["project.yml", "ignored_memory_patterns", "single string"],
        ),
        (
            "global",
            "read_only_memory_patterns: ['(']\n",
            ["serena_config.yml", "read_only_memory_patterns", "invalid regex"],
        ),
        ("global", "[1, 2]\n", ["serena_config.yml", "mapping"]),
    ],
)
def test_broken_configuration_is_reported_by_every_command(
    project: Path, serena_home: Path, where: str, text: str, words: list[str]
) -> None:
    path = (
        project / ".serena" / "project.yml"
        if where == "project"
        else serena_home / "serena_config.yml"
    )
    write_config(path, text)
    failed(run_cli("memories", "list", str(project)), str(path), *words)
    failed(run_cli("memories", "write", "x", str(project), "-c", "x"), str(path))
    assert not mem(project, "x").exists()


def test_ignored_memory_is_refused_with_its_path(project: Path) -> None:
    write_config(project / ".serena" / "project.yml", "ignored_memory_patterns: ['_archive/.*']\n")
    raw = mem(project, "_archive/old")
    raw.parent.mkdir(parents=True)
    raw.write_text("old")
    failed(run_cli("memories", "read", "_archive/old", str(project)), str(raw), "ignored")
    assert ok(run_cli("memories", "list", str(project))).startswith("No memories yet")


@pytest.mark.parametrize(
    "args",
    [
        ["memories", "read"],
        ["memories", "rename", "only-one"],
        ["memories", "edit", "a", "--repl", "x"],
        ["memories", "edit", "a", "--needle", "x", "--repl", "y", "--mode", "glob"],
        ["memories", "list", "--no-such-flag"],
        ["memories", "frobnicate"],
        ["memories", "write", "a", "--content", "x", "--file", "-"],
        ["memories", "write", "a", "--file", "/no/such/file.md"],
    ],
    ids=lambda a: " ".join(a[1:3]),
)
def test_usage_errors_exit_2(project: Path, args: list[str]) -> None:
    usage_error(run_cli(*args, cwd=project, input=""))
    assert not (project / ".serena" / "memories" / "a.md").exists()


# -- initialize -----------------------------------------------------------------------------


def test_initialize_precedence(project: Path, serena_home: Path) -> None:
    p = str(project)
    maintenance = mem(project, "memory_maintenance")
    out = ok(run_cli("memories", "initialize", p))
    assert "Created" in out and "template" in out
    assert maintenance.read_text(encoding="utf-8") == template_text()

    maintenance.write_text("our own conventions\n")
    out = ok(run_cli("memories", "initialize", p))
    assert "Kept" in out
    assert maintenance.read_text() == "our own conventions\n"

    maintenance.unlink()
    ok(run_cli("memories", "initialize", cwd=project))  # deleting it brings the template back
    assert maintenance.read_text(encoding="utf-8") == template_text()

    maintenance.unlink()
    global_copy = serena_home / "memories" / "global" / "memory_maintenance.md"
    global_copy.parent.mkdir(parents=True)
    global_copy.write_text("team-wide conventions\n")
    out = ok(run_cli("memories", "initialize", p))
    assert "global/memory_maintenance" in out
    assert not maintenance.exists()  # the global one wins: no project copy
    assert global_copy.read_text() == "team-wide conventions\n"

    maintenance.write_text("stale project copy\n")
    out = ok(run_cli("memories", "initialize", p))
    assert "global/memory_maintenance" in out  # global wins over a project copy too
    assert maintenance.read_text() == "stale project copy\n"  # but it is never overwritten


@pytest.mark.slow  # cold starts of real processes
def test_memories_commands_load_no_server_or_web_stack(project: Path) -> None:
    """The CLI's cold start is a feature: `list` and `read` must not pay for the MCP SDK,
    the web stack, the Markdown renderer, the integrity engine, git or the folder watch."""
    (project / ".serena" / "memories").mkdir(parents=True)
    (project / ".serena" / "memories" / "core.md").write_text("hello", encoding="utf-8")
    code = (
        "import sys\n"
        "from serena_memory.cli import main\n"
        "root = sys.argv[1]\n"
        "def run(*args):\n"
        "    try:\n"
        "        main(list(args))\n"
        "    except SystemExit as exit:\n"
        "        assert exit.code == 0, exit.code\n"
        "web = ('mcp', 'starlette', 'uvicorn', 'markdown_it', 'rapidfuzz', 'ahocorasick',\n"
        "       'pygit2', 'serena_memory.integrity.references.analysis',\n"
        "       'serena_memory.mcp.server')\n"
        "run('memories', 'list', root)\n"
        "run('memories', 'read', 'core', root)\n"
        "print(sorted(m for m in (*web, 'pydantic', 'ctypes') if m in sys.modules))\n"
        "run('memories', 'search', 'hello', root)  # loads its model, nothing of a server\n"
        "print(sorted(m for m in web if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(project)], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip().splitlines()[-1] == "[]"
    assert [line for line in done.stdout.splitlines() if line.startswith("[")] == ["[]", "[]"]
    assert "hello" in done.stdout
