"""A short fact sheet detected from the project itself, handed to the agent at onboarding.

What a newcomer would look up first (languages, build and package files, the commands to
set up, test, lint, format, type check, build and run) is cheap to find mechanically and
expensive for an agent to find by reading, so onboarding starts from it. The commands are
the project's own: its task runners (justfile, Makefile and its parts' Makefiles, Taskfile,
package.json scripts, tox, nox, hatch, poe, invoke's ``tasks.py``, pre-commit, Rakefile,
mage, cargo-xtask, Composer, ``scripts/``), then
the steps of its CI that a contributor would run too, then the usual commands of its build
tool (cargo, go, Gradle, Maven, Autotools, CMake, mdBook), and only for a kind still empty,
the command of a tool it configures; last, how to run one test file with the runner found. Release,
publish, deploy and CI plumbing are never offered. Detection reads files, never runs them.
"""

from __future__ import annotations

from pathlib import Path

from serena_memory.agent.project_facts.bench_scripts import read_bench_scripts
from serena_memory.agent.project_facts.cargo import crate_name, read_cargo
from serena_memory.agent.project_facts.ci import read_ci
from serena_memory.agent.project_facts.composer import read_composer, read_php_tools
from serena_memory.agent.project_facts.docs import read_docs
from serena_memory.agent.project_facts.environment_tools import respeller
from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.format_forms import offer_fixing_forms, offer_writing_forms
from serena_memory.agent.project_facts.git_hooks import read_git_hooks
from serena_memory.agent.project_facts.golang import module_path, read_go
from serena_memory.agent.project_facts.hook_tools import read_configured_checkers, read_hook_tools
from serena_memory.agent.project_facts.hosts import read_hosts
from serena_memory.agent.project_facts.invoke_tasks import read_invoke
from serena_memory.agent.project_facts.justfile import read_justfile
from serena_memory.agent.project_facts.jvm import read_gradle, read_maven
from serena_memory.agent.project_facts.languages import (
    BUILD_FILES,
    LANGUAGES,
    MAX_FILES_SCANNED,
    count_languages,
)
from serena_memory.agent.project_facts.mage import read_mage
from serena_memory.agent.project_facts.makefile import read_makefile, read_sphinx_makefile
from serena_memory.agent.project_facts.manifest_check import read_manifest_check
from serena_memory.agent.project_facts.mdbook import read_mdbook
from serena_memory.agent.project_facts.member_makefiles import read_member_makefiles
from serena_memory.agent.project_facts.mise import read_mise
from serena_memory.agent.project_facts.mix import read_mix, read_mix_aliases
from serena_memory.agent.project_facts.native_build import read_native_build
from serena_memory.agent.project_facts.node import read_member_scripts, read_package_json
from serena_memory.agent.project_facts.nox import read_nox
from serena_memory.agent.project_facts.pre_commit import offer_hook_install, read_pre_commit
from serena_memory.agent.project_facts.python_project import (
    PYPROJECT,
    read_python_tasks,
    read_python_tools,
)
from serena_memory.agent.project_facts.rakefile import read_ruby
from serena_memory.agent.project_facts.readthedocs import read_readthedocs
from serena_memory.agent.project_facts.scripts_folder import read_scripts
from serena_memory.agent.project_facts.sheet import FactSheet
from serena_memory.agent.project_facts.shelljs_make import read_shelljs_make
from serena_memory.agent.project_facts.single_test import read_single_test
from serena_memory.agent.project_facts.taskfile import read_taskfile
from serena_memory.agent.project_facts.tox import read_tox
from serena_memory.agent.project_facts.xtask import read_xtask

__all__ = ["LANGUAGES", "FactSheet", "detect_facts"]

# files whose presence says `install` sets up the project (elsewhere, a Makefile's or
# Taskfile's `install` puts the built program on the system)
_INTERPRETED = (PYPROJECT, "setup.py", "package.json", "Gemfile", "composer.json")


def detect_facts(root: str | Path, max_files: int = MAX_FILES_SCANNED) -> FactSheet:
    """Build the fact sheet of the project at ``root``; unreadable files are skipped."""
    root = Path(root)
    sheet = FactSheet()
    count_languages(root, sheet, max_files)
    project = Project(root, sheet)
    for name, kind in BUILD_FILES:
        if project.is_file(name):
            sheet.build_files.append((name, kind))
    installs = any(project.is_file(name) for name in _INTERPRETED)
    pyproject = project.toml(PYPROJECT)
    sheet.own_packages = frozenset(n for n in (crate_name(project), module_path(project)) if n)
    sheet.respell = respeller(project, pyproject)
    # what the contributor docs tell a person to type, then the project's own tasks
    read_hosts(project)
    read_docs(project)
    read_justfile(project)
    read_makefile(project, installs)
    read_shelljs_make(project)
    read_taskfile(project, installs)
    read_mage(project, installs)
    read_scripts(project, installs)
    read_package_json(project)
    read_git_hooks(project)
    read_composer(project)
    read_python_tasks(project, pyproject)
    read_invoke(project)
    read_tox(project, pyproject)
    read_nox(project)
    read_pre_commit(project)
    read_ruby(project)
    read_mix_aliases(project)
    read_mise(project)
    read_xtask(project)
    # then what CI runs, then the build tools' usual commands, then configured tools
    read_ci(project)
    read_member_scripts(project)
    read_member_makefiles(project)
    read_cargo(project)
    read_go(project)
    read_mix(project)
    read_gradle(project)
    read_maven(project)
    read_native_build(project)
    read_hook_tools(project)
    read_configured_checkers(project)
    read_php_tools(project)
    read_python_tools(project, pyproject)
    read_sphinx_makefile(project)
    read_readthedocs(project)
    read_mdbook(project)
    offer_hook_install(project)
    offer_writing_forms(sheet)
    offer_fixing_forms(project)
    read_manifest_check(project)
    read_bench_scripts(project)
    # and last, how to run one test in the runner found
    read_single_test(project)
    return sheet
