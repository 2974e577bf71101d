"""The fact sheet detected from a project's own files."""

from __future__ import annotations

from pathlib import Path

from serena_memory.agent.project_facts import detect_facts


def files(root: Path, tree: dict[str, str]) -> Path:
    for rel, text in tree.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_an_empty_project(tmp_path: Path) -> None:
    sheet = detect_facts(tmp_path)
    assert sheet.is_empty()
    assert "looks empty" in sheet.to_markdown()


def test_python_project(tmp_path: Path) -> None:
    files(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "x"\n[project.scripts]\nxcli = "x:main"\n'
            "[tool.pytest.ini_options]\n[tool.ruff]\n[tool.mypy]\n"
            '[tool.hatch.envs.default.scripts]\ntest = "pytest"\nlint = "ruff check"\n',
            "uv.lock": "",
            "src/x/__init__.py": "",
            "src/x/main.py": "",
            "tests/test_x.py": "",
            "scripts/run.sh": "",
            "README.md": "",
        },
    )
    sheet = detect_facts(tmp_path)
    assert sheet.languages == [("Python", 3), ("Shell", 1)]
    assert ("pyproject.toml", "Python project metadata") in sheet.build_files
    assert sheet.commands["test"][:1] == ["uv run pytest"]
    assert "uv run ruff check ." in sheet.commands["lint"]
    assert "uv run mypy ." in sheet.commands["lint"]
    assert "uv run xcli" in sheet.commands["run"]
    assert "hatch run test" in sheet.commands["test"]
    assert "hatch run lint" in sheet.commands["lint"]
    text = sheet.to_markdown()
    assert "Python (3), Shell (1)" in text and "`uv run pytest`" in text


def test_node_project_uses_the_lock_files_tool(tmp_path: Path) -> None:
    files(
        tmp_path,
        {
            "package.json": '{"scripts": {"test": "vitest", "lint": "eslint .", "dev": "vite",'
            ' "build": "vite build", "pretest": "x", "typecheck": "tsc"}}',
            "pnpm-lock.yaml": "",
            "src/a.ts": "",
            "src/b.tsx": "",
            "node_modules/dep/index.js": "",
        },
    )
    sheet = detect_facts(tmp_path)
    assert sheet.languages == [("TypeScript", 2)]  # node_modules is not the project
    assert sheet.commands["test"] == ["pnpm test"]
    assert sheet.commands["lint"] == ["pnpm lint", "pnpm typecheck"]
    assert sheet.commands["run"] == ["pnpm dev"]
    assert sheet.commands["build"] == ["pnpm build"]


def test_npm_shortcuts(tmp_path: Path) -> None:
    files(tmp_path, {"package.json": '{"scripts": {"test": "jest", "start": "node ."}}'})
    sheet = detect_facts(tmp_path)
    assert sheet.commands["test"] == ["npm test"] and sheet.commands["run"] == ["npm start"]


def test_makefile_cargo_and_go(tmp_path: Path) -> None:
    files(
        tmp_path,
        {
            "Makefile": ".PHONY: test\nVAR := 1\ntest:\n\tpytest\nlint: fmt\nbuild:\n"
            "%.o: %.c\nclean:\n",
            "Cargo.toml": '[package]\nname = "x"\n[workspace]\n',
            "src/main.rs": "",
            "go.mod": "module example.com/x\n\ngo 1.22\n",
            "main.go": "",
        },
    )
    sheet = detect_facts(tmp_path)
    assert "make test" in sheet.commands["test"]
    assert "make lint" in sheet.commands["lint"]
    assert "make build" in sheet.commands["build"]
    assert "make clean" in sheet.commands["other"]
    assert "cargo test" in sheet.commands["test"] and "cargo run" in sheet.commands["run"]
    assert "go test ./..." in sheet.commands["test"]
    text = sheet.to_markdown()
    assert "example.com/x" in text and "Go 1.22" in text and "workspace" in text


def test_ci_workflows(tmp_path: Path) -> None:
    files(
        tmp_path,
        {
            ".github/workflows/ci.yml": "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
            "    steps:\n      - uses: actions/checkout@v4\n      - run: pip install -e .\n"
            "      - run: |\n          ruff check .\n          pytest -q\n",
            ".github/workflows/broken.yaml": "jobs: [\n",
            ".gitlab-ci.yml": "test:\n  script:\n    - make test\n",
        },
    )
    sheet = detect_facts(tmp_path)
    assert sheet.ci_files == [
        ".github/workflows/broken.yaml",
        ".github/workflows/ci.yml",
        ".gitlab-ci.yml",
    ]
    assert sheet.ci_commands == ["pip install -e .", "ruff check .", "pytest -q", "make test"]
    assert any("broken.yaml" in n for n in sheet.notes)
    assert "`pytest -q`" in sheet.to_markdown()


def test_every_ci_file_is_named_when_the_commands_are_many(tmp_path: Path) -> None:
    steps = "".join(f"      - run: step {n}\n" for n in range(20))
    files(
        tmp_path,
        {
            ".github/workflows/many.yml": f"jobs:\n  t:\n    steps:\n{steps}",
            ".travis.yml": "script:\n  - make test\n",
        },
    )
    sheet = detect_facts(tmp_path)
    assert sheet.ci_files == [".github/workflows/many.yml", ".travis.yml"]
    assert len(sheet.ci_commands) == 12 and "make test" not in sheet.ci_commands
    assert "`.travis.yml`" in sheet.to_markdown()


def test_broken_files_become_notes_not_errors(tmp_path: Path) -> None:
    files(tmp_path, {"pyproject.toml": "[project\n", "package.json": "{nope"})
    sheet = detect_facts(tmp_path)
    assert len(sheet.notes) == 2
    assert "pyproject.toml" in sheet.to_markdown()


def test_gitignored_files_and_the_file_budget(tmp_path: Path) -> None:
    files(
        tmp_path,
        {".gitignore": "generated/\n", "generated/a.py": "", **{f"m{i}.py": "" for i in range(9)}},
    )
    sheet = detect_facts(tmp_path)
    assert sheet.languages == [("Python", 9)] and not sheet.truncated
    small = detect_facts(tmp_path, max_files=4)
    assert small.truncated and small.languages[0][1] <= 4
    assert "partial" in small.to_markdown()
