"""What the agent is told: the activation message (progressive disclosure) and onboarding.

Progressive disclosure means the agent gets every memory *name* up front and nothing
else; it decides what to read. Onboarding is the one-off job of writing the first
memories of a project; its status is answered from what is on disk, so an agent that
stopped half-way is told what is left.
"""

from __future__ import annotations

import platform
from dataclasses import dataclass, field

from serena_memory.agent import tools as T
from serena_memory.agent.maintenance import (
    GLOBAL_MAINTENANCE_NAME,
    MAINTENANCE_NAME,
    SeedResult,
    seed_maintenance,
)
from serena_memory.core import names as N
from serena_memory.core.store import MemoryStore
from serena_memory.integrity.code_drift.git import GitUnavailable, run_git

CORE = "core"
ONBOARDING_MEMORY_BUDGET = 2000
"""Characters each onboarding memory should stay under: a later session reads them all
before its task, so together they must cost less than the files they spare it reading."""
SMALL_MEMORY_BUDGET = 1000
"""The budget of a small project's memories: its code is quick to read, so memories as long
as a large project's cost a later session about what they spare it (measured with a model
in the loop: docs/agent-evaluation.md)."""
CODE_BYTES_PER_MEMORY_CHAR = 100
"""Source bytes per character of budget between the two: 100 KB of code or less gets the
small budget, 200 KB or more the full one."""


