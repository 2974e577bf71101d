"""The folder a section of a memory is about: a heading that names a folder ("## Core
Application Structure (lumen-gcp/)", "## The `web/` app") says the trees drawn under it,
down to the next heading of its level or above, are drawn from that folder ("backend/"
under it is ``lumen-gcp/backend/``). A name is still looked for without that folder when
git never knew it there (:mod:`~serena_memory.integrity.code_drift.path_checks`).

The heading pattern is anchored and has no nested quantifiers.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from serena_memory.integrity.code_drift.planned import says_planned

if TYPE_CHECKING:
    from serena_memory.integrity.code_drift.mentions import Mention

_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s")
_OUTSIDE = re.compile(r"[(`]\.\./")
"""A folder in a heading that lies outside the project (``(../Tools/Scripts/)``)."""
_FOLDER = re.compile(r"[(`]\.?/?([\w@.+-][\w@.+/-]{0,200}/)[)`]")
"""A folder in a heading, in parentheses or a code span, with its ``/`` at the end."""


class Section:
    """The section of a memory under way, read heading by heading: the folder it is about
    and whether it lays out work still to do
    (:mod:`~serena_memory.integrity.code_drift.planned`)."""

    def __init__(self) -> None:
        # (level, folder or '', a plan, about a folder outside the project)
        self._levels: list[tuple[int, str, bool, bool]] = []

    @property
    def folder(self) -> str:
        """The folder of the innermost heading that names one ('' when none does)."""
        for _level, folder, _plan, _outside in reversed(self._levels):
            if folder:
                return folder
        return ""

    @property
    def planned(self) -> bool:
        """Whether the innermost heading or one above it says its section is a plan."""
        return any(plan for _level, _folder, plan, _outside in self._levels)

    @property
    def outside(self) -> bool:
        """Whether a heading over the line names a folder outside the project ("##
        PowerShell Scripts (../Tools/Scripts/)"): the files it lists are no claims about
        the project's own."""
        return any(outside for *_rest, outside in self._levels)

    def read(self, line: str) -> None:
        """Take in a prose line: a heading opens its section and ends the sections of
        its level and below."""
        if line[:1] not in "# ":
            return
        heading = _HEADING.match(line)
        if heading is None:
            return
        level = len(heading.group(1))
        while self._levels and self._levels[-1][0] >= level:
            self._levels.pop()
        named = _FOLDER.search(line, heading.end())
        folder = named.group(1) if named else ""
        outside = _OUTSIDE.search(line, heading.end()) is not None
        self._levels.append((level, folder, says_planned(line[heading.end() :]), outside))


def drawn_under(folder: str, mentions: list[Mention]) -> list[Mention]:
    """``mentions`` of a fenced block, the names its trees place put under ``folder``,
    but in a tree whose top is a part of ``folder`` (``module-core/repo/`` under
    "(module-core/repo/quality/)"): drawn from it or above it already."""
    if not folder:
        return mentions
    parts = set(folder.rstrip("/").split("/"))
    return [
        replace(m, placed=folder + m.placed)
        if m.placed and m.placed.split("/", 1)[0] not in parts and m.placed[:1] != "/"
        else m
        for m in mentions
    ]
