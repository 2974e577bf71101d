"""Whether committing the memories fails one of the project's own checks.

check-manifest compares the files under version control with the source distribution: a
committed ``.serena/memories`` is a folder the sdist leaves out, so the check fails from the
commit on (an agent met it in a later conversation and had to work out why). The sheet
says so where the project runs it and ignores nothing under ``.serena``, so that the
onboarding tells the user before the first commit.
"""

from __future__ import annotations

from serena_memory.agent.project_facts.ci import ci_paths
from serena_memory.agent.project_facts.files import Project

TOOL = "check-manifest"
# where a project runs its checks, besides CI
RUNNERS = ("tox.ini", "noxfile.py", ".pre-commit-config.yaml", ".pre-commit-config.yml",
           "Makefile", "justfile", "pyproject.toml", "setup.cfg")  # fmt: skip
# where its ignore list (or the sdist's own list of files) is written
SETTINGS = ("pyproject.toml", "setup.cfg", "tox.ini", ".check-manifest", "MANIFEST.in")


def read_manifest_check(project: Project) -> None:
    runner = next((rel for rel in (*RUNNERS, *ci_paths(project)) if _mentions(project, rel)), None)
    if runner is None:
        return
    if any(".serena" in (project.text(rel) or "") for rel in SETTINGS):
        return
    project.sheet.notes.append(
        f"`{runner}` runs {TOOL}, which fails once `.serena/memories` is committed unless "
        '`.serena/**` is in its ignore list (`[tool.check-manifest] ignore = [".serena/**"]` '
        "in `pyproject.toml`): tell the user."
    )


def _mentions(project: Project, rel: str) -> bool:
    return TOOL in (project.text(rel) or "")
