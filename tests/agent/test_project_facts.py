"""The fact sheet detected from a project's own files."""

from __future__ import annotations

from pathlib import Path

from serena_memory.agent.project_facts import detect_facts
from serena_memory.agent.project_facts.sheet import KIND_BUDGET, shown_size


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
    assert sheet.commands["setup"] == ["uv sync"]
    # the project's own tasks first, then the tools it configures, through its runner
    assert sheet.commands["test"] == [
        "hatch run test",
        "uv run pytest",
        "uv run pytest tests/test_x.py",
    ]
    assert sheet.commands["lint"] == ["hatch run lint", "uv run ruff check"]
    # ruff is configured and nothing formats: its formatter is the configured tool
    assert sheet.commands["format"] == ["uv run ruff format"]
    # [tool.mypy] names no files: `mypy .` would be a guess, so nothing is offered
    assert sheet.commands["typecheck"] == []
    assert "uv run xcli" in sheet.commands["run"]
    text = sheet.to_markdown()
    assert (
        "Python (3), Shell (1)" in text
        and "- Test: `hatch run test`, `uv run pytest`, `uv run pytest tests/test_x.py`." in text
    )


def test_configured_tools_without_tasks(tmp_path: Path) -> None:
    files(
        tmp_path,
        {
            "pyproject.toml": "[tool.pytest.ini_options]\n[tool.black]\n[tool.ruff]\n"
            '[tool.mypy]\nfiles = ["x"]\n',
            "x/__init__.py": "",
        },
    )
    sheet = detect_facts(tmp_path)
    assert sheet.commands["test"] == ["pytest"]
    assert sheet.commands["lint"] == ["ruff check"]
    assert sheet.commands["format"] == ["black ."]
    assert sheet.commands["typecheck"] == ["mypy"]
    assert sheet.commands["setup"] == ["pip install -e ."]


def test_node_project_uses_the_lock_files_tool(tmp_path: Path) -> None:
    files(
        tmp_path,
        {
            "package.json": '{"scripts": {"test": "vitest", "lint": "eslint .", "dev": "vite",'
            ' "build": "vite build", "pretest": "x", "typecheck": "tsc", "preview": "vite",'
            ' "release": "np", "prepublishOnly": "x", "postinstall": "y"}}',
            "pnpm-lock.yaml": "",
            "src/a.ts": "",
            "src/b.tsx": "",
            "node_modules/dep/index.js": "",
        },
    )
    sheet = detect_facts(tmp_path)
    assert sheet.languages == [("TypeScript", 2)]  # node_modules is not the project
    assert sheet.commands["setup"] == ["pnpm install"]
    assert sheet.commands["test"] == ["pnpm test"]
    assert sheet.commands["lint"] == ["pnpm lint"]
    assert sheet.commands["typecheck"] == ["pnpm typecheck"]
    assert sheet.commands["run"] == ["pnpm dev", "pnpm preview"]
    assert sheet.commands["build"] == ["pnpm build"]
    assert "release" not in sheet.to_markdown() and "prepublish" not in sheet.to_markdown()


def test_npm_shortcuts(tmp_path: Path) -> None:
    files(tmp_path, {"package.json": '{"scripts": {"test": "jest", "start": "node ."}}'})
    sheet = detect_facts(tmp_path)
    assert sheet.commands["test"] == ["npm test"] and sheet.commands["run"] == ["npm start"]


def test_makefile_cargo_and_go(tmp_path: Path) -> None:
    files(
        tmp_path,
        {
            "Makefile": ".PHONY: test\nVAR := 1\ntest:\n\tpytest\nlint: fmt\nbuild:\n"
            "%.o: %.c\nclean:\nrelease: build\ninstall:\n",
            "Cargo.toml": '[package]\nname = "x"\n[workspace]\n',
            "src/main.rs": "",
            "go.mod": "module example.com/x\n\ngo 1.22\n",
            "main.go": "",
        },
    )
    sheet = detect_facts(tmp_path)
    assert sheet.commands["test"][0] == "make test"
    assert "make lint" in sheet.commands["lint"]
    assert "make build" in sheet.commands["build"]
    # `make release` is a maintainer's; a compiled project's `make install` installs the
    # program on the system, it does not set up the project
    text = sheet.to_markdown()
    assert "make release" not in text and "make install" not in text and "make clean" not in text
    assert "cargo test --workspace" in sheet.commands["test"]
    assert "cargo run" in sheet.commands["run"]
    assert "go test ./..." in sheet.commands["test"]
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
    assert sheet.commands["setup"] == ["pip install -e ."]
    assert sheet.commands["lint"] == ["ruff check ."]
    assert sheet.commands["test"] == ["pytest -q", "make test"]
    assert all(sheet.sources[c] == "CI" for c in sheet.offered())
    assert any("broken.yaml" in n for n in sheet.notes)
    assert "`pytest -q` (CI)" in sheet.to_markdown()


def test_every_ci_file_is_named_when_the_commands_are_many(tmp_path: Path) -> None:
    steps = "".join(f"      - run: make test-{n}\n" for n in range(60))
    files(
        tmp_path,
        {
            ".github/workflows/many.yml": f"on: [push]\njobs:\n  t:\n    steps:\n{steps}",
            ".travis.yml": "script:\n  - make lint\n",
        },
    )
    sheet = detect_facts(tmp_path)
    assert sheet.ci_files == [".github/workflows/many.yml", ".travis.yml"]
    # a kind's room on the sheet is counted in characters: the first steps fill it
    shown = sum(shown_size(command) for command in sheet.commands["test"])
    assert sheet.commands["test"][:3] == ["make test-0", "make test-1", "make test-2"]
    budget = KIND_BUDGET["test"]
    assert budget - shown_size("make test-10") < shown <= budget
    assert sheet.commands["lint"] == ["make lint"]
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
