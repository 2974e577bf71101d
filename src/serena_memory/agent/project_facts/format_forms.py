"""A formatter the project only checks (CI's ``cargo fmt --check``, a lint task's ``black
--check --diff src``) is one a contributor runs to rewrite the files before pushing: its
writing form is offered next to the check, with the same arguments."""

from __future__ import annotations

from serena_memory.agent.project_facts.commands import canonical, classify_command
from serena_memory.agent.project_facts.sheet import FactSheet, plain_words

SOURCE = "the format check"
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
