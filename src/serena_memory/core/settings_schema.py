"""Every setting serena-memory reads, declared once: its type, default, bounds or choices,
the files it may be written in, and one line saying what it does.

msgspec checks a file's values against this declaration (types, bounds, choices, in one
call); the error messages and the settings reference (``docs/reference/settings.md``,
written by ``scripts/gen_reference.py``) are made from it too, so neither can drift from
what is read. The declaration is plain data and msgspec is imported only when a file holds
one of these keys: a command that finds no configuration starts as fast as without it.
What a value means beyond its type (a folder that must be absolute, the stricter of two
review modes) stays with the code that uses it, in :mod:`serena_memory.core.config`.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, NamedTuple

from serena_memory.core.errors import ConfigError

GLOBAL, PROJECT, BOTH = "global", "project", "both"
"""Where a setting may be written: ``$SERENA_HOME/serena_config.yml``, a project's
``.serena/project.yml``, or either (how the two combine is said by each setting)."""

MIN_LISTING_BUDGET = 500  # below this, the hint and one long name would not fit

AgentWrites = Literal["direct", "propose", "read-only"]
"""From the loosest to the strictest (core/proposals.py)."""
SyncMode = Literal["manual", "auto"]
Names = tuple[str, ...]
Remotes = dict[Any, str | None]  # a folder -> the URL of its repository (None: none)

_NOT_BLANK = r"\S"
_URL = "the URL of a git repository"


class Setting(NamedTuple):
    """One setting. ``kind`` is the Python type of its value; ``ge`` and ``pattern`` bound
    it (``pattern`` applies to each URL of a mapping); ``unit``, ``expected`` and
    ``show_value`` say how a message tells what a value must be and what was found (the
    value itself, or only its kind); ``default_words`` tells a default that is not a value;
    ``checked_by`` names the part that checks the value itself, when it is read."""

    key: str
    files: str
    kind: Any
    default: Any
    doc: str
    ge: int | None = None
    pattern: str | None = None
    unit: str | None = None
    expected: str | None = None
    show_value: bool = False
    default_words: str | None = None
    checked_by: str | None = None


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "read_only_memory_patterns", BOTH, Names, (),
        "Memory names (Python regexes matched against the whole name) that the agent and the "
        "dashboard may read but not change; the lists of both files add up.",
    ),
    Setting(
        "ignored_memory_patterns", BOTH, Names, (),
        "Memory names (Python regexes, whole name) that no tool lists, reads or changes; the "
        "lists of both files add up.",
    ),
    Setting(
        "base_modes", GLOBAL, Names, (),
        "Modes every MCP server starts with.",
    ),
    Setting(
        "default_modes", BOTH, Names, (),
        "Modes the MCP server adds to `base_modes` when it is given no `--mode`; the "
        "project's file wins.",
    ),
    Setting(
        "added_modes", PROJECT, Names, (),
        "Modes the MCP server adds for this project, on top of the others.",
    ),
    Setting(
        "default_max_tool_answer_chars", GLOBAL, int, 150_000,
        "The most characters `write_memory` accepts in one memory when the call gives no "
        "`max_chars` of its own.",
        ge=1,
    ),
    Setting(
        "project_serena_folder_location", GLOBAL, str, "$projectDir/.serena",
        "Where each project's `.serena` folder (its memories and project.yml) is, as Serena "
        "says it: `$projectDir` is the project's folder, `$projectFolderName` its name; a "
        "place outside the project folder, `$SERENA_HOME` and `allowed_memory_roots` is "
        "refused.",
        pattern=_NOT_BLANK, expected="the path of a folder",
    ),
    Setting(
        "allowed_memory_roots", GLOBAL, Names, (),
        "Folders that memory symlinks may lead into besides the project folder and "
        "`$SERENA_HOME` (absolute, or starting with `~/`).",
    ),
    Setting(
        "memory_listing_budget", BOTH, int, 2_000,
        "Tokens that a list of memory names may take in an answer to the agent; the "
        "project's file wins.",
        ge=MIN_LISTING_BUDGET, unit="tokens",
    ),
    Setting(
        "memory_history", BOTH, bool, True,
        "Record every change of a memory in its folder's history; off when either file says "
        "false.",
    ),
    Setting(
        "memory_history_dir", GLOBAL, str, None,
        "The folder the history repositories are kept in; a relative path starts at "
        "`$SERENA_HOME`.",
        pattern=_NOT_BLANK, expected="the path of a folder",
        default_words="$SERENA_HOME/history",
    ),
    Setting(
        "memory_history_keep_days", BOTH, int, 0,
        "Days of history that `serena memories history --prune` keeps, 0 keeping every "
        "entry; the project's file wins.",
        ge=0, unit="days (0 keeps everything)",
    ),
    Setting(
        "memory_agent_writes", BOTH, AgentWrites, "direct",
        "What the agent's memory changes do: land at once, wait as proposals for a person, "
        "or are refused; the stricter of the two files applies.",
    ),
    Setting(
        "memory_search_model", GLOBAL, str, None,
        "The folder of a static embedding model that search uses instead of the embedded "
        "one; checked when a search loads it.",
        expected="the path of a model folder", default_words="the embedded model",
        checked_by="search",
    ),
    Setting(
        "memory_sync", GLOBAL, SyncMode, "manual",
        "manual: memories sync when you run `serena sync`; auto: the MCP server pulls when "
        "it starts and pushes after changes.",
    ),
    Setting(
        "memory_sync_remote", GLOBAL, str, None,
        "The git repository that `serena sync` carries the global memories to.",
        pattern=_NOT_BLANK, expected=_URL,
    ),
    Setting(
        "memory_sync_project_remotes", GLOBAL, Remotes, {},
        "The git repository of each project's memories, by the project's folder.",
        pattern=_NOT_BLANK, expected="a mapping of project folders to URLs",
    ),
    Setting(
        "memory_sync_team_remote", GLOBAL, str, None,
        "A team's git repository of memories, pulled (never pushed) into `global/<topic>/`.",
        pattern=_NOT_BLANK, expected=_URL,
    ),
    Setting(
        "memory_sync_team_topic", GLOBAL, str, "team",
        "The topic under `global/` that the team's memories are pulled into.",
        pattern=r"^/*[^/]*[^/\s][^/]*/*$",  # one name, with no slash inside it
        expected="one topic name", show_value=True,
    ),
    Setting(
        "memory_sync_team_writable", GLOBAL, bool, False,
        "Let the team's pulled memories be changed here (they are read-only otherwise, and "
        "never pushed).",
    ),
    Setting(
        "initial_prompt", PROJECT, str, "",
        "Instructions the agent is given for this project when it starts.",
    ),
    Setting(
        "project_name", PROJECT, str, "",
        "The name the agent is told for the project.",
        default_words="the folder's name",
    ),
)  # fmt: skip

BY_KEY: dict[str, Setting] = {s.key: s for s in SETTINGS}
DEFAULTS: Any = types.SimpleNamespace(**{s.key: s.default for s in SETTINGS})
"""Every setting's default, by name (``DEFAULTS.memory_listing_budget``)."""


