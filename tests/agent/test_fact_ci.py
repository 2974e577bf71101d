"""The steps of CI on the fact sheet: a contributor's commands kept, release, publish,
deploy, security scans and plumbing left out."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from serena_memory.agent.project_facts import detect_facts
from serena_memory.agent.project_facts.commands import canonical, classify_command
from serena_memory.agent.project_facts.names import classify_name


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("pytest -q", "test"),
        ("uv run --locked --group dev tox run -e typing", "typecheck"),
        ("uv run --only-group tox tox run -f lint", "lint"),
        ("tox", "test"),
        ("python -m nox -s lint", "lint"),
        ("TERM=unknown pytest tests -v", "test"),
        ("npm ci", "setup"),
        ("pip install -e .[test]", "setup"),
        ("python -m pip install -r requirements-dev.txt", "setup"),
        ("pnpm run lint", "lint"),
        ("pnpm format:check", "format"),
        ("make test", "test"),
        ("./gradlew spotlessCheck", "lint"),
        ("cargo fmt --all -- --check", "format"),
        ("cargo clippy --all-targets -- -D warnings", "lint"),
        ("go test -race ./...", "test"),
        ("golangci-lint run", "lint"),
        ("bundle exec rake", "test"),  # the default task: Ruby's is the tests
        ("bundle exec rubocop", "lint"),
        ("scripts/check", "lint"),
        ("uv run bash scripts/test.sh", "test"),
        ("bash -c 'make test'", None),
        ("mypy src", "typecheck"),
        ("uv run pre-commit run --all-files", "lint"),
        # never a contributor's everyday command
        ("git checkout HEAD^2", None),
        ("twine upload dist/*", None),
        ("scripts/publish", None),
        ("gh release create v1 --draft", None),
        ("npm run release", None),
        ("npm publish --provenance", None),
        ("uv publish", None),
        ("cargo publish", None),
        ("make release", None),
        ("nox -s upload-release", None),
        ("npm version minor", None),
        ("pip install twine", None),
        ("pip install nox", None),
        ("cargo audit", None),
        ("echo done", None),
        ('git config user.name "bot"', None),
        ("sudo apt-get install -y libssl-dev", None),
        ("tox -e ci-py$(echo 3.12 | tr -d .)", None),
        ("pytest --python ${{ matrix.python }}", None),
        ("cargo test $CARGO_FLAGS", None),
        ("docker build -t app .", None),
        ("codespell --skip=*.svg", "lint"),
    ],
)
def test_one_ci_line(line: str, kind: str | None) -> None:
    assert classify_command(line) == kind


@given(st.text(max_size=200))
def test_any_line_gets_a_kind_or_none_never_an_error(line: str) -> None:
    kind = classify_command(line)
    assert kind in (None, "setup", "test", "lint", "format", "typecheck", "build", "run")


@given(st.sampled_from(["release", "publish", "deploy", "bump", "upload"]), st.text(max_size=20))
def test_a_release_word_makes_any_name_never_everyday(word: str, other: str) -> None:
    assert classify_name(f"{word}-{other}") is None
    assert classify_name(f"test:{word}") is None


def test_spellings_of_one_command_are_one() -> None:
    assert canonical("pnpm run lint") == canonical("pnpm lint")
    assert canonical("npm run test") == canonical("npm test")
    assert canonical("npm run build") != canonical("npm build")
    assert canonical("uv run --locked --group dev tox run") == "tox"
    assert canonical("bash ./scripts/test.sh") == "scripts/test.sh"


def workflows(root: Path, tree: dict[str, str]) -> Path:
    for name, text in tree.items():
        path = root / ".github" / "workflows" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


CODE = """\
name: CI
on:
  push:
    branches: [main]
  pull_request:
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/cache@v4
      - run: |
          echo "start"
          npm ci
          npm run lint && npm test
          npx tsc \\
            --noEmit
      - name: Publish coverage
        run: npm run coverage
  deploy:
    runs-on: ubuntu-latest
    steps:
      - run: npm run build
  downstream:
    steps:
      - uses: actions/checkout@v4
        with:
          repository: other/project
      - run: npm run e2e
