"""Configuration: ``$SERENA_HOME/serena_config.yml`` and ``<project>/.serena/project.yml``.

A missing file means defaults. A broken one is a :class:`ConfigError` naming the file, the
key and the problem: a silently ignored read-only pattern would let an agent overwrite what
a person meant to protect.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from serena_memory.core.errors import ConfigError, PatternError
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
DEFAULT_MAX_CHARS = 150_000
DEFAULT_LISTING_BUDGET = 2_000  # tokens: what a list of memory names may cost the agent
AGENT_WRITE_MODES = ("direct", "propose", "read-only")
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


class GlobalConfig(NamedTuple):
    read_only_memory_patterns: tuple[str, ...] = ()
    ignored_memory_patterns: tuple[str, ...] = ()
    base_modes: tuple[str, ...] = ()
    default_max_tool_answer_chars: int = DEFAULT_MAX_CHARS
    allowed_memory_roots: tuple[str, ...] = ()  # real paths
    memory_listing_budget: int = DEFAULT_LISTING_BUDGET
    memory_history: bool = True
    memory_history_dir: Path | None = None  # None: $SERENA_HOME/history
    memory_history_keep_days: int = 0  # 0: keep every entry
    memory_agent_writes: str = "direct"
    path: Path | None = None


class ProjectConfig(NamedTuple):
    read_only_memory_patterns: tuple[str, ...] = ()
    ignored_memory_patterns: tuple[str, ...] = ()
    initial_prompt: str = ""
    project_name: str = ""
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


_cache: dict[Path, tuple[tuple[int, int], dict[str, Any]]] = {}


def load_mapping(path: Path, read: Callable[[], bytes] | None = None) -> dict[str, Any]:
    """Parse a YAML file into a mapping; missing file -> {}; cached by mtime and size.

    ``read`` reads the file's bytes when it is not cached (default: open it directly)."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    stamp = (st.st_mtime_ns, st.st_size)
    cached = _cache.get(path)
    if cached and cached[0] == stamp:
        return cached[1]
    data = read_yaml_mapping(path, raw=read() if read is not None else None)
    _cache[path] = (stamp, data)
    return data


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


def _type_name(value: Any) -> str:
    return {list: "a list", str: "a string", int: "a number", float: "a number"}.get(
        type(value), f"a {type(value).__name__}"
    )


def _string_list(data: dict[str, Any], key: str, path: Path) -> tuple[str, ...]:
    value = data.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        raise ConfigError(
            f"{path}: key '{key}': expected a list of strings, got a single string "
            f"(write it as [{value!r}])"
        )
    if not isinstance(value, list):
        raise ConfigError(
            f"{path}: key '{key}': expected a list of strings, got {_type_name(value)}"
        )
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise ConfigError(
                f"{path}: key '{key}': item {i + 1} must be a string, got {_type_name(item)}"
            )
    return tuple(value)


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


MIN_LISTING_BUDGET = 500  # below this, the hint and one long name would not fit


def _listing_budget(data: dict[str, Any], path: Path) -> int | None:
    value = data.get("memory_listing_budget")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < MIN_LISTING_BUDGET:
        raise ConfigError(
            f"{path}: key 'memory_listing_budget': expected a whole number of tokens, at "
            f"least {MIN_LISTING_BUDGET}, got {value!r}"
        )
    return value


def _agent_writes(data: dict[str, Any], path: Path) -> str | None:
    value = data.get("memory_agent_writes")
    if value is None:
        return None
    if value not in AGENT_WRITE_MODES:
        raise ConfigError(
            f"{path}: key 'memory_agent_writes': expected direct, propose or read-only, "
            f"got {value!r}"
        )
    return str(value)


