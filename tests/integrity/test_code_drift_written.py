"""`check --code` on the shapes real memories name files in, each in a real git
repository whose files move after the memory is written: folder trees (drawn in a fenced
block, or a list under a folder), a file name that git moved since, a comment or an
import in a fenced block, an alias of the build, a link beside the memory, a file git
ignores now but deleted since; and what is no claim: a library's name, an example, a
placeholder."""

from __future__ import annotations

from pathlib import Path

from test_code_drift import by_mention, commit, findings, git, memory, repo, write

from serena_memory.core.store import MemoryStore
from serena_memory.integrity.code_drift.drifted_memories import drift_summary

__all__ = ["repo"]  # the fixture, shared


def _told(root: Path) -> dict[str, tuple[str, str | None]]:
    """mention -> (status, new path) of the missing and moved paths."""
    return {
        f["mention"]: (f["status"], f.get("new_path"))
        for f in findings(root)
        if f["kind"] == "path" and f["status"] in ("missing", "moved")
    }


def test_a_name_in_a_drawn_tree_is_the_file_at_that_place(repo: Path) -> None:
    write(repo, "docs/research/00-index.md", "index\n")
    write(repo, "docs/research/01-system.md", "system\n")
    write(repo, "guides/00-index.md", "another index\n")  # same name, elsewhere
    memory(
        repo,
        "structure",
        "# Structure\n```\ndocs/\n└── research/          # design notes\n"
        "    ├── 00-index.md      # the index\n    ├── 01-system.md\n"
        "    └── 02-planned.md    # never written\n```\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "docs/research/00-index.md")
    git(repo, "mv", "docs/research/01-system.md", "guides/01-system.md")
    commit(repo, "tidy the docs")
    told = _told(repo)
    assert told["00-index.md"] == ("missing", None)
    assert told["01-system.md"] == ("moved", "guides/01-system.md")
    assert "02-planned.md" not in told  # git never knew it: a plan, not drift


def test_a_list_under_a_folder_places_its_items(repo: Path) -> None:
    write(repo, "web/index.ts", "export {}\n")
    write(repo, "lib/index.ts", "export {}\n")
    memory(repo, "layout", "# Layout\n- `web/` - the site\n  - `index.ts`: its entry\n")
    commit(repo)
    git(repo, "rm", "-q", "web/index.ts")
    write(repo, "web/main.ts", "import { render } from './render';\n\nrender(document.body);\n")
    commit(repo, "the site starts in main.ts")
    assert _told(repo)["index.ts"] == ("missing", None)


def test_a_file_name_git_moved_since_the_memory_was_written_is_moved(repo: Path) -> None:
    write(repo, "src/models/HackRFOne.ts", "export class HackRFOne {}\n")
    memory(repo, "device", "# Device\nThe timeout lives in `HackRFOne.ts`.\n")
    commit(repo)
    (repo / "src/drivers").mkdir()
    git(repo, "mv", "src/models/HackRFOne.ts", "src/drivers/HackRFOne.ts")
    commit(repo, "drivers get a folder")
    assert _told(repo)["HackRFOne.ts"] == ("moved", "src/drivers/HackRFOne.ts")


def test_comments_and_imports_in_a_fenced_block_name_files(repo: Path) -> None:
    write(repo, "webpack.config.js", "module.exports = {mode: 'production'};\n")
    write(repo, "src/components/Chart.tsx", "export default function Chart() {}\n")
    memory(
        repo,
        "build",
        "# Build\n```js\n// webpack.config.js\nnew CopyPlugin({});\n```\n"
        '```tsx\nimport Chart from "./components/Chart";\n'
        'import { useQuery } from "@tanstack/react-query";\n'
        'import Sketch from "./components/SketchOnly";\n```\n',
    )
    commit(repo)
    git(repo, "rm", "-q", "webpack.config.js")
    write(repo, "webpack.config.ts", "import type { Configuration } from 'webpack';\n")
    (repo / "src/charts").mkdir()
    git(repo, "mv", "src/components/Chart.tsx", "src/charts/Chart.tsx")
    commit(repo, "typescript config, charts folder")
    told = _told(repo)
    assert told["webpack.config.js"] == ("moved", "webpack.config.ts")
    assert told["./components/Chart"] == ("moved", "src/charts/Chart.tsx")
    assert by_mention(findings(repo))["./components/Chart"]["new_mention"] == "./charts/Chart"
    assert "@tanstack/react-query" not in told and "./components/SketchOnly" not in told


def test_an_alias_of_the_build_is_checked_as_the_path_it_stands_for(repo: Path) -> None:
    write(
        repo,
        "tsconfig.json",
        '{\n  // the app\n  "compilerOptions": {\n    "baseUrl": ".",\n'
        '    "paths": {"@/*": ["./client/src/*"]},\n  },\n}\n',
    )
    write(repo, "client/src/pages/portfolio.tsx", "export default 1\n")
    write(repo, "client/src/pages/home.tsx", "export default 2\n")
    memory(
        repo,
        "routes",
        "# Routes\nPages load lazily from `@/pages/portfolio` and `@/pages/home`.\n"
        '```ts\nconst S = lazy(() => import("@/pages/solutions"));\n```\n',
    )
    commit(repo)
    git(repo, "rm", "-q", "client/src/pages/portfolio.tsx")
    commit(repo, "no portfolio")
    told = _told(repo)
    assert told["@/pages/portfolio"] == ("missing", None)
    assert "@/pages/home" not in told
    assert "@/pages/solutions" not in told  # never a file: a sketch


def test_a_link_is_read_from_the_memory_folder(repo: Path) -> None:
    write(repo, "ACCESSIBILITY.md", "# the project's guide\n")
    memory(repo, "ACCESSIBILITY", "# Accessibility memory\n")
    memory(repo, "summary", "# Summary\nFull notes: [ACCESSIBILITY](./ACCESSIBILITY.md)\n")
    commit(repo)
    git(repo, "rm", "-q", ".serena/memories/ACCESSIBILITY.md")
    commit(repo, "merged into the summary")
    found = by_mention(findings(repo))
    assert found["./ACCESSIBILITY.md"]["status"] == "missing"
    assert found["./ACCESSIBILITY.md"]["memory"] == "summary"


def test_a_file_deleted_since_and_ignored_now_is_missing(repo: Path) -> None:
    write(repo, "change_log.md", "- first\n")
    write(repo, ".gitignore", "build/\n")
    memory(
        repo,
        "workflow",
        "# Workflow\nCheck `change_log.md` first. Outputs go to `build/app.js`.\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "change_log.md")
    write(repo, ".gitignore", "build/\nchange_log.md\n")
    commit(repo, "the change log is kept locally")
    told = _told(repo)
    assert told["change_log.md"] == ("missing", None)
    assert "build/app.js" not in told  # ignored and never tracked: a build output
    write(repo, "change_log.md", "- kept here\n")  # on this machine it is there
    assert "change_log.md" not in _told(repo)


def test_library_names_examples_and_placeholders_are_no_drift(repo: Path) -> None:
    write(repo, "src/queryClient.ts", "export const client = 1\n")
    memory(
        repo,
        "conventions",
        "# Conventions\n- **Passport.js** authentication with a local strategy\n"
        "- **Components**: PascalCase (e.g., `UserProfile.tsx`)\n"
        "- **Utilities**: camelCase (e.g., `queryClient.ts`)\n"
        "- Copy a template to `PRPs/PRP-XXX-feature-name.md`\n"
        "- Served by `Express.js`; a new page goes in `src/pages/my-page.tsx`\n"
        "- Memories by topic (e.g., `features/`, `bugs/`, `onboarding/`)\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "src/queryClient.ts")
    commit(repo, "no query client")
    told = _told(repo)
    assert set(told) == {"queryClient.ts"}  # an example that was a real file still counts


def test_the_start_counts_the_memories_the_check_tells(repo: Path, store: MemoryStore) -> None:
    write(repo, "docs/research/00-index.md", "index\n")
    memory(repo, "structure", "# Structure\n```\ndocs/\n└── research/\n    └── 00-index.md\n```\n")
    memory(
        repo,
        "conventions",
        "# Conventions\n- **Passport.js** for logins\n- Components (e.g., `UserProfile.tsx`)\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "docs/research/00-index.md")
    commit(repo, "no index")
    summary = drift_summary(store)
    assert summary.startswith("Code changed under 1 memory: "), summary
    assert "'structure'" in summary and "'conventions'" not in summary
