"""The keys each configuration file may hold, so that none is ignored in silence.

A misspelled key (``memory_agent_write: propose``) used to pass without a word while the
person believed review mode was on. Every key of ``serena_config.yml``, ``project.yml`` and
a mode file is therefore one we read, one that Serena's own tools read from the same file
(the layout is shared, so a person's existing files keep working), or an error that names
the file, the key and the closest key we know.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from serena_memory.core import settings_schema as schema
from serena_memory.core.errors import ConfigError

GLOBAL_KEYS = schema.keys_in(schema.GLOBAL)
"""What serena-memory reads from ``$SERENA_HOME/serena_config.yml`` (its declaration)."""

PROJECT_KEYS = schema.keys_in(schema.PROJECT)
"""What serena-memory reads from ``<project>/.serena/project.yml``."""

MODE_KEYS = frozenset({"description", "prompt", "excluded_tools"})
"""What serena-memory reads from ``$SERENA_HOME/modes/NAME.yml``."""

# Keys that Serena's own tools keep in the same files (its templates and the files its
# earlier releases wrote). They configure its language servers, dashboard and tools, which
# serena-memory does not have, so they are accepted and have no effect here.
_SERENA_SHARED = frozenset(
    {
        "agent_interface",
        "default_modes",
        "excluded_apis",
        "excluded_tools",
        "fixed_tools",
        "ignored_paths",
        "included_apis",
        "included_optional_tools",
        "language_backend",
        "line_ending",
        "ls_specific_settings",
        "symbol_info_budget",
    }
)
SERENA_GLOBAL_KEYS = _SERENA_SHARED | {
    "auth_secret",
    "gui_log_level",
    "gui_log_window",
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
SERENA_PROJECT_KEYS = _SERENA_SHARED | {
    "activation_command",
    "activation_command_timeout",
    "added_modes",
    "encoding",
    "ignore_all_files_in_gitignore",
    "language",
    "languages",
    "language_servers",
    "ls_additional_workspace_folders",
    "ls_workspace_folders",
    "read_only",
}
SERENA_MODE_KEYS = frozenset(
    {"name", "excluded_apis", "fixed_tools", "included_apis", "included_optional_tools"}
)

_ELSEWHERE = {
    "global": (GLOBAL_KEYS, "serena_config.yml (in $SERENA_HOME)"),
    "project": (PROJECT_KEYS, "a project's .serena/project.yml"),
}


def check_keys(
    data: Mapping[Any, Any],
    path: Path,
    ours: frozenset[str],
    theirs: frozenset[str],
    elsewhere: str | None = None,
    error: type[ConfigError] = ConfigError,
) -> None:
    """Refuse the first key of ``data`` that is neither ``ours`` nor ``theirs``, naming the
    file, the key and the closest known key. ``elsewhere`` names the other configuration
    file ("global" or "project") whose keys, written here, are told to belong there."""
    for key in data:
        if key in ours or key in theirs:
            continue
        shown = key if isinstance(key, str) else repr(key)
        if elsewhere is not None and key in _ELSEWHERE[elsewhere][0]:
            raise error(
                f"{path}: key '{shown}' is read from {_ELSEWHERE[elsewhere][1]} only, so it "
                "has no effect here; move it there"
            )
        raise error(f"{path}: key '{shown}' is not a setting{_closest(shown, ours)}")


def _closest(key: str, known: Iterable[str]) -> str:
    import difflib  # only for a key that is no setting: every command reads these files

    close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6)
    if close:
        return f"; did you mean '{close[0]}'?"
    return "; the settings are listed in docs/reference/settings.md"
