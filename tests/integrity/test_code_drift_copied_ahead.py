"""Forms met on drift-15's repositories, each checked on a real git repository: a file's
code copied to its new home before the old file went (through a backup folder) to a
deletion, told moved to the copy; a function written after its file with one ``:``
(``tasks/run.py:_start()``), a claim of the file; a line's label that says what it names
is legacy or obsolete ("**Legacy**: `config_old.py`", "Test ancien (obsolète): ..."), no
claim that it stays."""

from __future__ import annotations

from pathlib import Path

from test_code_drift import by_mention, commit, findings, git, memory, repo, write

from serena_memory.integrity.code_drift.mentions import extract

__all__ = ["repo"]  # the fixture, used by name


def test_code_copied_to_a_new_home_before_its_file_went_is_told_moved(repo: Path) -> None:
    write(repo, "modules/tasks/query_cache.py", "class QueryCache:\n    pass\n" * 5)
    write(repo, "modules/tasks/runner.py", "def run():\n    return 1\n")
    write(repo, "modules/helpers.py", "def helper():\n    return 1\n")
    memory(
        repo,
        "perf",
        "- `modules/tasks/query_cache.py` caches queries\n- `modules/tasks/runner.py` runs\n"
        "- `modules/helpers.py` helps\n",
    )
    commit(repo)
    write(repo, "infrastructure/cache/query_cache.py", "class QueryCache:\n    hits = 0\n" * 5)
    write(repo, "modules/tasks/query_cache.py", "from infrastructure.cache.query_cache import *\n")
    commit(repo, "the cache copied to infrastructure/, the old module a shim")
    (repo / "_backups/tasks").mkdir(parents=True)
    git(repo, "mv", "modules/tasks/query_cache.py", "_backups/tasks/query_cache.py")
    commit(repo, "park the shim in a backup folder")
    git(repo, "rm", "-q", "-r", "_backups", "modules/tasks/runner.py", "modules/helpers.py")
    commit(repo, "drop the backups and the old modules")
    write(repo, "lib/helpers.py", "def helper():\n    return 2\n")  # made after: a newcomer
    commit(repo, "new helpers")
    found = by_mention(findings(repo))
    cache = found["modules/tasks/query_cache.py"]
    assert (cache["status"], cache["new_path"]) == ("moved", "infrastructure/cache/query_cache.py")
    assert found["modules/tasks/runner.py"]["status"] == "missing"
    assert found["modules/helpers.py"]["status"] == "missing"


