"""Trees a memory draws of code still to be written, and those that only detail a folder
another tree of the memory draws as the project's (pure).

A tree whose top folder git never knew, nor any of its names, sketches code to be written
(:meth:`~serena_memory.integrity.code_drift.path_checks.PathChecks.without_sketches`);
but when another tree of the same memory, one with names git knew, draws that top folder
among its names (the root's ``convex/  # Backend code`` beside ``src/`` and ``public/``),
the memory says the folder is part of the project as it is: its own tree details it, and
its names are claims at their places (``convex/auth.ts``), told missing when git never
knew them there.

A path with neither extension nor ``/`` at its end (``convex/_generated``) is told only
when git knew it (it may be a branch, ``frontend/28-map-view``); but under a folder the
same memory claims (``convex/``, written with its ``/``) that the project never had, at
its root or deeper, it is as much a claim as the folder: whatever it names went with it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from serena_memory.integrity.code_drift.mentions import PATH, Mention
from serena_memory.integrity.code_drift.trees import places_of


def detailed(mentions: list[Mention], sketched: list[str]) -> tuple[list[Mention], list[str]]:
    """``mentions`` with the names of the trees whose top (among ``sketched``) another
    tree of the memory draws placed where they are drawn, as claims; and the tops left
    sketched."""
    drawn = {
        place
        for m in mentions
        if m.placed and m.placed.split("/", 1)[0] + "/" not in sketched
        for place in places_of(m.placed)[1:]
    }
    tops = [top for top in sketched if top in drawn]
    if not tops:
        return mentions, sketched
    out = [
        replace(m, target=m.placed, placed="", exact=True, weak=m.shown)
        if m.placed.startswith(tuple(tops)) and m.placed not in tops
        else m
        for m in mentions
    ]
    return out, [top for top in sketched if top not in tops]


def within_sketch(m: Mention, sketched: list[str]) -> bool:
    """Whether a mention lies in a sketched tree (``sketched``: their top folders), or is
    a folder above one of them: it goes with the sketch."""
    if (m.placed or m.target).startswith(tuple(sketched)):
        return True
    return any(t.startswith(m.target) and m.target.endswith("/") for t in sketched)


def below_absent(mentions: list[Mention], there: Callable[[str], bool]) -> list[Mention]:
    """``mentions`` with each path that has neither extension nor ``/`` at its end made a
    claim when it lies below a folder another mention of the memory claims (written with
    its ``/``, not as an example) that is not ``there`` (neither now nor in git's history,
    from the root nor as the end of a folder)."""
    if not any(_loose(m) for m in mentions):
        return mentions
    absent = tuple(f for f in _claimed_folders(mentions) if not there(f))
    if not absent:
        return mentions
    return [
        replace(m, loose=False) if _loose(m) and m.target.startswith(absent) else m
        for m in mentions
    ]


def _loose(m: Mention) -> bool:
    """Whether ``m`` is a path with neither extension nor ``/`` at its end."""
    return m.kind == PATH and m.loose and not m.form


def _claimed_folders(mentions: list[Mention]) -> set[str]:
    """The folders the mentions claim, written with their ``/`` in prose or a code span."""
    return {
        m.target
        for m in mentions
        if m.kind == PATH and m.target.endswith("/") and not (m.weak or m.form or m.placed)
    }
