"""Every setting serena-memory reads, declared once: its type, default, bounds or choices,
the files it may be written in, and one line saying what it does.

The declaration is a msgspec ``Struct``: msgspec checks a file's values against it (types,
bounds, choices) in one call, and its documented introspection (``msgspec.inspect``) gives
what the error messages and the settings reference (``docs/reference/settings.md``, written
by ``scripts/gen_reference.py``) say, so that neither can drift from what is read. What a
value means beyond its type (a folder that must be absolute, the stricter of two review
modes) stays with the code that uses it, in :mod:`serena_memory.core.config`.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple

import msgspec
from msgspec import Meta
from msgspec import inspect as mi

from serena_memory.core.errors import ConfigError

GLOBAL, PROJECT, BOTH = "global", "project", "both"
"""Where a setting may be written: ``$SERENA_HOME/serena_config.yml``, a project's
``.serena/project.yml``, or either (how the two combine is said by each setting)."""

MIN_LISTING_BUDGET = 500  # below this, the hint and one long name would not fit

AgentWrites = Literal["direct", "propose", "read-only"]
"""From the loosest to the strictest (core/proposals.py)."""
SyncMode = Literal["manual", "auto"]


def _setting(doc: str, files: str, **extra: Any) -> Meta:
    """A setting's documentation and where it may be written; ``extra`` may say how its
    value is told in messages (``expected``, ``unit``, ``got``) or shown as a default."""
    return Meta(description=doc, extra={"files": files, **extra})


def _bounded(doc: str, files: str, ge: int, **extra: Any) -> Meta:
    """As :func:`_setting`, for a whole number of at least ``ge``."""
    return Meta(ge=ge, description=doc, extra={"files": files, **extra})


_NOT_BLANK = r"\S"
_TOPIC = r"^/*[^/]*[^/\s][^/]*/*$"  # one name, with no slash inside it
GitUrl = Annotated[str, Meta(pattern=_NOT_BLANK, extra={"expected": "the URL of a git repository"})]
Names = tuple[str, ...]


class Declared(msgspec.Struct, kw_only=True, frozen=True):
    """The settings, with the defaults that apply when no file says otherwise."""

    read_only_memory_patterns: Annotated[
        Names,
        _setting(
            "Memory names (Python regexes matched against the whole name) that the agent and "
            "the dashboard may read but not change; the lists of both files add up.",
            BOTH,
        ),
    ] = ()
    ignored_memory_patterns: Annotated[
        Names,
        _setting(
            "Memory names (Python regexes, whole name) that no tool lists, reads or changes; "
            "the lists of both files add up.",
            BOTH,
        ),
    ] = ()
    base_modes: Annotated[
        Names, _setting("Modes every MCP server starts with, before any `--mode`.", GLOBAL)
    ] = ()
    default_max_tool_answer_chars: Annotated[
        int,
        _bounded(
            "The most characters `write_memory` accepts in one memory when the call gives no "
            "`max_chars` of its own.",
            GLOBAL,
            ge=1,
        ),
    ] = 150_000
    allowed_memory_roots: Annotated[
        Names,
        _setting(
            "Folders that memory symlinks may lead into besides the project folder and "
            "`$SERENA_HOME` (absolute, or starting with `~/`).",
            GLOBAL,
        ),
    ] = ()
    memory_listing_budget: Annotated[
        int,
        _bounded(
            "Tokens that a list of memory names may take in an answer to the agent; the "
            "project's file wins.",
            BOTH,
            ge=MIN_LISTING_BUDGET,
            unit="tokens",
        ),
    ] = 2_000
    memory_history: Annotated[
        bool,
        _setting(
            "Record every change of a memory in its folder's history; off when either file "
            "says false.",
            BOTH,
        ),
    ] = True
    memory_history_dir: (
        Annotated[
            str,
            Meta(
                pattern=_NOT_BLANK,
                description="The folder the history repositories are kept in; a relative path "
                "starts at `$SERENA_HOME`.",
                extra={
                    "files": GLOBAL,
                    "expected": "the path of a folder",
                    "default": "$SERENA_HOME/history",
                },
            ),
        ]
        | None
    ) = None
    memory_history_keep_days: Annotated[
        int,
        _bounded(
            "Days of history that `serena memories history --prune` keeps, 0 keeping every "
            "entry; the project's file wins.",
            BOTH,
            ge=0,
            unit="days (0 keeps everything)",
        ),
    ] = 0
    memory_agent_writes: Annotated[
        AgentWrites,
        _setting(
            "What the agent's memory changes do: land at once, wait as proposals for a "
            "person, or are refused; the stricter of the two files applies.",
            BOTH,
        ),
    ] = "direct"
    memory_search_model: (
        Annotated[
            str,
            _setting(
                "The folder of a static embedding model that search uses instead of the "
                "embedded one; checked when a search loads it.",
                GLOBAL,
                checked_by="search",
                expected="the path of a model folder",
                default="the embedded model",
            ),
        ]
        | None
    ) = None
    memory_sync: Annotated[
        SyncMode,
        _setting(
            "manual: memories sync when you run `serena sync`; auto: the MCP server pulls "
            "when it starts and pushes after changes.",
            GLOBAL,
        ),
    ] = "manual"
    memory_sync_remote: (
        Annotated[
            GitUrl,
            _setting(
                "The git repository that `serena sync` carries the global memories to.", GLOBAL
            ),
        ]
        | None
    ) = None
    memory_sync_project_remotes: Annotated[
        dict[Any, GitUrl | None],
        _setting(
            "The git repository of each project's memories, by the project's folder.",
            GLOBAL,
            expected="a mapping of project folders to URLs",
        ),
    ] = {}
    memory_sync_team_remote: (
        Annotated[
            GitUrl,
            _setting(
                "A team's git repository of memories, pulled (never pushed) into "
                "`global/<topic>/`.",
                GLOBAL,
            ),
        ]
        | None
    ) = None
    memory_sync_team_topic: Annotated[
        str,
        Meta(
            pattern=_TOPIC,
            description="The topic under `global/` that the team's memories are pulled into.",
            extra={"files": GLOBAL, "expected": "one topic name", "got": "value"},
        ),
    ] = "team"
    memory_sync_team_writable: Annotated[
        bool,
        _setting(
            "Let the team's pulled memories be changed here (they are read-only otherwise, "
            "and never pushed).",
            GLOBAL,
        ),
    ] = False
    initial_prompt: Annotated[
        str, _setting("Instructions the agent is given for this project when it starts.", PROJECT)
    ] = ""
    project_name: Annotated[
        str,
        _setting(
            "The name the agent is told for the project.", PROJECT, default="the folder's name"
        ),
    ] = ""


DEFAULTS = Declared()
_HINTS: dict[str, Any] = typing.get_type_hints(Declared, include_extras=True)
_FIELDS: dict[str, mi.Field] = {
    f.name: f
    for f in typing.cast(mi.StructType, mi.type_info(Declared)).fields  # one Struct, its fields
}


def _parts(t: mi.Type) -> tuple[mi.Type, dict[str, Any], str]:
    """The type under a setting's optional ``None`` and its annotations, with their
    ``extra`` and the documentation line."""
    extra: dict[str, Any] = {}
    doc = ""
    while True:
        if isinstance(t, mi.UnionType):
            rest = [x for x in t.types if not isinstance(x, mi.NoneType)]
            if len(rest) != 1:
                return t, extra, doc
            t = rest[0]
        elif isinstance(t, mi.Metadata):
            extra = {**(t.extra or {}), **extra}
            doc = doc or (t.extra_json_schema or {}).get("description", "")
            t = t.type
        else:
            return t, extra, doc


def _extra(key: str) -> dict[str, Any]:
    return _parts(_FIELDS[key].type)[1]


def keys_in(file: str) -> frozenset[str]:
    """The settings that ``file`` (``GLOBAL`` or ``PROJECT``) may hold."""
    return frozenset(k for k in _FIELDS if _extra(k)["files"] in (file, BOTH))


def files_of(key: str) -> str:
    return str(_extra(key)["files"])


def _either(values: tuple[Any, ...]) -> str:
    words = [str(v) for v in values]
    return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0]


def _choices(hint: Any) -> tuple[Any, ...]:
    """The values of the ``Literal`` inside ``hint``, in the order they are declared."""
    if typing.get_origin(hint) is Literal:
        return typing.get_args(hint)
    for arg in typing.get_args(hint):
        found = _choices(arg)
        if found:
            return found
    return ()


def expected(t: mi.Type, hint: Any) -> str:
    """What a value of type ``t`` (``hint`` as declared) must be, as the error messages and
    the reference say it."""
    core, extra, _doc = _parts(t)
    if "expected" in extra:
        return str(extra["expected"])
    if isinstance(core, mi.LiteralType):
        return _either(_choices(hint) or core.values)
    if isinstance(core, mi.BoolType):
        return "true or false"
    if isinstance(core, mi.StrType):
        return "a string"
    if isinstance(core, (mi.VarTupleType, mi.ListType)):
        return "a list of strings"
    if isinstance(core, mi.IntType):
        unit = extra.get("unit")
        if unit is None and core.ge == 1:
            return "a positive whole number"
        text = "a whole number" + (f" of {unit}" if unit else "")
        return text + (f", at least {core.ge}" if core.ge else "")
    return "a value of another kind"


def type_name(value: Any) -> str:
    """What kind of YAML value ``value`` is, in words (for messages)."""
    return {list: "a list", str: "a string", int: "a number", float: "a number"}.get(
        type(value), f"a {type(value).__name__}"
    )


def _fits(hint: Any, value: Any) -> bool:
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


def _problem(t: mi.Type, hint: Any, value: Any) -> str:
    """One phrase saying why ``value`` is not a value of the setting typed ``t``."""
    core, extra, _doc = _parts(t)
    if isinstance(core, (mi.VarTupleType, mi.ListType)):
        return _list_problem(value)
    if isinstance(core, mi.DictType) and isinstance(value, dict):
        item_hint = typing.get_args(typing.get_args(hint)[0])[1]
        for item in value.values():
            if item is not None and not _fits(item_hint, item):
                return _problem(core.value_type, item_hint, item)
    shown = isinstance(core, (mi.IntType, mi.LiteralType)) or extra.get("got") == "value"
    return f"expected {expected(t, hint)}, got {repr(value) if shown else type_name(value)}"


def checked(data: Mapping[str, Any], path: Path) -> Declared:
    """The settings of one file's mapping (whose keys :func:`~serena_memory.core.
    setting_keys.check_keys` has vetted), checked against the declaration; a key written
    with no value is as if it were not written. The first wrong value is a
    :class:`ConfigError` naming the file, the key and what the value must be."""
    ours = {
        k: v
        for k, v in data.items()
        if k in _FIELDS and v is not None and "checked_by" not in _extra(k)
    }
    try:
        return msgspec.convert(ours, Declared)
    except msgspec.ValidationError as exc:
        for key, value in ours.items():
            if not _fits(_HINTS[key], value):
                problem = _problem(_FIELDS[key].type, _HINTS[key], value)
                raise ConfigError(f"{path}: key '{key}': {problem}") from None
        raise ConfigError(f"{path}: {exc}") from None


class Entry(NamedTuple):
    """One setting as the reference shows it."""

    key: str
    files: str
    expects: str
    default: str
    doc: str


def _shown_default(key: str) -> str:
    """The default as Markdown: a value as YAML would write it, in code, or words."""
    extra = _extra(key)
    if "default" in extra:
        return str(extra["default"])
    value = getattr(DEFAULTS, key)
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
    found = []
    for key, field in _FIELDS.items():
        _core, extra, doc = _parts(field.type)
        expects = expected(field.type, _HINTS[key])
        found.append(Entry(key, extra["files"], expects, _shown_default(key), doc))
    return found