def keys_in(file: str) -> frozenset[str]:
    """The settings that ``file`` (``GLOBAL`` or ``PROJECT``) may hold."""
    return frozenset(s.key for s in SETTINGS if s.files in (file, BOTH))


def files_of(key: str) -> str:
    return BY_KEY[key].files


def _either(values: tuple[Any, ...]) -> str:
    words = [str(v) for v in values]
    return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0]


def expected(setting: Setting) -> str:
    """What a value of ``setting`` must be, as the error messages and the reference say."""
    kind = setting.kind
    if setting.expected is not None:
        return setting.expected
    if typing.get_origin(kind) is Literal:
        return _either(typing.get_args(kind))
    if kind is bool:
        return "true or false"
    if kind is str:
        return "a string"
    if kind == Names:
        return "a list of strings"
    if kind is int and setting.unit is None and setting.ge == 1:
        return "a positive whole number"
    text = "a whole number" + (f" of {setting.unit}" if setting.unit else "")
    return text + (f", at least {setting.ge}" if setting.ge else "")


def type_name(value: Any) -> str:
    """What kind of YAML value ``value`` is, in words (for messages)."""
    return {list: "a list", str: "a string", int: "a number", float: "a number"}.get(
        type(value), f"a {type(value).__name__}"
    )


@functools.cache
def _typed(key: str) -> Any:
    """``key``'s type with its bounds, as msgspec checks it."""
    from msgspec import Meta

    setting = BY_KEY[key]
    if setting.kind == Remotes:
        url = typing.Annotated[str, Meta(pattern=setting.pattern)]
        return dict[Any, url | None]
    meta = Meta(pattern=setting.pattern) if setting.pattern else Meta(ge=setting.ge)
    return typing.Annotated[setting.kind, meta]