def memory_budget(code_bytes: int) -> int:
    """The characters each onboarding memory of a project with ``code_bytes`` of source
    should stay under, rounded to a hundred."""
    scaled = code_bytes // CODE_BYTES_PER_MEMORY_CHAR
    return max(SMALL_MEMORY_BUDGET, min(ONBOARDING_MEMORY_BUDGET, scaled // 100 * 100))


TARGET_MEMORIES: tuple[str, ...] = (
    "core",
    "tech_stack",
    "suggested_commands",
    "conventions",
    "task_completion",
)


def host_os() -> str:
    """The host OS as a person names it, for commands whose form differs per system."""
    system = platform.system()
    return {"Darwin": "macOS", "": "an unknown operating system"}.get(system, system)


def onboarding_needed(store: MemoryStore) -> bool:
    """No project memory other than the seeded maintenance memory means no onboarding yet."""
    return all(name == MAINTENANCE_NAME for name in store.scan(scopes="project").files)


@dataclass
class OnboardingStatus:
    present: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    module_cores: list[str] = field(default_factory=list)
    other_memories: int = 0
    maintenance: str | None = None  # the memory_maintenance in force, if any
    proposed: list[str] = field(default_factory=list)  # missing, but a proposal creates it

    @property
    def done(self) -> bool:
        return not self.missing

    def to_dict(self) -> dict[str, object]:
        return {
            "performed": self.done,
            "present": self.present,
            "missing": self.missing,
            "module_cores": self.module_cores,
            "proposed": self.proposed,
        }

    def finished(self) -> str:
        """What exists once onboarding is done, without where to start (the agent that just
        wrote the memories needs no reading advice)."""
        text = "Onboarding has been performed: " + _code_list(self.present) + " all exist."
        if self.module_cores:
            text += " Module entry points: " + _code_list(self.module_cores) + "."
        return text

    def describe(self) -> str:
        if self.done:
            return self.finished() + " Read `mem:core` to start."
        if self.proposed:
            return self._awaiting_review()
        if not self.present and not self.other_memories:
            return (
                "Onboarding has not been performed: none of "
                + _code_list(self.missing)
                + f" exists yet. Call the `{T.ONBOARDING}` tool (again, if it was called before) "
                "and follow its instructions."
            )
        text = "Onboarding is incomplete. "
        if self.present:
            text += "Written: " + _code_list(self.present) + ". "
        if self.maintenance:
            guide = f"following `mem:{self.maintenance}`"
        else:
            guide = f"after calling `{T.ONBOARDING}` for the conventions"
        return (
            text
            + "Still missing: "
            + _code_list(self.missing)
            + f". Write them with `{T.WRITE_MEMORY}`, {guide}, to finish the onboarding."
        )

    def _awaiting_review(self) -> str:
        """Proposed memories are written, from the agent's side: calling onboarding again
        would not bring them; the user's review does."""
        text = (
            "Onboarding awaits the user's review: your proposals for "
            + _code_list(self.proposed)
            + " are pending, and they count once the user accepts them "
            "(`serena memories review`)."
        )
        left = [n for n in self.missing if n not in self.proposed]
        if not left:
            return text + " Nothing is left to write: tell the user to review them."
        return (
            text
            + " Still to write: "
            + _code_list(left)
            + f", with `{T.WRITE_MEMORY}`, to finish the onboarding."
        )


def _code_list(names: list[str]) -> str:
    return ", ".join(f"`mem:{n}`" for n in names)


def _proposed(store: MemoryStore, missing: list[str]) -> list[str]:
    """The missing target memories that a pending proposal of review mode would create."""
    from serena_memory.core import proposals as P

    if not missing or store.access().agent_writes != P.PROPOSE:
        return []
    found, _ = P.pending(store)
    creates = {p.memory for p in found if p.text is not None}
    return [name for name in missing if name in creates]


def onboarding_status(store: MemoryStore) -> OnboardingStatus:
    """Which target memories exist in the project (ignored ones don't count)."""
    status = OnboardingStatus()
    project_names = [n for n in store.scan().files if not N.is_global(n)]
    existing = set(project_names)
    for name in TARGET_MEMORIES:
        (status.present if name in existing else status.missing).append(name)
    status.module_cores = sorted(n for n in existing if n.endswith("/" + CORE))
    status.other_memories = len(existing - set(TARGET_MEMORIES) - {MAINTENANCE_NAME})
    status.proposed = _proposed(store, status.missing)
    for candidate in (GLOBAL_MAINTENANCE_NAME, MAINTENANCE_NAME):
        if store.exists(candidate):
            status.maintenance = candidate
            break
    return status


# when to onboard: not in the way of a question, never forgotten
ONBOARDING_PENDING = (
    "Onboarding has not been performed for this project: `{onboarding}` studies it and "
    "writes the first memories later sessions start from. Do it before changing anything; "
    "answer a question the user asked first, and if you don't onboard now, offer it at the "
    "end."
)


# -- the activation message ---------------------------------------------------------------------
def activation_message(
    store: MemoryStore,
    *,
    memory_tools: bool = True,
    onboarding_tool: bool = True,
    search_tool: bool = True,
    mode_prompts: list[str] | None = None,
) -> str:
    """Everything the agent is told when a project becomes active: the memory names (not
    their content), how to use them, and the project's own ``initial_prompt``."""
    settings = store.settings
    name = settings.project_config.project_name or store.layout.project_root.name
    parts = [f"Active project: '{name}' at {store.layout.project_root}."]
    if memory_tools:
        parts.append(memory_overview(store, search_tool=search_tool))
        from serena_memory.integrity.code_drift.drifted_memories import drift_summary

        drift = drift_summary(store)
        if drift:
            parts.append(drift)
        if onboarding_tool and onboarding_needed(store):
            parts.append(ONBOARDING_PENDING.format(onboarding=T.ONBOARDING) + _importable(store))
        from serena_memory.agent.proposal_views import activation_line

        review = activation_line(store)
        if review:
            parts.append(review)
    for prompt in mode_prompts or []:
        if prompt:
            parts.append(prompt)
    initial = settings.project_config.initial_prompt.strip()
    if initial:
        parts.append("Instructions for this project (initial_prompt in project.yml):\n" + initial)
    return "\n\n".join(parts)


def _importable(store: MemoryStore) -> str:
    """The memory sources of other tools the project holds, which the onboarding can start
    from (a person imports them with `serena memories import`)."""
    from serena_memory.transfer.formats import detect

    # only what lies inside the project: never a source reached through a link out of
    # it, nor one of the home folder (the agent's tools can't read those either)
    found = [f for f in detect(store.layout.project_root) if f.in_project and not f.refused]
    if not found:
        return ""
    root = store.layout.project_root
    listed = ", ".join(f"`{(f.file or f.path).relative_to(root).as_posix()}`" for f in found)
    return (
        f" The project already holds notes for other agents ({listed}): read them before "
        "onboarding, and tell the user that `serena memories import auto` turns them into "
        "memories."
    )


def memory_overview(store: MemoryStore, *, search_tool: bool = True) -> str:
    """The names of every visible memory, project and global apart, read-only marked;
    over the listing budget, the top-level names and the topics with their counts."""
    from serena_memory.agent.listing import listing_text_lines, plan_listing

    listing = store.list()
    if not listing.all:
        return (
            "There are no memories yet (Markdown notes kept across sessions, written with "
            f"`{T.WRITE_MEMORY}`)."
        )
    intro = "Memories: Markdown notes kept across sessions, none loaded for you. "
    # each memory read costs what the file it spares would: only those the task needs
    plain = f"Read with `{T.READ_MEMORY}` those whose names fit the task, no others."
    from_core = (
        f"Start from `mem:core`; read another with `{T.READ_MEMORY}` only when the task "
        "needs what it holds."
    )

    def render(view) -> str:
        read_only = view.read_only
        lines = [intro + (from_core if CORE in view.names else plain)]
        if not view.complete:
            lines.extend(listing_text_lines(view, search_tool))
        else:
            project = [n for n in view.names if not N.is_global(n)]
            global_ = [n for n in view.names if N.is_global(n)]
            for title, group in (
                ("Project memories", project),
                ("Global memories, shared by all projects", global_),
            ):
                if group:
                    lines.append(f"{title} ({len(group)}):")
                    lines.extend(
                        f"- {n}" + (" (read-only)" if n in read_only else "") for n in group
                    )
        if read_only:
            lines.append("Memories marked read-only can be read but not changed.")
        return "\n".join(lines)

    text = render(plan_listing(listing, "", store.settings.listing_budget, render))
    return "\n".join([text, *_sync_conflicts(store)])


def _sync_conflicts(store: MemoryStore) -> list[str]:
    """Memories a sync left with another machine's text kept aside: the agent should know
    the memory may not say everything, and that a person settles it."""
    from serena_memory.sync.conflicts import conflicts

    names = [c.name for c in conflicts(store)]
    if not names:
        return []
    return [
        f"Unresolved sync conflicts ({len(names)}): "
        + ", ".join(f"`{n}`" for n in names)
        + ". Another machine changed the same lines; its text is kept aside until the user "
        "resolves it (`serena memories conflicts`), so these memories may be missing what "
        "was written there. Mention it to the user when one of them matters to the task."
    ]


# -- onboarding -----------------------------------------------------------------------------------
COMMITTED_FOLDER = ".serena/memories"
_FIRST_INTRO = (
    "Onboarding: this project has no memories yet. Learn what a newcomer needs to "
    "know about it and store that as memories, so later sessions start from it "
    "instead of rediscovering it."
)
_RESUMED_INTRO = (
    "Onboarding was started before: {present} {exist} already. Read {them}, then write the "
    "missing ones: {missing}."
)
_KEPT_INTRO = (
    "Onboarding: this project keeps {count} memories already, none of them the onboarding "
    "set. List them with `{list_memories}` and read those that cover the same ground "
    "first; then write {missing}, referring to what they hold (`mem:NAME`) rather than "
    "repeating it."
)
_LOOK_WITH_TOOLS = (
    "Explore with `{list_dir}`, `{find_file}`, `{search_for_pattern}` and `{read_file}`."
)
_LOOK_WITHOUT_TOOLS = "Explore with your own file tools."
_WHAT_IS_LEFT_TOOL = "`{check_onboarding_performed}` says which are still missing."
_WHAT_IS_LEFT_AGAIN = "Calling `{onboarding}` again says which are still missing."
# only where the host changes how commands are written
_HOST_COMMANDS = {
    "Windows": " The host is Windows: where a command is written differently there (a "
    "virtual environment's activation, paths, shell built-ins), give the Windows form too.",
}
TELL_THE_USER = (
    "Then tell the user, in a few lines, which memories you wrote and what each holds; "
    "that `{committed}` is meant to be committed with the project, so that everyone who "
    "clones it (and every later session) starts from them, while nothing else of "
    "`.serena/` needs to be; and that `serena memories check`, run in the project folder, "
    "checks the references between the memories."
)
# the brief's numbered steps; {names} are filled in by onboarding_instructions
_STEPS = (
    "1. First read `mem:{seed}` with `{read_memory}`. It sets the conventions every "
    "memory follows (names and topics, `mem:NAME` references in backticks, the dense "
    "note style, what is worth writing down). Follow it for everything below.",
    "2. {look} Read only what you need: build and package files, the README, the "
    "contributor docs, the task runner and CI files, the entry points, a test or two; not "
    "whole trees. Start from the facts detected below and check them against those files. "
    "If something essential can't be found, ask the user.",
    "3. Write these memories with `{write_memory}`, one call each, each under "
    "{budget:,} characters in all (a later session reads them before its task: each line should "
    "spare it reading a file), each opening with a one-line summary as front matter "
    "(`---`, `summary: what it holds, for whom`, `---`; in quotes if it holds `: `): "
    "listings show it after the name:\n"
    "   - `mem:core`: the entry point, read at the start of every task, so that most "
    "tasks need no other memory: what the project is, a map of its source tree, the "
    "invariants that hold everywhere, the everyday commands (tests, one test, lint and "
    "format, type check) and what to run before a task is done, one line each; then each "
    'other memory with the task that needs it (not "before writing code"), and the '
    "line: before adding, splitting or deleting memories, read `mem:{seed}`.\n"
    "   - `mem:tech_stack`: languages, frameworks, build tool, package manager, and the "
    "versions that matter.\n"
    "   - `mem:suggested_commands`: every command contributors run here (set up, test, "
    "lint, format, type check, build, run, their useful variants), as the project's own "
    "task runners, docs and CI write them; not release, publish or deploy steps.{host}\n"
    "   - `mem:conventions`: code style, naming, typing, docstrings, error handling and "
    "the design patterns this codebase uses; for the change made most often here (a new "
    "function, command, endpoint, locale...), every place it touches (each file, and the "
    "export list, registry, docs table or test file it joins there), so that a later task "
    "goes straight to them.\n"
    "   - `mem:task_completion`: what a task needs before it counts as done, in order "
    "(formatter, linter, type checker, tests, docs or changelog), with what to do when a "
    "step fails.\n"
    "   - If the project has clearly distinct modules (say a frontend and a backend): "
    "one `mem:<module>/core` per module with what is specific to it, referenced from "
    "`mem:core`, rather than one overloaded `mem:core`.",
    "4. The onboarding is done only when these memories exist on disk. A summary in "
    "the chat is not a memory: call `{write_memory}`. {what_is_left}",
    "5. {tell}",
)
_BRIEF = (
    "{intro}\n\n{steps}\n\n"
    "Facts detected from the project files (verify before relying on them):\n{facts}\n"
)


def onboarding_instructions(
    seed: SeedResult,
    fact_sheet: str,
    *,
    status: OnboardingStatus | None = None,
    os_name: str | None = None,
    exploration_tools: bool = True,
    status_tool: bool = True,
    budget: int = ONBOARDING_MEMORY_BUDGET,
) -> str:
    """Our onboarding brief: what to write, in which order, and when the job is done;
    ``budget``: the characters each memory should stay under (:func:`memory_budget`)."""
    os_name = os_name or host_os()
    if status is not None and status.present:
        missing = _code_list(status.missing) if status.missing else "none (only check them)"
        exist, them = ("exists", "it") if len(status.present) == 1 else ("exist", "them")
        intro = _RESUMED_INTRO.format(
            present=_code_list(status.present), exist=exist, them=them, missing=missing
        )
    elif status is not None and status.other_memories:  # a Serena project of its own kind
        intro = _KEPT_INTRO.format(
            count=status.other_memories,
            list_memories=T.LIST_MEMORIES,
            missing=_code_list(status.missing),
        )
    else:
        intro = _FIRST_INTRO
    tools = {
        "list_dir": T.LIST_DIR,
        "find_file": T.FIND_FILE,
        "search_for_pattern": T.SEARCH_FOR_PATTERN,
        "read_file": T.READ_FILE,
        "read_memory": T.READ_MEMORY,
        "write_memory": T.WRITE_MEMORY,
        "check_onboarding_performed": T.CHECK_ONBOARDING_PERFORMED,
        "onboarding": T.ONBOARDING,
    }
    look = _LOOK_WITH_TOOLS.format(**tools) if exploration_tools else _LOOK_WITHOUT_TOOLS
    left = (_WHAT_IS_LEFT_TOOL if status_tool else _WHAT_IS_LEFT_AGAIN).format(**tools)
    steps = [
        step.format(
            seed=seed.name,
            look=look,
            host=_HOST_COMMANDS.get(os_name, ""),
            budget=budget,
            what_is_left=left,
            tell=TELL_THE_USER.format(committed=COMMITTED_FOLDER),
            **tools,
        )
        for step in _STEPS
    ]
    return _BRIEF.format(intro=intro, steps="\n".join(steps), facts=fact_sheet)


def ignored_memories_note(store: MemoryStore) -> str:
    """The onboarding's memories are meant to be committed: when the project's ignore
    rules leave them out (an allow-list ``.gitignore`` does), a commit silently keeps them
    on this machine only, so the agent is asked to tell the user; empty otherwise."""
    root = store.layout.project_root
    try:
        probe = (store.layout.memories_dir / "core.md").relative_to(root).as_posix()
        out = run_git(
            str(root),
            *("check-ignore", "-z", "--stdin", "--verbose", "--non-matching"),
            data=probe.encode() + b"\0",
        )
    except (ValueError, GitUnavailable):
        return ""  # memories outside the project, no git, or no work tree
    # -z: source, line number, pattern and path, each ended by NUL (empty when unmatched)
    origin, _line, pattern, *_rest = [*out.decode("utf-8", "replace").split("\0"), "", ""]
    if not pattern or pattern.startswith("!"):
        return ""  # not matched, or matched by a line that lets it through
    return (
        f" Tell the user too that `{origin}` ignores `{COMMITTED_FOLDER}` (its line "
        f"`{pattern}`): a commit leaves the memories out until that file lets them through."
    )


def run_onboarding(
    store: MemoryStore, *, exploration_tools: bool = True, status_tool: bool = True
) -> str:
    """Seed the maintenance memory (never overwriting) and return the onboarding brief;
    once every onboarding memory exists, only that and what is left to tell the user (the
    brief again would cost thousands of characters and say nothing new)."""
    from serena_memory.agent.project_facts import detect_facts

    seed = seed_maintenance(store)
    status = onboarding_status(store)
    if status.done:
        told = status.finished() + " " + TELL_THE_USER.format(committed=COMMITTED_FOLDER)
        return told + ignored_memories_note(store)
    facts = detect_facts(store.layout.project_root)
    text = onboarding_instructions(
        seed,
        facts.to_markdown(),
        status=status,
        exploration_tools=exploration_tools,
        status_tool=status_tool,
        budget=memory_budget(facts.code_bytes),
    )
    return text + "\n" + seed.describe() + "\n"