"""
RELEASE = (
    "on:\n  release:\n    types: [published]\njobs:\n  a:\n    steps:\n      - run: make test\n"
)
TAGS = "on:\n  push:\n    tags: ['v*']\njobs:\n  a:\n    steps:\n      - run: make lint\n"
CODEQL = "on: [push]\njobs:\n  a:\n    steps:\n      - run: make build\n"


def test_only_the_code_steps_of_code_workflows(tmp_path: Path) -> None:
    root = workflows(
        tmp_path,
        {"ci.yml": CODE, "release.yml": RELEASE, "tagged.yml": TAGS, "codeql.yml": CODEQL},
    )
    sheet = detect_facts(root)
    assert sheet.commands["setup"] == ["npm ci"]
    assert sheet.commands["lint"] == ["npm run lint"]
    assert sheet.commands["test"] == ["npm test"]
    assert sheet.commands["typecheck"] == ["npx tsc --noEmit"]
    # left out: a step named for publishing, a deploy job, a job testing another repository,
    # a workflow run on releases, one run on tags only, a security scan's workflow
    for never in ("coverage", "npm run build", "e2e", "make test", "make lint", "make build"):
        assert never not in sheet.to_markdown()
    assert len(sheet.ci_files) == 4  # every CI file is still named


def test_a_ci_step_the_runner_offers_already_is_not_repeated(tmp_path: Path) -> None:
    root = workflows(tmp_path, {"ci.yml": "on: [push]\njobs:\n  t:\n    steps:\n"
                                          "      - run: pnpm run lint\n"})  # fmt: skip
    (root / "package.json").write_text('{"scripts": {"lint": "eslint ."}}', encoding="utf-8")
    (root / "pnpm-lock.yaml").write_text("", encoding="utf-8")
    sheet = detect_facts(root)
    # spelt as CI types the scripts (`pnpm run lint`), once
    assert sheet.commands["lint"] == ["pnpm run lint"]
    assert sheet.sources["pnpm run lint"] == "package.json"


def test_gitlab_and_travis_scripts(tmp_path: Path) -> None:
    (tmp_path / ".gitlab-ci.yml").write_text(
        "stages: [test, deploy]\ntest:\n  before_script:\n    - pip install -e .\n"
        "  script:\n    - pytest\n    - twine upload dist/*\n",
        encoding="utf-8",
    )
    sheet = detect_facts(tmp_path)
    assert sheet.commands["setup"] == ["pip install -e ."]
    assert sheet.commands["test"] == ["pytest"]
    assert "twine" not in sheet.to_markdown()


def test_cis_installs_only_when_the_project_names_no_setup(tmp_path: Path) -> None:
    step = "      - run: uv sync --group docs\n"
    root = workflows(tmp_path, {"ci.yml": f"on: [push]\njobs:\n  t:\n    steps:\n{step}"})
    assert detect_facts(root).commands["setup"] == ["uv sync --group docs"]
    (root / "uv.lock").write_text("", encoding="utf-8")
    assert detect_facts(root).commands["setup"] == ["uv sync"]


def test_cis_form_with_more_options_of_an_offered_command_is_not_repeated(tmp_path: Path) -> None:
    step = (
        "      - run: uv run --locked --group pre-commit pre-commit run"
        " --show-diff-on-failure --all-files\n"
    )
    root = workflows(tmp_path, {"ci.yml": f"on: [push]\njobs:\n  t:\n    steps:\n{step}"})
    (root / ".pre-commit-config.yaml").write_text("repos: []\n", encoding="utf-8")
    assert detect_facts(root).commands["lint"] == ["pre-commit run --all-files"]


MATRIX_WORKFLOW = """\
on: [push, pull_request]
jobs:
  test:
    strategy:
      matrix:
        os: [ubuntu-latest, windows-latest]
        include:
          - features: minimal
          - features: full
    runs-on: ${{ matrix.os }}
    steps:
      - run: make test-${{ matrix.features }}
      - run: cargo test --target ${{ matrix.target }}
      - run: make check-${{ matrix.features }} ${{ matrix.os }}
"""


def test_a_step_naming_one_matrix_key_is_offered_once_per_value(tmp_path: Path) -> None:
    root = workflows(tmp_path, {"ci.yml": MATRIX_WORKFLOW})
    sheet = detect_facts(root)
    assert sheet.commands["test"][:2] == ["make test-minimal", "make test-full"]
    assert not any("matrix" in c or "check" in c for c in sheet.offered())


def test_a_checkers_action_is_the_check_a_person_runs(tmp_path: Path) -> None:
    workflow = """\
on: [push, pull_request]
jobs:
  typos:
    name: Spell Check with Typos
    runs-on: ubuntu-24.04
    steps:
      - uses: actions/checkout@v6
      - name: Check the spelling of the files in our repo
        uses: crate-ci/typos@v1.29.4
"""
    root = tmp_path / "p"
    (root / ".github/workflows").mkdir(parents=True)
    (root / ".github/workflows/ci.yml").write_text(workflow, encoding="utf-8")
    (root / "Cargo.toml").write_text('[package]\nname = "x"\n', encoding="utf-8")
    sheet = detect_facts(root)
    assert "typos" in sheet.commands["lint"]
    assert not any("checkout" in command for command in sheet.offered())
