"""The MCP tools by name: every tool once, with the group it belongs to.

The agent layer words its prompts with these names and the modes switch tools off by
group; the MCP server declares each tool's function against its entry here (and refuses a
function whose name differs), so a tool renamed or added in one place can't be missing
from the others. Plain data: importing it costs nothing and needs nothing of the SDK.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Group(StrEnum):
    MEMORY = "memory"  # reading and changing memories
    SEARCH = "search"  # finding memories by subject
    HISTORY = "history"  # a memory's recorded changes and restoring them
    ONBOARDING = "onboarding"  # writing a project's first memories
    PROJECT = "project"  # which project is active and what the agent is told about it
    EXPLORATION = "exploration"  # read-only views of the project's files


@dataclass(frozen=True)
class Tool:
    name: str
    group: Group

    @property
    def title(self) -> str:
        """What a client shows a person instead of the name."""
        return self.name.replace("_", " ").capitalize()

    def __str__(self) -> str:  # so prompts can say f"`{READ_MEMORY}`"
        return self.name


LIST_MEMORIES = Tool("list_memories", Group.MEMORY)
READ_MEMORY = Tool("read_memory", Group.MEMORY)
WRITE_MEMORY = Tool("write_memory", Group.MEMORY)
EDIT_MEMORY = Tool("edit_memory", Group.MEMORY)
DELETE_MEMORY = Tool("delete_memory", Group.MEMORY)
RENAME_MEMORY = Tool("rename_memory", Group.MEMORY)
SEARCH_MEMORIES = Tool("search_memories", Group.SEARCH)
MEMORY_HISTORY = Tool("memory_history", Group.HISTORY)
RESTORE_MEMORY = Tool("restore_memory", Group.HISTORY)
ONBOARDING = Tool("onboarding", Group.ONBOARDING)
CHECK_ONBOARDING_PERFORMED = Tool("check_onboarding_performed", Group.ONBOARDING)
INITIAL_INSTRUCTIONS = Tool("initial_instructions", Group.PROJECT)
ACTIVATE_PROJECT = Tool("activate_project", Group.PROJECT)
LIST_DIR = Tool("list_dir", Group.EXPLORATION)
FIND_FILE = Tool("find_file", Group.EXPLORATION)
SEARCH_FOR_PATTERN = Tool("search_for_pattern", Group.EXPLORATION)
READ_FILE = Tool("read_file", Group.EXPLORATION)

REGISTRY: tuple[Tool, ...] = (
    LIST_MEMORIES,
    READ_MEMORY,
    WRITE_MEMORY,
    EDIT_MEMORY,
    DELETE_MEMORY,
    RENAME_MEMORY,
    SEARCH_MEMORIES,
    MEMORY_HISTORY,
    RESTORE_MEMORY,
    ONBOARDING,
    CHECK_ONBOARDING_PERFORMED,
    INITIAL_INSTRUCTIONS,
    ACTIVATE_PROJECT,
    LIST_DIR,
    FIND_FILE,
    SEARCH_FOR_PATTERN,
    READ_FILE,
)
BY_NAME: dict[str, Tool] = {tool.name: tool for tool in REGISTRY}


def names_in(*groups: Group) -> tuple[str, ...]:
    """The names of the tools of these groups, in the registry's order."""
    return tuple(tool.name for tool in REGISTRY if tool.group in groups)


def all_names() -> tuple[str, ...]:
    return tuple(BY_NAME)