@functools.cache
def _declared() -> Any:
    """The msgspec ``Struct`` of every setting that this module checks."""
    import msgspec

    fields = [(s.key, _typed(s.key), s.default) for s in SETTINGS if s.checked_by is None]
    return msgspec.defstruct("Declared", fields, kw_only=True, frozen=True)


def _fits(hint: Any, value: Any) -> bool:
    import msgspec

    try:
        msgspec.convert(value, type=hint)
    except msgspec.ValidationError:
        return False
    return True


def _list_problem(value: Any) -> str:
    if isinstance(value, str):
        return f"expected a list of strings, got a single string (write it as [{value!r}])"
    if isinstance(value, list):
        for i, item in enumerate(value):
            if not isinstance(item, str):
                return f"item {i + 1} must be a string, got {type_name(item)}"
    return f"expected a list of strings, got {type_name(value)}"


def _problem(setting: Setting, value: Any) -> str:
    """One phrase saying why ``value`` is no value of ``setting``."""
    if setting.kind == Names:
        return _list_problem(value)
    if setting.kind == Remotes and isinstance(value, dict):
        url = typing.get_args(typing.get_args(_typed(setting.key))[1])[0]
        for item in value.values():
            if item is not None and not _fits(url, item):
                return f"expected {_URL}, got {type_name(item)}"
    kind = setting.kind
    shown = setting.show_value or kind is int or typing.get_origin(kind) is Literal
    return f"expected {expected(setting)}, got {repr(value) if shown else type_name(value)}"


def checked(data: Mapping[str, Any], path: Path, home: Path) -> Any:
    """The settings of one file's mapping (whose keys :func:`~serena_memory.core.
    setting_keys.check_keys` has vetted), by name, checked against the declaration; a key
    written with no value is as if it were not written. The first wrong value is a
    :class:`ConfigError` naming the file, the key and what the value must be. Values that
    passed before are known from ``home``'s cache (:mod:`~serena_memory.core.settings_cache`)
    and not checked again."""
    ours = {
        k: v
        for k, v in data.items()
        if k in BY_KEY and v is not None and BY_KEY[k].checked_by is None
    }
    if not ours:
        return DEFAULTS
    from serena_memory.core import settings_cache

    if settings_cache.known_good(home, ours):  # checked by an earlier command: no msgspec
        return _as_declared(ours)
    import msgspec

    try:
        read = msgspec.convert(ours, _declared())
    except msgspec.ValidationError as exc:
        for key, value in ours.items():
            if not _fits(_typed(key), value):
                problem = _problem(BY_KEY[key], value)
                raise ConfigError(f"{path}: key '{key}': {problem}") from None
        raise ConfigError(f"{path}: {exc}") from None
    settings_cache.remember_good(home, ours)
    return read


def _as_declared(ours: Mapping[str, Any]) -> Any:
    """Values that passed the check, as msgspec gives them back (a list of names as a
    tuple), with every other setting at its default."""
    values = {s.key: s.default for s in SETTINGS}
    for key, value in ours.items():
        values[key] = tuple(value) if BY_KEY[key].kind == Names else value
    return types.SimpleNamespace(**values)


class Entry(NamedTuple):
    """One setting as the reference shows it."""

    key: str
    files: str
    expects: str
    default: str
    doc: str


def _shown_default(setting: Setting) -> str:
    """The default as Markdown: a value as YAML writes it, in code, or words."""
    if setting.default_words is not None:
        return setting.default_words
    value = setting.default
    if isinstance(value, bool):
        value = "true" if value else "false"
    elif value == ():
        value = "[]"
    if value == "":
        return "empty"
    if value is None:
        return "not set"
    return f"`{value}`"


def entries() -> list[Entry]:
    """Every setting, in the declaration's order."""
    return [Entry(s.key, s.files, expected(s), _shown_default(s), s.doc) for s in SETTINGS]
