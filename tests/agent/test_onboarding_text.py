"""The onboarding brief and the fact sheet, word for word: the texts an agent is given for
a few real projects (Python with uv, Poetry and setup.py, Node with pnpm and npm, a Rust,
Go and make project with CI files, an empty one) are the texts recorded in
``tests/fixtures/onboarding/texts.json``. A change to these words shows here first."""

from __future__ import annotations

import json
from pathlib import Path

from serena_memory.agent.maintenance import GLOBAL_MAINTENANCE_NAME, MAINTENANCE_NAME, SeedResult
from serena_memory.agent.onboarding import OnboardingStatus, onboarding_instructions
from serena_memory.agent.project_facts import detect_facts

RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "onboarding" / "texts.json"

CI_STEPS = "\n".join(
    f"      - run: |\n          step {n} --flag\n          # a comment\n          step {n} again"
    for n in range(12)
)
PROJECTS: dict[str, dict[str, str]] = {
    "python-uv": {
        "pyproject.toml": '[project]\nname = "x"\n[project.scripts]\nxcli = "x:main"\n'
        'xadmin = "x:admin"\n[tool.pytest.ini_options]\n[tool.ruff]\n[tool.mypy]\n'
        "[tool.black]\n"
        '[tool.taskipy.tasks]\ntest = "pytest"\nlint = "ruff"\nserve = "x"\ndocs = "mkdocs"\n'
        '[tool.hatch.envs.default.scripts]\ncov = "pytest --cov"\n'
        '[tool.hatch.envs.docs.scripts]\nbuild = "mkdocs build"\n',
        "uv.lock": "",
        "tox.ini": "[tox]\n",
        "src/x/__init__.py": "",
        "src/x/main.py": "",
        "src/x/web.js": "",
        "tests/test_x.py": "",
        "scripts/run.sh": "",
        ".github/workflows/ci.yml": "jobs:\n  test:\n    steps:\n"
        "      - uses: actions/checkout@v4\n      - run: uv sync\n"
        "      - run: |\n          uv run pytest\n          # coverage next\n"
        "          uv run ruff check .\n",
        ".gitlab-ci.yml": "test:\n  before_script:\n    - pip install .\n"
        "  script:\n    - pytest -q\n    - " + "x" * 130 + "\n",
    },
    "python-poetry": {
        "pyproject.toml": '[tool.poetry]\nname = "y"\n[tool.poetry.scripts]\nycli = "y:main"\n'
        '[tool.isort]\n[tool.poe.tasks]\ncheck = "pytest"\nfmt = "black ."\nbundle = "x"\n',
        "poetry.lock": "",
        "y/__init__.py": "",
        "y/core.pyi": "",
    },
    "python-legacy": {"setup.py": "", "requirements.txt": "", "test/test_a.py": "", "a.py": ""},
    "node-pnpm": {
        "package.json": json.dumps(
            {
                "scripts": {
                    "test": "vitest",
                    "pretest": "x",
                    "prepare": "husky",
                    "postbuild": "y",
                    "build": "tsc",
                    "lint": "eslint .",
                    "dev": "vite",
                    "start": "node .",
                    "release": "x",
                }
            }
        ),
        "pnpm-lock.yaml": "",
        "tsconfig.json": "{}",
        "src/a.ts": "",
        "src/b.tsx": "",
        "src/c.js": "",
    },
    "node-npm": {
        "package.json": json.dumps({"scripts": {"test": "jest", "start": "node ."}}),
        "index.js": "",
    },
    "polyglot": {
        "Cargo.toml": "[workspace]\nmembers = []\n[[bin]]\nname = 'z'\n",
        "go.mod": "module example.com/z\n\ngo 1.22\n",
        "Makefile": "all: build\n%.o: %.c\nbuild/x: y\nbuild:\n\tcc\ntest:\n\tgo test\n"
        "lint:\n\tvet\nVAR := 1\nrelease.tar: x\ntest:\n\tagain\n",
        "main.go": "",
        "src/main.rs": "",
        "lib.c": "",
        "lib.h": "",
        "a.rb": "",
        "b.java": "",
        "c.kt": "",
        "d.swift": "",
        "e.php": "",
        "f.lua": "",
        "g.scala": "",
        ".travis.yml": "script:\n  - make test\n",
        ".github/workflows/bad.yaml": "jobs: [unclosed\n",
        ".github/workflows/many.yml": "jobs:\n  a:\n    steps:\n" + CI_STEPS + "\n",
        ".github/workflows/notes.txt": "run: ignored\n",
    },
    "empty": {},
}
BRIEFS = {
    "fresh": (OnboardingStatus(), "Linux", True, MAINTENANCE_NAME),
    "resumed": (
        OnboardingStatus(
            present=["core", "tech_stack"],
            missing=["suggested_commands", "conventions", "task_completion"],
        ),
        "macOS",
        False,
        MAINTENANCE_NAME,
    ),
    "all-present": (
        OnboardingStatus(present=["core", "tech_stack"], missing=[]),
        "Windows",
        True,
        GLOBAL_MAINTENANCE_NAME,
    ),
}


def texts(base: Path) -> dict[str, object]:
    """Every project's fact sheet (as Markdown and as data) and the briefs built on it."""
    found: dict[str, object] = {}
    for project, tree in PROJECTS.items():
        root = base / project
        root.mkdir()
        for rel, text in tree.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        sheet = detect_facts(root)
        found[f"{project}/facts"] = sheet.to_markdown()
        found[f"{project}/data"] = sheet.to_dict()
        for brief, (status, os_name, tools, seed) in BRIEFS.items():
            found[f"{project}/{brief}"] = onboarding_instructions(
                SeedResult(seed, created=False),
                sheet.to_markdown(),
                status=status,
                os_name=os_name,
                exploration_tools=tools,
            )
    return found


def test_the_texts_are_the_recorded_ones(tmp_path: Path) -> None:
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    found = texts(tmp_path)
    assert sorted(found) == sorted(recorded)
    for key, text in found.items():
        assert text == recorded[key], key
