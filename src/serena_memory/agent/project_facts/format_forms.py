"""A formatter the project only checks (CI's ``cargo fmt --check``, a lint task's ``black
--check --diff src``) is one a contributor runs to rewrite the files before pushing: its
writing form is offered next to the check, with the same arguments. A project with no
formatter at all formats with its linter: the linter's fixing form (``eslint . --fix``,
``bundle exec rubocop -a``, ``npm run lint -- --fix``) is its format command."""

from __future__ import annotations

import re

from serena_memory.agent.project_facts.commands import canonical, classify_command, unwrap
from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.node import package_data
from serena_memory.agent.project_facts.sheet import FactSheet, plain_words
from serena_memory.agent.project_facts.workspace_scripts import SEPARATOR

SOURCE = "the format check"
FIX_SOURCE = "the linter's fixing form"
# linters that rewrite what they can fix, and the option that makes them
_FIXING = {"eslint": "--fix", "xo": "--fix", "standard": "--fix", "stylelint": "--fix",
           "rubocop": "-a"}  # fmt: skip
# a package manager running a script: `npm run lint`, `pnpm lint`, `yarn run lint:js`
_SCRIPT_RUN = re.compile(r"^(npm|pnpm|yarn|bun)(?: run)? ([\w:.-]+)$")
# options that make a formatter check instead of write (gofmt's `-l` lists: not one)
_CHECK_OPTIONS = frozenset({"--check", "--diff", "--check-only"})


def writing_form(command: str) -> str | None:
    """``cargo fmt --all -- --check`` -> ``cargo fmt --all``; None when it writes already."""
    words = command.split()
    if not _CHECK_OPTIONS.intersection(words):
        return None
    kept = [w for w in words if w not in _CHECK_OPTIONS]
    if kept[-1:] == ["--"]:
        kept.pop()
    return " ".join(kept)


def offer_writing_forms(sheet: FactSheet) -> None:
    for command in list(sheet.commands.get("format", [])):
        written = writing_form(command)
        if written is None or classify_command(written) != "format":
            continue
        tool = plain_words(canonical(written))[:2]
        writes = (
            writing_form(known) is None and plain_words(canonical(known))[:2] == tool
            for known in sheet.commands["format"]
        )
        if not any(writes):
            sheet.add("format", written, SOURCE)


def fixing_form(command: str) -> str | None:
    """``npx eslint .`` -> ``npx eslint . --fix``; None when ``command`` is not a linter
    that fixes, or fixes already."""
    words = command.split()
    tool = unwrap(words)[:1]  # (behind npx, bundle exec, pnpm exec...)
    option = _FIXING.get(tool[0].rsplit("/", 1)[-1]) if tool else None
    if option is None or "--" in words or any(w.startswith(("--fix", "-a", "-A")) for w in words):
        return None
    return f"{command} {option}"


def offer_fixing_forms(project: Project) -> None:
    """With no format command found, the first lint command whose linter fixes, in its
    fixing form: a script that is that linter alone is given the option through the
    package manager (``npm run lint -- --fix``). A lint command that fixes already
    (``npm run lint:fix``) leaves nothing to add."""
    sheet = project.sheet
    if sheet.commands.get("format") or any("fix" in c for c in sheet.commands.get("lint", [])):
        return
    scripts = (package_data(project) or {}).get("scripts")
    for command in sheet.commands.get("lint", []):
        fixed = fixing_form(command) or _script_fixing_form(command, scripts)
        if fixed is not None and classify_command(fixed) in ("format", "lint", None):
            sheet.add("format", fixed, FIX_SOURCE)
            return


def _script_fixing_form(command: str, scripts: object) -> str | None:
    """``npm run lint -- --fix`` where the ``lint`` script is a fixing linter alone."""
    run = _SCRIPT_RUN.match(command)
    if run is None or not isinstance(scripts, dict):
        return None
    body = scripts.get(run.group(2))
    if not isinstance(body, str) or len(SEPARATOR.split(body)) != 1:
        return None
    if not (fixing_form(body) or "").endswith("--fix"):
        return None
    return f"{command} -- --fix" if run.group(1) == "npm" else f"{command} --fix"
