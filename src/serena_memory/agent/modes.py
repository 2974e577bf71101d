"""Modes: named switches that take tools away from the agent and add a line to its prompt.

Built in are ours (``no-memories``, ``no-onboarding``) and every mode name Serena ships, so
that a person's ``~/.serena`` and client entries written for serena-agent keep working:
those that concern memories act (``benchmark`` as ``no-memories``, ``onboarding`` asks for
the onboarding), the others (``interactive``, ``editing``, ``planning``, ...) are accepted
and have no effect here. People add their own as ``$SERENA_HOME/modes/NAME.yml`` with
``description``, ``prompt`` and ``excluded_tools``.

The active set is chosen as Serena chooses it: ``base_modes`` (global file), then
``default_modes`` (the ``--mode`` options, else the project's file, else the global one),
then ``added_modes`` (the project's file and ``--add-mode``). A mode that can't be found or
read stops start-up: running with a protection the user asked for silently missing is
worse than not running.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from serena_memory.agent.tools import ONBOARDING, Group, names_in
from serena_memory.core.config import read_yaml_mapping, serena_home
from serena_memory.core.errors import ConfigError
from serena_memory.core.setting_keys import MODE_KEYS, SERENA_MODE_KEYS, check_keys

MEMORY_TOOLS = names_in(Group.MEMORY, Group.SEARCH, Group.HISTORY)
ONBOARDING_TOOLS = names_in(Group.ONBOARDING)
MODES_FOLDER = "modes"
_MODE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")


class ModeError(ConfigError):
    """An unknown mode name or a mode file that can't be used."""


@dataclass(frozen=True)
class Mode:
    name: str
    description: str = ""
    prompt: str = ""
    excluded_tools: frozenset[str] = field(default_factory=frozenset)
    path: Path | None = None  # None for the built-in modes
    no_effect: bool = False  # one of Serena's modes that changes nothing of memories


_NO_MEMORIES = frozenset(MEMORY_TOOLS + ONBOARDING_TOOLS)
_NO_MEMORIES_PROMPT = "Memories are switched off for this session: there are no memory tools."
SERENA_ONLY_MODES = (
    "editing",
    "interactive",
    "jetbrains",
    "one-shot",
    "planning",
    "query-projects",
)
"""Serena's modes (serena-agent 0.1 to 2.1) that steer its code tools or the conversation:
accepted wherever Serena accepts a mode, with no effect on memories."""

BUILTIN_MODES: dict[str, Mode] = {
    "no-memories": Mode(
        name="no-memories",
        description="No memory tools and no onboarding.",
        prompt=_NO_MEMORIES_PROMPT,
        excluded_tools=_NO_MEMORIES,
    ),
    "no-onboarding": Mode(
        name="no-onboarding",
        description="No onboarding tools; memories may have been written by other means.",
        prompt="Onboarding is switched off for this session.",
        excluded_tools=frozenset(ONBOARDING_TOOLS),
    ),
    "onboarding": Mode(
        name="onboarding",
        description="A session that studies the project and writes its first memories.",
        prompt=f"This session is an onboarding: call `{ONBOARDING.name}` first and write "
        "the memories it asks for before other work.",
    ),
    "benchmark": Mode(
        name="benchmark",
        description="Serena's unattended runs: no memory tools, as no-memories.",
        prompt=_NO_MEMORIES_PROMPT,
        excluded_tools=_NO_MEMORIES,
    ),
    **{
        name: Mode(name=name, description="Serena's mode; no effect on memories.", no_effect=True)
        for name in SERENA_ONLY_MODES
    },
}


def modes_dir(home: Path | None = None) -> Path:
    return (home or serena_home()) / MODES_FOLDER


def available_modes(home: Path | None = None) -> list[str]:
    """Names of every mode that :func:`load_mode` would accept, for error messages."""
    names = set(BUILTIN_MODES)
    folder = modes_dir(home)
    if folder.is_dir():
        names.update(p.stem for p in folder.glob("*.yml") if _MODE_NAME.fullmatch(p.stem))
    return sorted(names)


def load_mode(name: str, home: Path | None = None) -> Mode:
    """The mode called ``name``: a user file ``$SERENA_HOME/modes/NAME.yml`` if there is one
    (so a person can reword a built-in's prompt), else the built-in."""
    if not isinstance(name, str) or not _MODE_NAME.fullmatch(name):
        raise ModeError(
            f"mode name {name!r} is not valid: use letters, digits, '-', '_' or '.', "
            f"as in 'no-onboarding'"
        )
    path = modes_dir(home) / f"{name}.yml"
    if path.is_file():
        return _load_mode_file(name, path)
    if name in BUILTIN_MODES:
        return BUILTIN_MODES[name]
    known = ", ".join(available_modes(home))
    raise ModeError(
        f"unknown mode '{name}': it is neither built in nor a file {path}. Known modes: {known}"
    )


def _load_mode_file(name: str, path: Path) -> Mode:
    data = read_yaml_mapping(path, ModeError)
    check_keys(data, path, MODE_KEYS, SERENA_MODE_KEYS, error=ModeError)
    texts = {}
    for key in ("description", "prompt"):
        value = data.get(key) or ""
        if not isinstance(value, str):
            raise ModeError(f"{path}: key '{key}': expected text, got {type(value).__name__}")
        texts[key] = value.strip()
    excluded = data.get("excluded_tools") or []
    if not isinstance(excluded, list) or not all(isinstance(t, str) for t in excluded):
        raise ModeError(f"{path}: key 'excluded_tools': expected a list of tool names")
    return Mode(
        name=name,
        description=texts["description"],
        prompt=texts["prompt"],
        excluded_tools=frozenset(t.strip() for t in excluded),
        path=path,
    )


def resolve_modes(
    requested: Iterable[str] = (),
    base_modes: Iterable[str] = (),
    home: Path | None = None,
    *,
    default_modes: Iterable[str] = (),
    added_modes: Iterable[str] = (),
) -> list[Mode]:
    """``base_modes``, then ``requested`` (the ``--mode`` options; when there are none,
    ``default_modes``), then ``added_modes``, each once, in order; raises ModeError on the
    first one that can't be loaded."""
    requested = list(requested)
    seen: dict[str, Mode] = {}
    for name in [*base_modes, *(requested or default_modes), *added_modes]:
        name = name.strip() if isinstance(name, str) else name
        if name in seen:
            continue
        seen[name] = load_mode(name, home)
    return list(seen.values())


def excluded_tools(modes: Iterable[Mode]) -> frozenset[str]:
    out: set[str] = set()
    for mode in modes:
        out |= mode.excluded_tools
    return frozenset(out)


def tell_no_effect(modes: Iterable[Mode]) -> None:
    """Say once on stderr (stdout may be the MCP transport) which active modes are
    Serena's and change nothing here, so a person does not look for their effect."""
    names = [f"'{m.name}'" for m in modes if m.no_effect]
    if names:
        import sys

        if len(names) == 1:
            text = f"mode {names[0]} is Serena's and has no effect"
        else:
            text = f"modes {', '.join(names[:-1])} and {names[-1]} are Serena's and have no effect"
        print(f"Note: {text} on memories.", file=sys.stderr)
