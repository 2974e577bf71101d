"""Read-only exploration of the project's files, for clients without file tools of their
own. Every path is confined to the project folder (agent/exploration.py); answers larger
than the limit are refused with a hint on how to narrow the request."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

from pydantic import Field

from serena_memory.agent import exploration
from serena_memory.agent import tools as T
from serena_memory.mcp.state import ServerState
from serena_memory.mcp.tool_declaration import ToolDeclaration

MaxAnswerChars = Annotated[
    int,
    Field(
        description="Largest answer to return, in characters; -1 means the configured "
        "default (default_max_tool_answer_chars)."
    ),
]
SkipIgnored = Annotated[bool, Field(description="Leave out what .gitignore ignores.")]


def _root(state: ServerState) -> Path:
    return state.require_store().layout.project_root


def _answer(state: ServerState, data: object, max_answer_chars: int, hint: str) -> str:
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return exploration.check_answer_size(text, state.answer_limit(max_answer_chars), hint)


def list_dir(
    state: ServerState,
    relative_path: Annotated[
        str, Field(description="Folder relative to the project root; '.' for the root.")
    ],
    recursive: Annotated[bool, Field(description="Also list everything below.")],
    skip_ignored_files: SkipIgnored = True,
    max_answer_chars: MaxAnswerChars = -1,
) -> str:
    """List the folders and files of a project folder, optionally recursively. Returns JSON
    {"dirs": [...], "files": [...]} with paths relative to the project root."""
    data = exploration.list_dir(_root(state), relative_path, recursive, skip_ignored_files)
    return _answer(state, data, max_answer_chars, "list a subfolder or without recursion")


def find_file(
    state: ServerState,
    file_mask: Annotated[str, Field(description="File name or mask, e.g. '*.toml'.")],
    relative_path: Annotated[
        str, Field(description="Folder to search below; '.' for the whole project.")
    ],
    skip_ignored_files: SkipIgnored = True,
) -> str:
    """Find files whose name matches a mask (wildcards * and ?) below a project folder.
    Returns JSON {"files": [...]}."""
    data = exploration.find_file(_root(state), file_mask, relative_path, skip_ignored_files)
    return _answer(state, data, -1, "use a narrower mask or folder")


def search_for_pattern(
    state: ServerState,
    substring_pattern: Annotated[str, Field(description="Python regular expression.")],
    context_lines_before: Annotated[int, Field(description="Lines shown before a match.")] = 0,
    context_lines_after: Annotated[int, Field(description="Lines shown after a match.")] = 0,
    paths_include_glob: Annotated[
        str, Field(description="Only paths matching this glob, e.g. 'src/**/*.py'.")
    ] = "",
    paths_exclude_glob: Annotated[
        str, Field(description="Skip paths matching this glob (wins over include).")
    ] = "",
    relative_path: Annotated[
        str, Field(description="Only this file or folder (relative to the root).")
    ] = "",
    restrict_search_to_code_files: Annotated[
        bool, Field(description="Only source-code files (by extension).")
    ] = False,
    skip_ignored_files: SkipIgnored = True,
    multiline: Annotated[
        bool, Field(description="DOTALL and MULTILINE flags, so '.' also matches newlines.")
    ] = True,
    max_answer_chars: MaxAnswerChars = -1,
) -> str:
    """Search the project's text files for a regular expression. Returns JSON mapping each
    file to its matching lines as 'N:text' (context lines as 'N-text', '--' between
    groups). Narrow big searches with relative_path or paths_include_glob."""
    data = exploration.search_for_pattern(
        _root(state),
        substring_pattern,
        context_lines_before=context_lines_before,
        context_lines_after=context_lines_after,
        paths_include_glob=paths_include_glob,
        paths_exclude_glob=paths_exclude_glob,
        relative_path=relative_path,
        skip_ignored_files=skip_ignored_files,
        multiline=multiline,
        code_files_only=restrict_search_to_code_files,
    )
    hint = "use a more specific pattern, relative_path or a glob"
    return _answer(state, data, max_answer_chars, hint)


def read_file(
    state: ServerState,
    relative_path: Annotated[str, Field(description="File path relative to the project root.")],
    start_line: Annotated[
        int, Field(description="First line, 0-based; negative counts from the end.")
    ] = 0,
    end_line: Annotated[
        int | None, Field(description="Last line (inclusive); null for the end of the file.")
    ] = None,
    max_answer_chars: MaxAnswerChars = -1,
) -> str:
    """Read a text file of the project, whole or a range of lines (0-based, end inclusive).
    Also opens raw memory files by path, including ignored ones."""
    text = exploration.read_file(_root(state), relative_path, start_line, end_line)
    return _answer(state, text, max_answer_chars, "read a range of lines with start_line/end_line")


TOOLS = (
    ToolDeclaration(T.LIST_DIR, list_dir, read_only=True),
    ToolDeclaration(T.FIND_FILE, find_file, read_only=True),
    ToolDeclaration(T.SEARCH_FOR_PATTERN, search_for_pattern, read_only=True),
    ToolDeclaration(T.READ_FILE, read_file, read_only=True),
)
