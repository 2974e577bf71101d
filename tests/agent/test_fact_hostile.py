"""The fact sheet on hostile project files: whatever a cloned repository holds, detection
ends, gives a sheet, and reads nothing outside the project."""

from __future__ import annotations

from pathlib import Path

from serena_memory.agent.project_facts import detect_facts
from serena_memory.agent.project_facts.files import MAX_SMALL_FILE


def test_a_makefile_over_the_size_limit_is_named_not_read(tmp_path: Path) -> None:
    body = "test:\n\tpytest\n" + "x" * (MAX_SMALL_FILE + 1)
    (tmp_path / "Makefile").write_text(body, encoding="utf-8")
    sheet = detect_facts(tmp_path)
    assert ("Makefile", "make") in sheet.build_files
    assert not sheet.commands["test"]
    assert any("`Makefile` is over 512 KiB" in note for note in sheet.notes)


def test_adversarial_lines_in_a_makefile_and_a_justfile(tmp_path: Path) -> None:
    # lines built to make a backtracking pattern slow: names and blanks, then no target
    line = "a " * 240 + "!:\n"
    (tmp_path / "Makefile").write_text(line * 800 + "lint:\n\truff\n", encoding="utf-8")
    (tmp_path / "justfile").write_text(
        ("b" * 496 + " !\n" + "c" * 490 + ":=\n") * 400 + "test:\n", encoding="utf-8"
    )
    sheet = detect_facts(tmp_path)
    assert sheet.commands["lint"] == ["make lint"] and sheet.commands["test"] == ["just test"]


def test_files_that_are_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_bytes(b"# caf\xe9 \xff\xfe\ntest:\n\tpytest\n")
    (tmp_path / "package.json").write_bytes(b'{"scripts": {"lint": "eslint \xe9"}}')
    (tmp_path / "Rakefile").write_bytes(b"task :spec # \xff\n")
    sheet = detect_facts(tmp_path)
    assert "make test" in sheet.commands["test"]
    assert "npm run lint" in sheet.commands["lint"]
    assert "rake spec" in sheet.commands["test"]


def test_deep_yaml_json_and_toml_become_notes(tmp_path: Path) -> None:
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "deep.yml").write_text("[" * 5_000 + "]" * 5_000, encoding="utf-8")
    (tmp_path / "Taskfile.yml").write_text("a: " + "{b: " * 5_000 + "}" * 5_000)
    (tmp_path / "package.json").write_text("[" * 5_000 + "]" * 5_000, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text("a = " + "[" * 5_000 + "]" * 5_000)
    sheet = detect_facts(tmp_path)
    assert sheet.ci_files == [".github/workflows/deep.yml"]
    text = sheet.to_markdown()
    assert "`.github/workflows/deep.yml` is not valid YAML" in text
    assert "`package.json` could not be parsed" in text


def test_an_alias_bomb_and_a_self_referencing_node(tmp_path: Path) -> None:
    levels = ["a0: &a0 [run, run, run, run, run, run, run, run, run]"]
    for n in range(1, 9):
        prev = f"*a{n - 1}"
        levels.append(f"a{n}: &a{n} [{', '.join([prev] * 9)}]")
    bomb = "\n".join(levels) + "\nrepos:\n  - hooks: *a8\n"
    (tmp_path / ".pre-commit-config.yaml").write_text(bomb, encoding="utf-8")
    (tmp_path / ".gitlab-ci.yml").write_text(
        "loop: &loop\n  script: [pytest]\n  again: *loop\n", encoding="utf-8"
    )
    sheet = detect_facts(tmp_path)  # 9**9 nodes when expanded: visited once each
    assert sheet.commands["lint"] == ["pre-commit run --all-files"]
    assert sheet.commands["test"] == ["pytest"]


def test_task_files_and_scripts_leading_out_of_the_project_are_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "scripts").mkdir(parents=True)
    (outside / "scripts" / "test").write_text("#!/bin/sh\n", encoding="utf-8")
    (outside / "justfile").write_text("test-secret:\n  true\n", encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    (project / "scripts").symlink_to(outside / "scripts")
    (project / "justfile").symlink_to(outside / "justfile")
    (project / "Taskfile.yml").symlink_to("/dev/zero")
    sheet = detect_facts(project)
    assert sheet.offered() == set()


def test_a_gitignore_line_git_skips_does_not_stop_the_language_count(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("!\nbuild/\n\\\n", encoding="utf-8")
    (tmp_path / "a.py").write_text("", encoding="utf-8")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "b.py").write_text("", encoding="utf-8")
    assert detect_facts(tmp_path).languages == [("Python", 1)]