def test_a_function_after_its_file_and_one_colon_claims_the_file(repo: Path) -> None:
    write(repo, "modules/tasks/filter_task.py", "def _combine():\n    pass\n")
    write(repo, "modules/kept.py", "def keep():\n    pass\n")
    memory(
        repo,
        "filters",
        "#### 1. `modules/tasks/filter_task.py:_combine()`\n\n"
        "See `modules/kept.py:Keeper.keep` and `examples/name.py:lines`.\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "modules/tasks/filter_task.py")
    commit(repo, "filters rewritten")
    found = by_mention(findings(repo))
    assert set(found) == {"modules/tasks/filter_task.py:_combine"}
    assert found["modules/tasks/filter_task.py:_combine"]["status"] == "missing"
    # a stand-in after the colon, a module's attribute and a key are no function of a file
    assert extract("`examples/name.py:lines` `app.main:app` `localhost:3000`") == []


def test_a_label_saying_legacy_or_obsolete_is_no_claim_it_stays(repo: Path) -> None:
    for name in ("app/config_old.py", "app/compat.py", "tests/test_layers.py", "app/data.py"):
        write(repo, name, "X = 1\n")
    memory(
        repo,
        "config",
        "1. **New system** (`app/settings.py`): Pydantic\n"
        "2. **Legacy system** (`app/config_old.py`): environment variables only\n"
        "- **Legacy**: `.env` files + `app/config_old.py`\n"
        "- Test ancien (obsolète): `tests/test_layers.py:218-265`\n"
        "- **Legacy support**: handled in `app/compat.py`\n"
        "- Legacy data is converted by `app/data.py`\n",
    )
    write(repo, "app/settings.py", "Y = 2\n")
    commit(repo)
    for name in ("app/config_old.py", "app/compat.py", "tests/test_layers.py", "app/data.py"):
        git(repo, "rm", "-q", name)
    commit(repo, "drop the old configuration")
    # the files the labels call legacy or obsolete went as the memory expected; the file
    # that handles legacy data, and the one that converts it, were its claims
    assert set(by_mention(findings(repo))) == {"app/compat.py", "app/data.py"}


def test_a_windows_path_in_a_command_is_read_with_slashes(repo: Path) -> None:
    write(repo, "modules/appTasks.py", "TASKS = []\n")
    write(repo, "modules/kept.py", "KEPT = 1\n")
    memory(
        repo,
        "checklist",
        "```cmd\ncd C:\\Users\\me\\GitHub\\project\ngit add modules\\appTasks.py\n"
        'git add modules\\kept.py\nprint("a\\nb.py")\n```\n',
    )
    commit(repo)
    git(repo, "rm", "-q", "modules/appTasks.py")
    commit(repo, "tasks rewritten")
    found = by_mention(findings(repo))
    # the drive's path leaves the project; an escape in a string names no file git knew
    assert set(found) == {"modules\\appTasks.py"}
    assert found["modules\\appTasks.py"]["status"] == "missing"


def test_a_path_whose_file_name_has_spaces_is_one_path(repo: Path) -> None:
    write(repo, "doc/20251121_Emergent Perceptual Haze (EPH).md", "# EPH\n")
    write(repo, "doc/Saliency Map.md", "# SPM\n")
    memory(
        repo,
        "guidelines",
        "- References: `doc/20251121_Emergent Perceptual Haze (EPH).md` and "
        "`doc/Saliency Map.md`\n- Run `src/main.py data.txt` or `cat doc/x.md`.\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "doc/20251121_Emergent Perceptual Haze (EPH).md")
    commit(repo, "notes reorganised")
    # a command's words (`src/main.py data.txt`, `cat doc/x.md`) are no one path
    assert set(by_mention(findings(repo))) == {"doc/20251121_Emergent Perceptual Haze (EPH).md"}


def test_a_function_called_from_a_module_path_names_the_module(repo: Path) -> None:
    write(repo, "app/core/logger.py", "def setup_logging():\n    pass\n")
    for name in ("a", "b", "c"):
        write(repo, f"app/core/{name}.py", f"{name.upper()} = 1\n")
    memory(repo, "style", "Logging via `app/core/logger.setup_logging()`; see `docs/README.md`.\n")
    write(repo, "docs/README.md", "# Docs\n")
    commit(repo)
    (repo / "backend").mkdir()
    git(repo, "mv", "app", "backend/app")
    commit(repo, "the backend gets its own folder")
    found = by_mention(findings(repo))["app/core/logger.setup_logging"]
    assert (found["status"], found["new_path"]) == ("moved", "backend/app/core/logger.py")
    assert extract("`docs/README.md()`") == []  # a file's extension, not a function


def test_a_call_on_a_path_git_never_knew_is_no_claim(repo: Path) -> None:
    write(repo, "src/app.py", "A = 1\n")
    memory(repo, "web", "Reload with `window/location.reload()`.\n")
    commit(repo)
    assert findings(repo) == []


def test_a_docstrings_header_names_its_file(repo: Path) -> None:
    write(repo, "viewer.py", '"""Filename: viewer.py"""\n')
    memory(
        repo,
        "style",
        '### Python files\n```python\n"""\nFilename: viewer.py\nPurpose: the viewer\n"""\n'
        "Filename: sketch.py\n```\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "viewer.py")
    commit(repo, "the viewer rewritten in Julia")
    # a header's file git never knew is a sketch's, weak as any name in a block
    assert set(by_mention(findings(repo))) == {"viewer.py"}


def test_a_recommended_layout_and_new_files_are_a_plan(repo: Path) -> None:
    write(repo, "docs/guide.md", "# Guide\n")
    memory(
        repo,
        "docs",
        "## Recommended Organization Improvements\n```\ndocs/\n  ├── active/\n"
        "  └── historical/\n```\n\n### Raster (2 nouveaux fichiers)\n"
        "- core/services/raster_service.py\n- core/ports/raster_port.py\n\n"
        "## Current files\n- `docs/guide.md`\n- `docs/typo.md`\n",
    )
    commit(repo)
    # what the plans mean to make is no drift; a file the memory says is there is
    assert set(by_mention(findings(repo))) == {"docs/typo.md"}


def test_a_path_marked_old_or_before_is_the_past_one(repo: Path) -> None:
    write(repo, "modules/tasks/task_utils.py", "X = 1\n")
    write(repo, "modules/app_tasks.py", "Y = 1\n")
    memory(
        repo,
        "refactor",
        "```python\n# OLD: modules/app_tasks.py (5678 lines)\n"
        "# NEW: modules/tasks/task_utils.py (328 lines)\n```\n"
        "**Before:** `modules/app_tasks.py` **After:** `modules/tasks/task_utils.py`\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "modules/app_tasks.py", "modules/tasks/task_utils.py")
    commit(repo, "the tasks rewritten again")
    told = {(f["mention"], f["line"]) for f in findings(repo)}
    assert told == {("modules/tasks/task_utils.py", 3), ("modules/tasks/task_utils.py", 5)}
