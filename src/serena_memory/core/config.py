"""Configuration: ``$SERENA_HOME/serena_config.yml`` and ``<project>/.serena/project.yml``.

A missing file means defaults. A broken one is a :class:`ConfigError` naming the file, the
key and the problem: a silently ignored read-only pattern would let an agent overwrite what
a person meant to protect. Each setting's type, default and bounds are declared once, in
:mod:`serena_memory.core.settings_schema`; this module reads the files, checks them against
that declaration and gives what a value means (a real folder, the stricter of two modes).
"""

from __future__ import annotations

import os
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from serena_memory.core import settings_schema as schema
from serena_memory.core.errors import ConfigError, PatternError
from serena_memory.core.process import PROCESS
from serena_memory.core.setting_keys import (
    GLOBAL_KEYS,
    PROJECT_KEYS,
    SERENA_GLOBAL_KEYS,
    SERENA_PROJECT_KEYS,
    check_keys,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from serena_memory.core.patterns import OutsidePattern

GLOBAL_CONFIG_NAME = "serena_config.yml"
PROJECT_CONFIG_NAME = "project.yml"
LOCAL_PROJECT_CONFIG_NAME = "project.local.yml"  # Serena's: one person's overrides
DEFAULTS = schema.DEFAULTS
DEFAULT_MAX_CHARS = DEFAULTS.default_max_tool_answer_chars
DEFAULT_LISTING_BUDGET = DEFAULTS.memory_listing_budget  # tokens a list of names may cost
AGENT_WRITE_MODES: tuple[str, ...] = typing.get_args(schema.AgentWrites)
"""What the agent's memory changes do, from the loosest to the strictest: land at once,
become proposals a person reviews (core/proposals.py), or are refused."""


def serena_home() -> Path:
    """``$SERENA_HOME``, else ``~/.serena``."""
    env = os.environ.get("SERENA_HOME")
    return Path(env).expanduser() if env else Path.home() / ".serena"


class Patterns(NamedTuple):
    """Compiled name patterns, each remembered with its source text for messages."""

    read_only: tuple[tuple[str, OutsidePattern], ...] = ()
    ignored: tuple[tuple[str, OutsidePattern], ...] = ()

    def read_only_match(self, name: str) -> str | None:
        return _first_full_match(self.read_only, name)

    def ignored_match(self, name: str) -> str | None:
        return _first_full_match(self.ignored, name)


def _first_full_match(patterns: tuple[tuple[str, OutsidePattern], ...], name: str) -> str | None:
    for text, compiled in patterns:
        if compiled.fullmatch(name):
            return text
    return None


# -- sync (sync/) -----------------------------------------------------------------------------
SYNC_MODES: tuple[str, ...] = typing.get_args(schema.SyncMode)


class SyncConfig(NamedTuple):
    """Where memories are synced to. Read from the global configuration only: a project's
    own file is untrusted (a cloned repository's), and a key in it could otherwise point
    our sync at a stranger's URL and make us push the person's memories there."""

    remote: str | None = None  # the global memories folder's remote
    project_remotes: dict[str, str] = {}  # the real path of a project -> its remote
    mode: str = "manual"  # "auto": pull when a server starts, push after writes
    team_remote: str | None = None  # pulled only, into global/<team_topic>/
    team_topic: str = "team"
    team_writable: bool = False
    path: Path | None = None

    def team_prefix(self) -> str | None:
        """``global/<topic>/`` when team memories are pulled and read-only, else None."""
        if self.team_remote is None or self.team_writable:
            return None
        return f"global/{self.team_topic}/"

    def team_topic_pulled(self) -> str | None:
        """The topic under ``global/`` the team's memories are pulled into, if any."""
        return None if self.team_remote is None else self.team_topic


class GlobalConfig(NamedTuple):
    """The global file's settings as the code uses them (defaults: the declaration's)."""

    read_only_memory_patterns: tuple[str, ...] = DEFAULTS.read_only_memory_patterns
    ignored_memory_patterns: tuple[str, ...] = DEFAULTS.ignored_memory_patterns
    base_modes: tuple[str, ...] = DEFAULTS.base_modes
    default_modes: tuple[str, ...] = DEFAULTS.default_modes
    default_max_tool_answer_chars: int = DEFAULT_MAX_CHARS
    allowed_memory_roots: tuple[str, ...] = DEFAULTS.allowed_memory_roots  # real paths
    project_serena_folder_location: str = DEFAULTS.project_serena_folder_location
    memory_listing_budget: int = DEFAULT_LISTING_BUDGET
    memory_history: bool = DEFAULTS.memory_history
    memory_history_dir: Path | None = None  # None: $SERENA_HOME/history
    memory_history_keep_days: int = DEFAULTS.memory_history_keep_days  # 0: keep every entry
    memory_agent_writes: str = DEFAULTS.memory_agent_writes
    path: Path | None = None
    sync: SyncConfig = SyncConfig()  # from the same file, read once with the rest


class ProjectConfig(NamedTuple):
    """The project file's settings; a setting both files may hold is None when the
    project's file does not set it (the global one then applies)."""

    read_only_memory_patterns: tuple[str, ...] = DEFAULTS.read_only_memory_patterns
    ignored_memory_patterns: tuple[str, ...] = DEFAULTS.ignored_memory_patterns
    initial_prompt: str = DEFAULTS.initial_prompt
    project_name: str = DEFAULTS.project_name
    default_modes: tuple[str, ...] | None = None  # None: the global setting
    added_modes: tuple[str, ...] = DEFAULTS.added_modes
    memory_listing_budget: int | None = None  # None: the global setting
    memory_history: bool | None = None  # None: as the global configuration says
    memory_history_keep_days: int | None = None
    memory_agent_writes: str | None = None  # None: the global setting; never looser
    path: Path | None = None


class Settings(NamedTuple):
    """The merged view that the store and the entry points work from."""

    global_config: GlobalConfig = GlobalConfig()
    project_config: ProjectConfig = ProjectConfig()
    patterns: Patterns = Patterns()

    @property
    def listing_budget(self) -> int:
        """Tokens a listing of memory names may take (the project's setting wins)."""
        if self.project_config.memory_listing_budget is not None:
            return self.project_config.memory_listing_budget
        return self.global_config.memory_listing_budget

    @property
    def history_enabled(self) -> bool:
        """History is on unless either file says ``memory_history: false``."""
        return self.global_config.memory_history and self.project_config.memory_history is not False

    @property
    def history_keep_days(self) -> int:
        """Days of history that ``--prune`` keeps (the project's setting wins); 0: all."""
        days = self.project_config.memory_history_keep_days
        return self.global_config.memory_history_keep_days if days is None else days

    @property
    def agent_writes(self) -> str:
        """What the agent's changes do: the stricter of the two files' settings, so a
        project's file (a cloned repository's, untrusted) can tighten the gate, never
        lift it."""
        return stricter(
            self.global_config.memory_agent_writes, self.project_config.memory_agent_writes
        )


def stricter(*modes: str | None) -> str:
    """The strictest of ``memory_agent_writes`` values (None: not set); direct when none."""
    return max((m for m in modes if m is not None), key=AGENT_WRITE_MODES.index, default="direct")


class _ParsedFiles(dict[Path, tuple[tuple[int, int], dict[str, Any]]]):
    """Each settings file parsed in this process, by path, with the stamp it was read at."""


def _parsed_files() -> _ParsedFiles:
    return PROCESS.owned(_ParsedFiles)


def load_mapping(
    path: Path, read: Callable[[], bytes] | None = None, home: Path | None = None
) -> dict[str, Any]:
    """Parse a YAML file into a mapping; missing file -> {}; cached by mtime and size in
    this process, and by its bytes across commands in ``home``'s cache
    (:mod:`serena_memory.core.settings_cache`; default ``$SERENA_HOME``).

    ``read`` reads the file's bytes when it is not cached (default: open it directly)."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    stamp = (st.st_mtime_ns, st.st_size)
    cached = _parsed_files().get(path)
    if cached and cached[0] == stamp:
        return cached[1]
    raw = read() if read is not None else _read_bytes(path)
    from serena_memory.core import settings_cache

    cache_home = home or serena_home()
    data = settings_cache.parsed(cache_home, raw)
    if data is None:
        data = read_yaml_mapping(path, raw=raw)
        settings_cache.remember_parsed(cache_home, raw, data)
    _parsed_files()[path] = (stamp, data)
    return data


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror or exc}") from None


def read_yaml_mapping(
    path: Path, error: type[ConfigError] = ConfigError, raw: bytes | None = None
) -> dict[str, Any]:
    """Parse a YAML file that must hold a mapping (an empty file is an empty one); any
    problem is ``error`` naming the file and, for bad YAML, the line and column. ``raw``:
    the file's bytes, already read."""
    try:
        text = path.read_text(encoding="utf-8") if raw is None else raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise error(f"{path}: cannot be read: {exc.strerror or exc}") from None
    import yaml  # only when a configuration file exists: it costs the CLI's start-up

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(text, Loader=loader)
    except yaml.YAMLError as exc:
        where = ""
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            where = f" at line {mark.line + 1}, column {mark.column + 1}"
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise error(f"{path}: invalid YAML{where}: {problem}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise error(f"{path}: the top level must be a mapping of keys, not {_type_name(data)}")
    return data


_type_name = schema.type_name


def _compile(patterns: tuple[str, ...], key: str, path: Path) -> list[tuple[str, OutsidePattern]]:
    """Configuration is outside input (a project's file is untrusted), so its patterns run
    under the time limit of :mod:`serena_memory.core.patterns`."""
    from serena_memory.core.patterns import OutsidePattern

    compiled = []
    for text in patterns:
        try:
            compiled.append((text, OutsidePattern(text, f"{path}: key '{key}'")))
        except PatternError as exc:
            raise ConfigError(str(exc)) from None
    return compiled


def _set(data: Mapping[str, Any], read: Any, key: str) -> Any:
    """``read``'s value of ``key`` when the file sets it, else None (the other file's)."""
    return getattr(read, key) if data.get(key) is not None else None


def load_global_config(home: Path | None = None) -> GlobalConfig:
    home = home or serena_home()
    path = home / GLOBAL_CONFIG_NAME
    data = load_mapping(path, home=home)
    check_keys(data, path, GLOBAL_KEYS, SERENA_GLOBAL_KEYS, elsewhere="project")
    read = schema.checked(data, path, home)
    history_dir = read.memory_history_dir
    return GlobalConfig(
        memory_listing_budget=read.memory_listing_budget,
        read_only_memory_patterns=read.read_only_memory_patterns,
        ignored_memory_patterns=read.ignored_memory_patterns,
        base_modes=read.base_modes,
        default_modes=read.default_modes,
        default_max_tool_answer_chars=read.default_max_tool_answer_chars,
        allowed_memory_roots=_allowed_roots(read.allowed_memory_roots, path),
        project_serena_folder_location=read.project_serena_folder_location,
        memory_history=read.memory_history,
        # Only the user's own configuration may say where history goes: a project's file is
        # untrusted and must not choose a folder to write into.
        memory_history_dir=(
            None if history_dir is None else (path.parent / Path(history_dir).expanduser())
        ),
        memory_history_keep_days=read.memory_history_keep_days,
        memory_agent_writes=read.memory_agent_writes,
        path=path,
        sync=_sync_config(read, path),
    )


def _allowed_roots(folders: tuple[str, ...], path: Path) -> tuple[str, ...]:
    """``allowed_memory_roots``: folders that memory symlinks may lead into besides the
    project folder and ``$SERENA_HOME``, as real paths. Only the global configuration has
    this key: a project's own configuration is untrusted and could allow anything."""
    key = "allowed_memory_roots"
    roots = []
    for item in folders:
        folder = os.path.expanduser(item.strip())
        if not os.path.isabs(folder):
            raise ConfigError(
                f"{path}: key '{key}': {item!r} is not an absolute path; write the full path "
                "of the folder (or start it with ~/)"
            )
        real = os.path.realpath(folder)
        if real == os.path.dirname(real):
            raise ConfigError(
                f"{path}: key '{key}': {item!r} is the root of the file system, which would "
                "let memories lead anywhere; list the folders your memory links point into"
            )
        roots.append(real)
    return tuple(roots)


class SerenaFolder(NamedTuple):
    """Where a project's ``.serena`` folder is: ``anchor`` (a real, trusted folder: the
    project's, ``$SERENA_HOME`` or one of ``allowed_memory_roots``) and the ``parts`` that
    lead from it to the folder; ``roots`` are where links inside it may lead."""

    anchor: str
    parts: tuple[str, ...]
    roots: tuple[str, ...]

    @property
    def path(self) -> Path:
        return Path(self.anchor, *self.parts)


def serena_folder(
    project_root: Path, home: Path | None = None, config: GlobalConfig | None = None
) -> SerenaFolder:
    """The project's ``.serena`` folder as ``project_serena_folder_location`` places it
    (Serena's setting: ``$projectDir/.serena`` unless the person moved it). The global file
    is the person's own, but a place outside the allowed roots is refused all the same:
    memories are written there. ``config``: the global file, when the caller read it."""
    home = home or serena_home()
    config = config or load_global_config(home)
    project_real = os.path.realpath(project_root)
    template = config.project_serena_folder_location.strip()
    if template == DEFAULTS.project_serena_folder_location:
        return SerenaFolder(project_real, (".serena",), (project_real,))
    key = "project_serena_folder_location"
    text = template.replace("$projectDir", str(project_root))
    text = os.path.expanduser(text.replace("$projectFolderName", Path(project_real).name))
    if not os.path.isabs(text):
        raise ConfigError(
            f"{config.path}: key '{key}': {template!r} is not an absolute path; start it with "
            "$projectDir, ~/ or /"
        )
    real = os.path.realpath(text)
    roots = (project_real, os.path.realpath(home), *config.allowed_memory_roots)
    for root in roots:
        if real != root and (real + os.sep).startswith(root.rstrip(os.sep) + os.sep):
            parts = tuple(Path(os.path.relpath(real, root)).parts)
            return SerenaFolder(root, parts, (project_real, root, *config.allowed_memory_roots))
    raise ConfigError(
        f"{config.path}: key '{key}' puts the project's .serena folder at {real}, outside the "
        "project folder, $SERENA_HOME and allowed_memory_roots; add a folder above it to "
        "allowed_memory_roots if you trust it"
    )


def load_project_config(
    project_root: Path, home: Path | None = None, global_config: GlobalConfig | None = None
) -> ProjectConfig:
    """The project's own configuration: ``project.yml``, and ``project.local.yml`` beside it
    (Serena's file for one person's overrides, key by key). Both are untrusted (a cloned
    repository's files), so they are read through the path gate (regular files inside the
    project's ``.serena`` folder, at most :data:`~serena_memory.core.paths.
    MAX_CONFIG_BYTES`), and they can't widen what the gate allows. ``global_config``: the
    global file, when the caller read it."""
    folder = serena_folder(project_root, home, global_config)
    home = home or serena_home()
    path = folder.path / PROJECT_CONFIG_NAME
    data, read = _project_file(folder, PROJECT_CONFIG_NAME, home)
    local, _read = _project_file(folder, LOCAL_PROJECT_CONFIG_NAME, home)
    if local:  # the two merged, checked as one (without it, the project file's check holds)
        data = {**data, **{k: v for k, v in local.items() if v is not None}}
        read = schema.checked(data, path, home)
    return ProjectConfig(
        memory_listing_budget=_set(data, read, "memory_listing_budget"),
        read_only_memory_patterns=read.read_only_memory_patterns,
        ignored_memory_patterns=read.ignored_memory_patterns,
        initial_prompt=read.initial_prompt,
        project_name=read.project_name,
        default_modes=_set(data, read, "default_modes"),
        added_modes=read.added_modes,
        memory_history=_set(data, read, "memory_history"),
        memory_history_keep_days=_set(data, read, "memory_history_keep_days"),
        memory_agent_writes=_set(data, read, "memory_agent_writes"),
        path=path,
    )


def _project_file(folder: SerenaFolder, name: str, home: Path) -> tuple[dict[str, Any], Any]:
    """One of the project's configuration files and its settings, its keys and values
    checked (an absent or empty file has none to check)."""
    path = folder.path / name

    def read_file() -> bytes:
        from serena_memory.core import paths

        what = f"the project configuration {path}"
        scope = paths.Scope(folder.anchor, folder.parts, folder.roots, "the project folder", "")
        real = paths.resolve(scope, (name,), what)
        return paths.read_regular_file(real, folder.roots, what, paths.MAX_CONFIG_BYTES)

    data = load_mapping(path, read_file, home)
    if not data:
        return data, schema.DEFAULTS
    check_keys(data, path, PROJECT_KEYS, SERENA_PROJECT_KEYS, elsewhere="global")
    return data, schema.checked(data, path, home)


def load_settings(project_root: Path | None, home: Path | None = None) -> Settings:
    """Load and merge both files; the pattern lists are merged additively. The team's
    memories are read-only by a rule of their own (core/access.py)."""
    g = load_global_config(home)
    p = load_project_config(project_root, home, g) if project_root is not None else ProjectConfig()
    assert g.path is not None
    read_only = _compile(g.read_only_memory_patterns, "read_only_memory_patterns", g.path)
    ignored = _compile(g.ignored_memory_patterns, "ignored_memory_patterns", g.path)
    if p.path is not None:
        read_only += _compile(p.read_only_memory_patterns, "read_only_memory_patterns", p.path)
        ignored += _compile(p.ignored_memory_patterns, "ignored_memory_patterns", p.path)
    return Settings(
        global_config=g,
        project_config=p,
        patterns=Patterns(read_only=tuple(read_only), ignored=tuple(ignored)),
    )


def load_sync_config(home: Path | None = None) -> SyncConfig:
    home = home or serena_home()
    path = home / GLOBAL_CONFIG_NAME
    return _sync_config(schema.checked(load_mapping(path, home=home), path, home), path)


def _sync_config(read: Any, path: Path) -> SyncConfig:
    """Where memories are synced to, as the global file at ``path`` says (``read``)."""

    def url(value: str | None) -> str | None:
        return None if value is None else value.strip()

    project_remotes = {
        os.path.realpath(os.path.expanduser(str(folder))): value.strip()
        for folder, value in read.memory_sync_project_remotes.items()
        if value is not None
    }
    return SyncConfig(
        remote=url(read.memory_sync_remote),
        project_remotes=project_remotes,
        mode=read.memory_sync,
        team_remote=url(read.memory_sync_team_remote),
        team_topic=read.memory_sync_team_topic.strip().strip("/"),
        team_writable=read.memory_sync_team_writable,
        path=path,
    )


def set_global_key(home: Path | None, key: str, value: Any) -> Path:
    """Set one top-level key of the global configuration as a round-trip edit (ruamel.yaml):
    the person's comments, the order of the keys and the quoting stay as written. The
    result is parsed again before it replaces the file, so a file this can't edit without
    changing another setting is an error, never a damaged file."""
    import yaml

    path = (home or serena_home()) / GLOBAL_CONFIG_NAME
    try:
        old_text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        old_text = ""
    before = read_yaml_mapping(path) if old_text else {}
    block = yaml.safe_dump({key: value}, default_flow_style=False, allow_unicode=True)
    text = _edited(old_text, key, value, block)
    try:
        after = None if text is None else (yaml.safe_load(text) or {})
    except yaml.YAMLError:
        after = None
    if text is None or after != {**before, key: value}:
        raise ConfigError(
            f"{path}: can't set '{key}' without changing other settings; add "
            f"`{block.strip()}` to it by hand"
        )
    _replace_text(path, text)
    from serena_memory.core import operation

    opened = operation.CURRENT.get()
    if opened is not None:  # what the operation loaded before this write is stale now
        opened.forget_loaded()
    return path


def _edited(text: str, key: str, value: Any, block: str) -> str | None:
    """``text`` with its top-level ``key`` set to ``value`` (None: ruamel.yaml can't read
    it, e.g. a key written twice). ``block``: the key alone, as YAML, for a file that holds
    no mapping yet (only comments, or nothing)."""
    import io

    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError
    from ruamel.yaml.util import load_yaml_guess_indent

    editor = YAML()  # round trip: comments, order, quotes and flow style are kept
    editor.preserve_quotes = True
    editor.width = 4096  # never fold a long line the person wrote
    try:
        data, indent, dash_offset = load_yaml_guess_indent(text, yaml=editor)
    except YAMLError:
        return None
    if data is None:
        return text + ("" if not text or text.endswith("\n") else "\n") + block
    if not isinstance(data, dict):
        return None
    _indent_like(editor, data, indent, dash_offset)
    editor.explicit_start = text.lstrip().startswith("---")
    old = data.get(key)
    if isinstance(old, dict) and isinstance(value, dict) and hasattr(old, "lc"):
        _update_mapping(old, value, _comment_after(text, data, key, old))
    else:
        data[key] = value
    out = io.StringIO()
    editor.dump(data, out)
    return out.getvalue()


def _indent_like(editor: Any, data: Any, indent: int | None, dash_offset: int | None) -> None:
    """Indent as the file does: its nested mappings as the first one (its column, from
    ruamel.yaml's line and column record), its sequences as ruamel.yaml guessed them."""
    nested = [v for v in data.values() if isinstance(v, dict) and hasattr(v, "lc")]
    mapping_indent = nested[0].lc.col if nested else (indent if dash_offset is None else None)
    if dash_offset is None:
        editor.indent(mapping=mapping_indent or 2)
    else:
        editor.indent(mapping=mapping_indent or 2, sequence=indent, offset=dash_offset)


def _comment_after(text: str, data: Any, key: str, nested: Any) -> bool:
    """Whether full-line comments follow the last entry of ``key``'s mapping before the
    next top-level key: ruamel.yaml keeps them with that entry, so an entry appended after
    it would land below them, under a comment the person wrote about what follows."""
    if not nested:
        return False
    keys = list(data)
    after = keys.index(key) + 1
    lines = text.splitlines()
    end = data.lc.key(keys[after])[0] if after < len(keys) else len(lines)
    start = nested.lc.key(list(nested)[-1])[0] + 1
    return any(line.lstrip().startswith("#") for line in lines[start:end])


def _update_mapping(old: Any, new: dict[Any, Any], keep_last: bool) -> None:
    """Make the round-trip mapping ``old`` hold ``new``, entry by entry, so that the
    comments of the entries that stay are kept; with ``keep_last``, new entries go before
    the last one, which keeps the comments written below it."""
    for gone in [k for k in old if k not in new]:
        del old[gone]
    for k, v in new.items():
        if k in old:
            if old[k] != v:
                old[k] = v
        elif keep_last and old:
            old.insert(len(old) - 1, k, v)
        else:
            old[k] = v


def _replace_text(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path`` and move it over ``path``, so a
    reader sees the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