def load_global_config(home: Path | None = None) -> GlobalConfig:
    path = (home or serena_home()) / GLOBAL_CONFIG_NAME
    data = load_mapping(path)
    check_keys(data, path, GLOBAL_KEYS, SERENA_GLOBAL_KEYS, elsewhere="project")
    max_chars = data.get("default_max_tool_answer_chars", DEFAULT_MAX_CHARS)
    if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars <= 0:
        raise ConfigError(
            f"{path}: key 'default_max_tool_answer_chars': expected a positive whole number, "
            f"got {max_chars!r}"
        )
    history_dir = data.get("memory_history_dir")
    if history_dir is not None and (not isinstance(history_dir, str) or not history_dir.strip()):
        raise ConfigError(
            f"{path}: key 'memory_history_dir': expected the path of a folder, got "
            f"{_type_name(history_dir)}"
        )
    keep_days = _keep_days(data, path)
    return GlobalConfig(
        memory_listing_budget=_listing_budget(data, path) or DEFAULT_LISTING_BUDGET,
        read_only_memory_patterns=_string_list(data, "read_only_memory_patterns", path),
        ignored_memory_patterns=_string_list(data, "ignored_memory_patterns", path),
        base_modes=_string_list(data, "base_modes", path),
        default_max_tool_answer_chars=max_chars,
        allowed_memory_roots=_allowed_roots(data, path),
        memory_history=_flag(data, "memory_history", path, True),
        # Only the user's own configuration may say where history goes: a project's file is
        # untrusted and must not choose a folder to write into.
        memory_history_dir=(
            None if history_dir is None else (path.parent / Path(history_dir).expanduser())
        ),
        memory_history_keep_days=0 if keep_days is None else keep_days,
        memory_agent_writes=_agent_writes(data, path) or "direct",
        path=path,
    )


def _allowed_roots(data: dict[str, Any], path: Path) -> tuple[str, ...]:
    """``allowed_memory_roots``: folders that memory symlinks may lead into besides the
    project folder and ``$SERENA_HOME``. Only the global configuration has this key: a
    project's own configuration is untrusted and could allow anything."""
    key = "allowed_memory_roots"
    roots = []
    for item in _string_list(data, key, path):
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


def _flag(data: dict[str, Any], key: str, path: Path, default: Any) -> Any:
    value = data.get(key, default)
    if value is not default and not isinstance(value, bool):
        raise ConfigError(f"{path}: key '{key}': expected true or false, got {_type_name(value)}")
    return value


def _keep_days(data: dict[str, Any], path: Path) -> int | None:
    value = data.get("memory_history_keep_days")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(
            f"{path}: key 'memory_history_keep_days': expected a whole number of days "
            f"(0 keeps everything), got {value!r}"
        )
    return value


def load_project_config(project_root: Path) -> ProjectConfig:
    """The project's own configuration: untrusted (a cloned repository's file), so it is
    read through the path gate (a regular file inside the project, at most
    :data:`~serena_memory.core.paths.MAX_CONFIG_BYTES`), and it can't widen what the gate
    allows."""
    path = project_root / ".serena" / PROJECT_CONFIG_NAME

    def read() -> bytes:
        from serena_memory.core import paths

        root = os.path.realpath(project_root)
        what = f"the project configuration {path}"
        scope = paths.Scope(root, (".serena",), (root,), "the project folder", "")
        real = paths.resolve(scope, (PROJECT_CONFIG_NAME,), what)
        return paths.read_regular_file(real, (root,), what, paths.MAX_CONFIG_BYTES)

    data = load_mapping(path, read)
    check_keys(data, path, PROJECT_KEYS, SERENA_PROJECT_KEYS, elsewhere="global")
    prompt = data.get("initial_prompt") or ""
    if not isinstance(prompt, str):
        raise ConfigError(
            f"{path}: key 'initial_prompt': expected a string, got {_type_name(prompt)}"
        )
    name = data.get("project_name") or ""
    if not isinstance(name, str):
        raise ConfigError(f"{path}: key 'project_name': expected a string, got {_type_name(name)}")
    return ProjectConfig(
        memory_listing_budget=_listing_budget(data, path),
        read_only_memory_patterns=_string_list(data, "read_only_memory_patterns", path),
        ignored_memory_patterns=_string_list(data, "ignored_memory_patterns", path),
        initial_prompt=prompt,
        project_name=name,
        memory_history=_flag(data, "memory_history", path, None),
        memory_history_keep_days=_keep_days(data, path),
        memory_agent_writes=_agent_writes(data, path),
        path=path,
    )


