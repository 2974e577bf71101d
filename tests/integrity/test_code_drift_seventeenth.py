"""Forms met on drift-17's repositories (memories copied in from an earlier project), each
checked on a real git repository: a tree that details a folder another tree of the memory
draws among the project's names is no sketch of code to be written; a file drawn right
under the project's own name that git never knew is missing at the root; a catch-all
route's ``$.ts``, a tool's configuration file written with its dot alone (``.prettierrc``),
Cursor's ``.mdc`` rules and TypeScript's ``.tsbuildinfo`` are files; a path with no
extension below a folder the memory claims and git never knew is a claim; a file a
sentence says "would be present" and a path glued to a Japanese particle are not."""

from __future__ import annotations

from pathlib import Path

from test_code_drift import by_mention, commit, findings, git, memory, repo, write

from serena_memory.integrity.code_drift.checker import CodeChecker
from serena_memory.integrity.code_drift.code_report import MISSING, MOVED
from serena_memory.integrity.code_drift.mentions import extract

__all__ = ["repo"]  # the fixture, used by name

_TWO_TREES = (
    "## Root Directory\n```\nyoga-app/\n├── convex/              # Backend code (Convex)\n"
    "├── src/                  # Frontend source code\n└── README.md\n```\n\n"
    "## Convex Directory (`convex/`)\n```\nconvex/\n├── _generated/          # types\n"
    "├── auth.ts              # Authentication setup\n└── schema.ts            # tables\n```\n\n"
    "### Key Files\n- **schema.ts**: Defines database tables\n"
)


def _targets(root: Path) -> dict[tuple[int, str], tuple[str, str]]:
    """(line, mention) -> (status, the path it was read as) of every path not present."""
    texts = {p.stem: p.read_text("utf-8") for p in (root / ".serena/memories").glob("*.md")}
    when = float(git(root, "log", "-1", "--format=%ct").strip())
    report = CodeChecker(root, changed_commits=0).check(
        texts, dict.fromkeys(texts, when), symbols=False
    )
    return {
        (f.line, f.mention): (f.status, f.target)
        for f in report.findings
        if f.status in (MISSING, MOVED)
    }


def test_a_tree_detailing_a_folder_another_tree_draws_is_no_sketch(repo: Path) -> None:
    write(repo, "src/db/schema.ts", "export const tables = {}\n")
    write(repo, "src/lib/auth.ts", "export const auth = {}\n")
    memory(repo, "codebase_structure", _TWO_TREES)
    commit(repo)
    assert _targets(repo) == {
        (4, "convex/"): ("missing", "convex/"),
        (9, "convex/"): ("missing", "convex/"),
        (12, "_generated/"): ("missing", "convex/_generated/"),
        (13, "auth.ts"): ("missing", "convex/auth.ts"),  # not the `src/lib/auth.ts` there
        (14, "schema.ts"): ("missing", "convex/schema.ts"),
    }  # the bare `schema.ts` of the list is not the drawn one: still `src/db/schema.ts`


def test_a_tree_drawn_alone_under_a_folder_git_never_knew_is_still_a_sketch(repo: Path) -> None:
    sketch = _TWO_TREES.split("## Convex", 1)[1].split("###", 1)[0]
    memory(repo, "plan", sketch.replace("convex/", "runtime/"))
    commit(repo)
    assert findings(repo) == []


def test_a_file_right_under_the_projects_own_name_git_never_knew_is_missing(repo: Path) -> None:
    write(repo, ".gitignore", ".env.*\n")
    memory(
        repo,
        "layout",
        "```\nyoga-app/\n├── .venv/               # tools'\n├── src/\n├── index.html\n"
        "├── login.py             # the one in src/auth/\n├── .env.local\n"
        "├── Navigation           # no file's name\n├── .prettierrc\n└── README.md\n```\n",
    )
    commit(repo)
    assert _targets(repo) == {
        (5, "index.html"): ("missing", "index.html"),
        (9, ".prettierrc"): ("missing", ".prettierrc"),
    }


def test_a_catch_all_routes_file_is_a_path(repo: Path) -> None:
    memory(repo, "routes", "- `api/auth/$.ts`: /api/auth/* (catch-all)\n- `$HOME/x.py`\n")
    commit(repo)
    assert [(f["mention"], f["status"]) for f in findings(repo)] == [("api/auth/$.ts", "missing")]
    assert [m.target for m in extract("`a$.ts` `${name}.ts` `$name/x.ts`")] == []


def test_tool_configuration_files_written_with_their_dot_alone_are_files(repo: Path) -> None:
    write(repo, ".gitignore", "dist/\n")
    memory(
        repo,
        "style",
        "### Prettier (`.prettierrc`)\n- Prettier formats according to .prettierrc\n"
        "- Git ignores what .gitignore lists; `.md` is an extension\n"
        "- EditorConfig (`.editorconfig`)\n",
    )
    commit(repo)
    told = sorted((f["line"], f["mention"], f["status"]) for f in findings(repo))
    assert told == [(1, ".prettierrc", "missing"), (2, ".prettierrc", "missing")]


def test_cursor_rules_and_typescript_build_info_are_files(repo: Path) -> None:
    memory(
        repo,
        "setup",
        "- `.cursor/rules/convex_rules.mdc`: Convex patterns\n"
        "- TypeScript build info: `tsconfig.tsbuildinfo`\n",
    )
    commit(repo)
    told = {f["mention"]: f["status"] for f in findings(repo)}
    assert told == {".cursor/rules/convex_rules.mdc": "missing", "tsconfig.tsbuildinfo": "missing"}


def test_a_path_with_no_extension_below_a_folder_git_never_knew_is_a_claim(repo: Path) -> None:
    write(repo, "src/engine/assistant.ts", "export {}\n")
    memory(
        repo,
        "convex",
        "1. Create/modify file in `convex/`\n2. Types auto-generate in `convex/_generated/api`\n"
        "- Parsing saves (`engine/saveParser`) in `engine/`\n- Branch `feature/x-y` merged\n",
    )
    commit(repo)
    told = {f["mention"]: f["status"] for f in findings(repo)}
    assert told == {"convex/": "missing", "convex/_generated/api": "missing"}


def test_a_file_a_sentence_says_would_be_present_is_no_claim(repo: Path) -> None:
    line = "The project uses npm (package-lock.json would be present) or pnpm (pnpm-lock.yaml).\n"
    assert [m.text for m in extract(line)] == ["pnpm-lock.yaml"]
    memory(repo, "commands", line)
    write(repo, "pnpm-lock.yaml", "lockfileVersion: 9\n")
    commit(repo)
    git(repo, "rm", "-q", "pnpm-lock.yaml")
    commit(repo, "no lock file")
    assert [f["mention"] for f in findings(repo)] == ["pnpm-lock.yaml"]


def test_a_path_glued_to_a_japanese_particle_is_told_only_when_git_knew_it(repo: Path) -> None:
    write(repo, ".github/workflows/ci.yml", "on: push\n")
    memory(
        repo,
        "session",
        "1. `706cdb5`: chore: CI/CDワークフローをci.ymlに統一\n2. 参照: docs/KB運用ガイド.md\n",
    )
    commit(repo)
    assert by_mention(findings(repo)).keys() == {"docs/KB運用ガイド.md"}
