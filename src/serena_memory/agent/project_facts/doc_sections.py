"""The sections of a document worth reading for commands: of the README, the ones on
working on the project; of any guide, none written for the maintainers' releases.

A README's title names the project, not a task (PyPA's ``build`` is titled ``# build``), so
it never makes the whole README a section on building. A guide's section on publishing a
release shows the maintainers' steps (``cargo install cargo-edit`` to bump versions): none
is a contributor's everyday command.
"""

from __future__ import annotations

import re

from serena_memory.agent.project_facts.names import words

_HEADING_MD = re.compile(r"^#{1,6}\s+(.*)")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*(\S*)")
_WORK_HEADINGS = frozenset({"build", "building", "test", "tests", "testing", "develop",
                            "development", "developing", "contributing", "contribute",
                            "contribution", "contributions",
                            "hacking", "running", "setup", "lint", "linting"})  # fmt: skip

# a section for maintainers only: how a release is cut, published or deployed
# an editable install of the working tree (`python3 -m pip install -e .`, `pip install -e
# ".[tests]"`), a line of its own: users install the published package, only a contributor
# installs the clone so that changes to it take effect
_EDITABLE_INSTALL = re.compile(
    r"""^\s*(?:\$\s+)?((?:python3?\s+-m\s+)?pip3?\s+install\s+(?:(?:-U|--upgrade)\s+)?"""
    r"""(?:-e|--editable)\s+(["']?)\.(?:\[[\w,.-]+\])?\2)\s*$"""
)
_MAINTAINER_HEADINGS = frozenset({"release", "releases", "releasing", "publish", "publishing",
                                  "deploy", "deploying", "deployment", "deployments"})  # fmt: skip


def without_maintainer_sections(text: str) -> str:
    """The document without the sections (and their subsections) whose heading says
    releasing, publishing or deploying, and nothing of everyone's work."""
    kept: list[str] = []
    skip_level = 0  # while skipping, the level of the heading that started it
    underlines: list[str] = []
    lines = text.splitlines()
    fence = ""  # the fence a code block was opened with, while in one
    for index, line in enumerate(lines):
        fence = in_fence(line, fence)
        underline = lines[index + 1] if index + 1 < len(lines) else ""
        heading_text, level = (None, 0) if fence else _heading(line, underline, underlines)
        if heading_text is not None and (not skip_level or level <= skip_level):
            maintainers = _for_maintainers(words(heading_text))
            skip_level = level if maintainers else 0
        if not skip_level:
            kept.append(line)
    return "\n".join(kept)


def _for_maintainers(found: list[str]) -> bool:
    """A heading on releases alone: ``Publishing a release``, not ``Building and
    releasing`` (its building is everyone's)."""
    releases = any(w in _MAINTAINER_HEADINGS for w in found)
    return releases and not any(w in _WORK_HEADINGS for w in found)


def readme_sections(text: str) -> str:
    """The README's sections on working on the project (Markdown or reStructuredText),
    with their subsections (``Contributing`` › ``Contribution Workflow``)."""
    kept: list[str] = []
    keep = False
    kept_level = 0
    underlines: list[str] = []  # reStructuredText's levels, in the order they appear
    lines = text.splitlines()
    titled = False  # the first heading, when of the first level, is the README's title
    fence = ""  # the fence a code block was opened with, while in one
    for index, line in enumerate(lines):
        fence = in_fence(line, fence)
        underline = lines[index + 1] if index + 1 < len(lines) else ""
        heading_text, level = (None, 0) if fence else _heading(line, underline, underlines)
        if heading_text is not None and not (keep and level > kept_level):
            is_title = not titled and level == 1
            keep = not is_title and any(w in _WORK_HEADINGS for w in words(heading_text))
            kept_level = level
        titled = titled or heading_text is not None
        if keep:
            kept.append(line)
    return "\n".join(kept)


def _heading(line: str, underline: str, underlines: list[str]) -> tuple[str | None, int]:
    """(title, level) of a heading line, or (None, 0): a Markdown ``## Title`` is of its
    number of ``#``; a reStructuredText title (underlined by the next line) is of the rank
    its underline's character first appeared in, which ``underlines`` records."""
    heading = _HEADING_MD.match(line)
    if heading is None and _is_rst_title(line, underline):
        if underline[0] not in underlines:
            underlines.append(underline[0])
        return line, underlines.index(underline[0]) + 1
    if heading is None:
        return None, 0
    return heading.group(1), len(line) - len(line.lstrip("#"))


def _is_rst_title(line: str, underline: str) -> bool:
    """A reStructuredText title: a line of text underlined by the next, a line of one
    punctuation's characters at least as long (and of three at the least)."""
    return bool(
        underline
        and set(underline) <= set("=-~^*#")
        and len(underline) >= max(3, len(line.strip()))
        and line.strip()
    )


def in_fence(line: str, fence: str) -> str:
    """The fence a code block is open with after ``line`` (empty outside one): a block
    closes only at a fence of its own character at least as long, so a ```` ```` ````
    block may show a ```` ``` ```` one."""
    match = _FENCE.match(line)
    if match is None:
        return fence
    mark = match.group(1)
    if not fence:
        return mark
    closes = mark[0] == fence[0] and len(mark) >= len(fence) and not match.group(2)
    return "" if closes else fence


def editable_installs(text: str) -> str:
    """The README's editable installs of the clone, wherever they are (``From source``
    under ``Installation``: a section for users, but no user installs the working tree),
    as a code block of their own."""
    found = [m.group(1) for m in map(_EDITABLE_INSTALL.match, text.splitlines()) if m]
    return "```\n" + "\n".join(dict.fromkeys(found)) + "\n```\n" if found else ""
