"""The keys each configuration file may hold: Serena's files open as Serena wrote them, and
no setting of ours is mistyped in silence.

The files are shared with Serena (``serena-agent``), whose releases from 0.1 to 2.1 wrote
keys of their own in ``serena_config.yml``, ``project.yml`` and ``project.local.yml``; a
person's files and a cloned repository's must open as they are. So, for each file:

- a key we read there, or one a Serena release writes there, is taken without a word;
- one of our own settings in the other file, or a near-miss of one of our settings
  (``memory_agent_write`` for ``memory_agent_writes``), is an error naming the file, the
  key and what to write: a mistyped or misplaced safety setting must not pass in silence;
- any other key (a Serena key in the other file, a key of a later release, a typo of
  Serena's) is told once per process on stderr with the closest known key, and has no
  effect; it never stops a command or the server.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from serena_memory.core import settings_schema as schema
from serena_memory.core.errors import ConfigError
from serena_memory.core.process import PROCESS

GLOBAL_KEYS = schema.keys_in(schema.GLOBAL)
"""What serena-memory reads from ``$SERENA_HOME/serena_config.yml`` (its declaration)."""

PROJECT_KEYS = schema.keys_in(schema.PROJECT)
"""What serena-memory reads from ``<project>/.serena/project.yml``."""

MODE_KEYS = frozenset({"description", "prompt", "excluded_tools"})
"""What serena-memory reads from ``$SERENA_HOME/modes/NAME.yml``."""

# The keys Serena's releases keep in the same files, read from the templates each release
# ships (serena/resources/*.template.yml) and the keys its configuration classes load, for
# serena-agent 0.1.3, 0.1.4, 1.0.0, 1.1.2, 1.2.0, 1.3.0, 1.5.3, 1.6.1, 1.7.0, 2.0.0 and
# 2.1.0, and from the project files of real repositories. They configure Serena's language
# servers, dashboard and tools; here they have no effect (a few that concern memories are
# also ours: their rows in settings_schema say what they do).
_SERENA_BOTH = frozenset(
    {
        "agent_interface",
        "default_modes",
        "excluded_apis",
        "excluded_tools",
        "fixed_tools",
        "ignored_memory_patterns",
        "ignored_paths",
        "included_apis",
        "included_optional_tools",
        "language_backend",
        "line_ending",
        "ls_specific_settings",
        "read_only_memory_patterns",
        "symbol_info_budget",
    }
)
SERENA_GLOBAL_KEYS = _SERENA_BOTH | {
    "auth_secret",
    "base_modes",
    "default_max_tool_answer_chars",
    "edit_global_memories",
    "gui_log_level",
    "gui_log_window",
    "jetbrains",
    "jetbrains_launch_command",
    "jetbrains_plugin_server_address",
    "log_level",
    "ls_priorities",
    "project_serena_folder_location",
    "projects",
    "record_tool_usage_stats",
    "token_count_estimator",
    "tool_timeout",
    "trace_lsp_communication",
    "trusted_project_path_patterns",
    "web_dashboard",
    "web_dashboard_interface",
    "web_dashboard_listen_address",
    "web_dashboard_open_on_launch",
    "web_dashboard_port",
    "web_dashboard_trusted_hosts",
}
SERENA_PROJECT_KEYS = _SERENA_BOTH | {
    "activation_command",
    "activation_command_timeout",
    "added_modes",
    "additional_workspace_folders",  # 1.3 to 1.6; ls_additional_workspace_folders since
    "base_modes",  # 1.0's template; later releases ignore it there
    "encoding",
    "ignore_all_files_in_gitignore",
    "initial_prompt",
    "language",  # 0.1
    "language_servers",
    "languages",  # 1.0 to 1.6; language_servers since
    "ls_additional_workspace_folders",
    "ls_workspace_folders",
    "project_name",
    "project_root",
    "read_only",
}
SERENA_MODE_KEYS = frozenset(
    {"name", "excluded_apis", "fixed_tools", "included_apis", "included_optional_tools"}
)

_ELSEWHERE = {
    "global": (GLOBAL_KEYS, "serena_config.yml (in $SERENA_HOME)"),
    "project": (PROJECT_KEYS, "a project's .serena/project.yml"),
}
_SERENA_ELSEWHERE = {"global": SERENA_GLOBAL_KEYS, "project": SERENA_PROJECT_KEYS}
_NEAR_MISS = 0.85
"""How alike an unknown key and one of our settings must be to be taken for a typo of it
(``memory_agent_write`` and ``memory_agent_writes``: 0.97; ``root_path`` and any: < 0.6)."""


class _Told(set[tuple[str, str]]):
    """The (file, key) pairs already told in this process."""


def check_keys(
    data: Mapping[Any, Any],
    path: Path,
    ours: frozenset[str],
    theirs: frozenset[str],
    elsewhere: str | None = None,
    error: type[ConfigError] = ConfigError,
) -> None:
    """Refuse a key of ``data`` that is one of our settings misplaced or mistyped; tell
    once on stderr, without stopping, a key that is neither ``ours`` nor ``theirs``.
    ``elsewhere`` names the other configuration file ("global" or "project")."""
    for key in data:
        if key in ours or key in theirs:
            continue
        shown = key if isinstance(key, str) else repr(key)
        if elsewhere is not None and key in _ELSEWHERE[elsewhere][0]:
            raise error(
                f"{path}: key '{shown}' is read from {_ELSEWHERE[elsewhere][1]} only, so it "
                "has no effect here; move it there"
            )
        near = _closest(shown, ours, _NEAR_MISS)
        if near is not None:
            raise error(f"{path}: key '{shown}' is not a setting; did you mean '{near}'?")
        _tell_once(path, shown, theirs | ours, elsewhere)


def _tell_once(path: Path, key: str, known: frozenset[str], elsewhere: str | None) -> None:
    """One line on stderr for a key that has no effect (stdout may be the MCP transport)."""
    told = PROCESS.owned(_Told)
    if (str(path), key) in told:
        return
    told.add((str(path), key))
    from serena_memory.core.display import escape_line

    if elsewhere is not None and key in _SERENA_ELSEWHERE[elsewhere]:
        why = f"Serena reads it from {_ELSEWHERE[elsewhere][1]}"
    else:
        close = _closest(key, known, 0.6)
        hint = f"did you mean '{close}'?" if close else "see docs/reference/settings.md"
        why = f"neither serena-memory nor Serena reads it; {hint}"
    print(escape_line(f"Note: {path}: key '{key}' has no effect here ({why})"), file=sys.stderr)


def _closest(key: str, known: Iterable[str], cutoff: float) -> str | None:
    import difflib  # only for a key that is no setting: every command reads these files

    close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=cutoff)
    return close[0] if close else None
