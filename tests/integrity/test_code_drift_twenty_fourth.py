"""Forms met on drift-24's repositories (a Next.js app, a React and Express app, a Spring
Boot and React project), each checked on a real git repository: a heading about products
(`React/Next.js`) names no path; names shown in parentheses after a case style with
words between ("kebab-case for files (`goal-card.tsx`)") are examples; a line that
writes a file's name both bare and under a folder names two files, and the bare one's
name beside the other's move is no new place told."""

from __future__ import annotations

from pathlib import Path

from test_code_drift import commit, git, memory, repo, write
from test_code_drift_twentieth import _told

__all__ = ["repo"]  # the fixture, used by name


def test_products_in_a_heading_are_no_path(repo: Path) -> None:
    write(repo, "app/page.tsx", "export default function Page() {}\n")
    write(repo, "lib/db.ts", "export const db = 1\n")
    memory(
        repo,
        "conventions",
        "## React/Next.js Patterns\n- Server Components by default, as in `app/page.tsx`.\n"
        "- The database client is `lib/db.ts`.\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "lib/db.ts")
    commit(repo, "no db")
    assert _told(repo) == {(3, "lib/db.ts"): "missing"}


def test_names_after_a_case_style_and_words_are_examples(repo: Path) -> None:
    write(repo, "src/components/GoalCard.tsx", "export const GoalCard = 1\n")
    write(repo, "src/api.ts", "export const api = 1\n")
    memory(
        repo,
        "naming",
        "- **Files**: kebab-case for files (`goal-card.tsx`, `use-auth.ts`)\n"
        "- The client: `src/api.ts`\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "src/api.ts")
    commit(repo, "no client")
    assert _told(repo) == {(2, "src/api.ts"): "missing"}


def test_a_line_naming_a_file_bare_and_under_a_folder_names_two_files(repo: Path) -> None:
    write(repo, "compose.yaml", "services: {}\n")
    write(repo, "backend-old/compose.yaml", "services:\n  db:\n    image: postgres\n" * 5)
    memory(
        repo,
        "tech_stack",
        "Compose files: root `compose.yaml`; backend-local `backend-old/compose.yaml`.\n",
    )
    commit(repo)
    (repo / "backend").mkdir()
    git(repo, "mv", "backend-old/compose.yaml", "backend/compose.yaml")
    commit(repo, "backend moved")
    # the root's file is still there; the backend's moved, and the line says nothing of it
    assert _told(repo) == {(1, "backend-old/compose.yaml"): "moved"}