def load_settings(project_root: Path | None, home: Path | None = None) -> Settings:
    """Load and merge both files; the pattern lists are merged additively. The team's
    memories are read-only by a rule of their own (core/access.py)."""
    g = load_global_config(home)
    p = load_project_config(project_root) if project_root is not None else ProjectConfig()
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


# -- sync (sync/) -----------------------------------------------------------------------------
SYNC_MODES = ("manual", "auto")


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


def load_sync_config(home: Path | None = None) -> SyncConfig:
    path = (home or serena_home()) / GLOBAL_CONFIG_NAME
    data = load_mapping(path)

    def url(key: str, value: Any) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(
                f"{path}: key '{key}': expected the URL of a git repository, got "
                f"{_type_name(value)}"
            )
        return value.strip()

    projects = data.get("memory_sync_project_remotes") or {}
    if not isinstance(projects, dict):
        raise ConfigError(
            f"{path}: key 'memory_sync_project_remotes': expected a mapping of project "
            f"folders to URLs, got {_type_name(projects)}"
        )
    project_remotes = {}
    for folder, value in projects.items():
        checked = url("memory_sync_project_remotes", value)
        if checked is not None:
            project_remotes[os.path.realpath(os.path.expanduser(str(folder)))] = checked
    mode = data.get("memory_sync", "manual")
    if mode not in SYNC_MODES:
        raise ConfigError(f"{path}: key 'memory_sync': expected manual or auto, got {mode!r}")
    topic = data.get("memory_sync_team_topic", "team")
    if not isinstance(topic, str) or not topic.strip() or "/" in topic.strip("/"):
        raise ConfigError(
            f"{path}: key 'memory_sync_team_topic': expected one topic name, got {topic!r}"
        )
    return SyncConfig(
        remote=url("memory_sync_remote", data.get("memory_sync_remote")),
        project_remotes=project_remotes,
        mode=mode,
        team_remote=url("memory_sync_team_remote", data.get("memory_sync_team_remote")),
        team_topic=topic.strip().strip("/"),
        team_writable=_flag(data, "memory_sync_team_writable", path, False),
        path=path,
    )


def set_global_key(home: Path | None, key: str, value: Any) -> Path:
    """Set one top-level key of the global configuration, keeping every other line (and
    the person's comments) as written; the result is parsed again before it replaces the
    file, so a layout this can't edit safely is an error, never a damaged file."""
    import yaml

    path = (home or serena_home()) / GLOBAL_CONFIG_NAME
    try:
        old_text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        old_text = ""
    before = read_yaml_mapping(path) if old_text else {}
    block = yaml.safe_dump({key: value}, default_flow_style=False, allow_unicode=True)
    text = _with_block(old_text, key, block)
    try:
        after = yaml.safe_load(text) or {}
    except yaml.YAMLError:
        after = None
    expected = {**before, key: value}
    if after != expected:
        raise ConfigError(
            f"{path}: can't set '{key}' without changing other settings; add "
            f"`{block.strip()}` to it by hand"
        )
    _replace_text(path, text)
    from serena_memory.core import operation

    opened = operation.current()
    if opened is not None:  # what the operation loaded before this write is stale now
        opened.forget_loaded()
    return path


def _with_block(text: str, key: str, block: str) -> str:
    """``text`` with the top-level ``key``'s lines replaced by ``block`` (appended when the
    key is not there); the blank lines after the old block stay."""
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.startswith(f"{key}:")), None)
    if start is None:
        return text + ("" if not text or text.endswith("\n") else "\n") + block
    end = start + 1
    while end < len(lines) and (lines[end][:1] in (" ", "\t", "-") or not lines[end].strip()):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return "".join(lines[:start]) + block + "".join(lines[end:])


def _replace_text(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path`` and move it over ``path``, so a
    reader sees the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
