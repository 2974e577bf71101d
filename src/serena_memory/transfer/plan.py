"""An import as a plan of new memories, and writing it through the store.

Nothing is lost and nothing is clobbered: every memory of a plan is created only where no
memory of that name exists (an existing one with the same text counts as already
imported; one with other text is skipped with the reason, or, asked for, written beside it
under a free name; a deprecated one is always skipped, so an old copy never brings its
text back as current); every name passes the store's gates; the whole import is one history
entry, so one restore undoes it; a second import of unchanged sources creates nothing.
"""

from __future__ import annotations

import re
from collections.abc import Container
from dataclasses import dataclass, field

from serena_memory.core import names as N
from serena_memory.core.display import counted, escape_line
from serena_memory.core.errors import MemoryStoreError, describe
from serena_memory.core.lifecycle import deprecated_text
from serena_memory.core.paths import MEMORY_SIZE_BUDGET
from serena_memory.core.references import can_be_referenced, rewrite_references
from serena_memory.core.store import MemoryStore

ON_CONFLICT = ("beside", "rename", "skip")
"""A planned memory whose name exists with other text: goes beside it under the format's
topic (``claude-md/core`` beside ``core``) and the existing memory links to it (the
default: every line of the source ends up in a memory the agent reaches); goes to
``NAME-imported``, linked the same way; or is left out."""
RENAMED_SUFFIX = "-imported"
MAX_RENAME_TRIES = 50
MAX_IMPORTED_MEMORIES = 2000
"""The most memories one import creates unless the person raises it (``--max-memories``):
as many as the files one import may read; a source that makes more is rarely memory (a
log, a dump) and would bury the memories that matter."""

# Headings that name what the onboarding's memories hold: such a section of an entry file
# becomes that memory, so an agent starting from `mem:core` finds it where it looks.
_CONVENTIONS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("tech_stack", re.compile(r"\b(tech(nology|nologies)?( stack)?|stack|dependencies)\b", re.I)),
    (
        "suggested_commands",
        re.compile(r"\b(commands?|build( and | & )test|running|scripts|development setup)\b", re.I),
    ),
    (
        "conventions",
        re.compile(r"\b(conventions?|code style|style guide|coding standards)\b", re.I),
    ),
    (
        "task_completion",
        re.compile(r"\b(before (committing|you commit)|definition of done|checklist)\b", re.I),
    ),
)


def convention_for(heading: str) -> str | None:
    """The onboarding memory a section heading names, if any (``## Commands``)."""
    for name, pattern in _CONVENTIONS:
        if pattern.search(heading):
            return name
    return None


@dataclass
class ImportPlan:
    """The memories an import would create, in order, with the source each came from."""

    format: str
    source: str  # the folder or file imported, as shown
    memories: dict[str, str] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # per name asked for, the last number tried after it: names are only ever added, so
    # the next probe starts there (a source of 20,000 ``## s`` plans in linear time)
    _numbered: dict[str, int] = field(default_factory=dict, repr=False, compare=False)

    def free_name(self, name: str) -> str:
        """``name``, or ``name-2``, ``name-3``... when the plan already has it."""
        return numbered_free(name, self.memories, self._numbered)

    def add(self, name: str, content: str, origin: str) -> str:
        name = self.free_name(name)
        if not content.endswith("\n"):
            content += "\n"
        self.memories[name] = content
        self.origins[name] = origin
        return name

    def warn(self, text: str) -> None:
        self.warnings.append(text)


def numbered_free(name: str, taken: Container[str], numbered: dict[str, int]) -> str:
    """``name``, or the first of ``name-2``, ``name-3``... not in ``taken``. ``numbered``
    remembers where the probe for each name stopped; since ``taken`` only grows, the
    numbers below it are taken still, and each name's probe goes on from there."""
    if name not in taken:
        return name
    n = numbered.get(name, 1)
    while True:
        n += 1
        candidate = f"{name}-{n}"
        if candidate not in taken:
            numbered[name] = n
            return candidate


def reference(name: str) -> str:
    """How a memory names another: ``mem:NAME`` (a name no reference can spell, quoted)."""
    return f"mem:{name}" if can_be_referenced(name) else f"`{name}`"


def with_references(line: str, targets: list[str]) -> str:
    """The line as written, then the memories its links lead to: the source text stays
    whole, and the references are what the integrity check and the agent follow."""
    if not targets:
        return line
    unique = list(dict.fromkeys(targets))
    return f"{line} ({', '.join(reference(t) for t in unique)})"


@dataclass
class ImportResult:
    plan: ImportPlan
    created: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (name, why)
    renamed: dict[str, str] = field(default_factory=dict)  # planned name -> written name
    linked: list[str] = field(default_factory=list)  # existing memories that now link to it
    dry_run: bool = False
    undo: list[str] = field(default_factory=list)  # the commands that undo the import

    def lines(self) -> list[str]:
        """What a person reads: what was (or would be) created, and what was left why."""
        verb = "Would create" if self.dry_run else "Created"
        head = (
            f"{verb} {counted(len(self.created), 'memory', 'memories')} from "
            f"{escape_line(self.plan.source)} ({self.plan.format})"
        )
        if self.unchanged:
            head += f"; {len(self.unchanged)} already imported with the same text"
        if self.skipped:
            head += f"; skipped {len(self.skipped)}"
        out = [head + "."]
        for name in self.created:
            shown = escape_line(name)
            origin = escape_line(self.plan.origins.get(self._planned(name), ""))
            out.append(f"  {shown}  <- {origin}" if origin else f"  {shown}")
        for old, new in self.renamed.items():
            link = f"; {escape_line(old)} links to it" if old in self.linked else ""
            out.append(
                f"  {escape_line(new)} is the imported {escape_line(old)}, which exists with "
                f"other text{link}"
            )
        for name, why in self.skipped:
            out.append(f"  skipped {escape_line(name)}: {why}")
        out.extend(f"  note: {w}" for w in self.plan.warnings)
        if self.undo:
            out.append("Undo it with:")
            out.extend(f"  {escape_line(c)}" for c in self.undo)
        return out

    def _planned(self, name: str) -> str:
        back = {new: old for old, new in self.renamed.items()}
        return back.get(name, name)

    def to_dict(self) -> dict[str, object]:
        return {
            "format": self.plan.format,
            "source": self.plan.source,
            "dry_run": self.dry_run,
            "created": self.created,
            "unchanged": self.unchanged,
            "skipped": [{"name": n, "reason": r} for n, r in self.skipped],
            "renamed": self.renamed,
            "linked": self.linked,
            "warnings": self.plan.warnings,
            "undo": self.undo,
        }


def _existing(store: MemoryStore, name: str) -> str | None:
    """The text of memory ``name``; None when there is none. An unreadable one counts as
    existing with other text (it is never written over)."""
    if not store.exists(name):
        return None
    try:
        return store.read(name, announce=False)
    except MemoryStoreError as exc:
        return "\0" + describe(exc)


def apply_plan(
    store: MemoryStore,
    plan: ImportPlan,
    *,
    on_conflict: str = "beside",
    dry_run: bool = False,
    allow_secret: bool = False,
    allow_global: bool = False,
    max_memories: int = MAX_IMPORTED_MEMORIES,
) -> ImportResult:
    """Write the plan's new memories as one history entry (nothing with ``dry_run``).

    Global memories (``global/...``, seen by every project) are written only with
    ``allow_global``; an import that would create more than ``max_memories`` is refused
    before anything is written."""
    if on_conflict not in ON_CONFLICT:
        raise MemoryStoreError(f"on_conflict must be one of {', '.join(ON_CONFLICT)}")
    result = ImportResult(plan, dry_run=dry_run)
    usable = _usable(store, plan, result, allow_global)
    _refuse_over_cap(sum(1 for n in usable if not store.exists(n)), max_memories)
    mapping = _settled_placements(store, usable, on_conflict, result)
    contents = _rewritten(usable, mapping)
    result.skipped = [s for s in result.skipped if s[0] not in usable]
    to_create = _to_create(store, contents, mapping, result)
    _note_oversized(plan, to_create)
    result.renamed = {old: new for old, new in mapping.items() if new in to_create}
    links = _links(plan, result.renamed)
    _refuse_over_cap(len(to_create), max_memories)
    if dry_run or not to_create:
        result.created = list(to_create)
        result.linked = list(links)
        return result
    _write(store, result, to_create, links, allow_secret)
    return result


def _note_oversized(plan: ImportPlan, to_create: dict[str, str]) -> None:
    """One note naming the memories larger than a memory should be, which no heading of
    their source split: an agent reads a memory whole, so the person should split them."""
    over = [(n, len(c)) for n, c in to_create.items() if len(c) > MEMORY_SIZE_BUDGET]
    if not over:
        return
    shown = ", ".join(f"{escape_line(name)} ({chars:,})" for name, chars in over[:10])
    more = f" and {len(over) - 10} more" if len(over) > 10 else ""
    plan.warn(
        f"{counted(len(over), 'memory is', 'memories are')} longer than the "
        f"{MEMORY_SIZE_BUDGET:,} characters a memory should stay under, with no heading of "
        f"the source to split at: {shown}{more}; split each by subject, with a `mem:` "
        "reference to each part"
    )


def _write(
    store: MemoryStore,
    result: ImportResult,
    to_create: dict[str, str],
    links: dict[str, str],
    allow_secret: bool,
) -> None:
    """Create the memories and their links as one history entry, and say how to undo it."""
    for name in to_create:
        if not store.exists(name):
            N.check_portable(name)
    plan = result.plan
    summary = f"Import {plan.format} from {plan.source}"
    created = store.create_many(to_create, summary, allow_secret=allow_secret, appended=links)
    result.created = created
    result.linked = [old for old in links if result.renamed[old] in created]
    if created:
        from serena_memory.transfer.undo import undo_commands

        result.undo = undo_commands(store, summary, created)
    for name in to_create:
        if name not in created:
            result.skipped.append((name, "a memory of that name appeared during the import"))


def _usable(
    store: MemoryStore, plan: ImportPlan, result: ImportResult, allow_global: bool
) -> dict[str, str]:
    """The plan's memories under the names the store writes them as; a name the store
    refuses, or a global one not asked for, is skipped with the reason."""
    usable: dict[str, str] = {}
    for name, content in plan.memories.items():
        try:
            written = store.access().check(name, write=True)
        except MemoryStoreError as exc:
            result.skipped.append((name, describe(exc)))
            continue
        if N.is_global(written) and not allow_global:
            result.skipped.append((name, GLOBAL_SKIPPED))
            continue
        usable[written] = content
    return usable


DEPRECATED_SKIPPED = (
    "the memory of that name is deprecated: its old text is not imported as current (read "
    "the memory that supersedes it, or restore the old text from its history)"
)
GLOBAL_SKIPPED = (
    "a global memory (seen by every project); an import writes project memories only, "
    "unless you pass --allow-global"
)


def _refuse_over_cap(count: int, cap: int) -> None:
    """One sentence, before anything is written, when an import would make too many."""
    if count > cap:
        raise MemoryStoreError(
            f"this import would create {count:,} memories, more than the {cap:,} one import "
            f"may create, so nothing was written; import a smaller source, or raise the cap "
            f"with --max-memories {count}"
        )


def _settled_placements(
    store: MemoryStore, usable: dict[str, str], on_conflict: str, result: ImportResult
) -> dict[str, str]:
    """Where each memory taken by other text goes: a rename changes the references in the
    others, so placements are made again until they settle (at most four times)."""
    mapping: dict[str, str] = {}
    for _ in range(4):
        contents = _rewritten(usable, mapping)
        new_mapping = _placements(store, contents, on_conflict, result)
        if new_mapping == mapping:
            break
        mapping = new_mapping
    return mapping


def _to_create(
    store: MemoryStore, contents: dict[str, str], mapping: dict[str, str], result: ImportResult
) -> dict[str, str]:
    """The memories to create where they go; one there with the same text counts as
    imported before, one with other text is skipped."""
    to_create: dict[str, str] = {}
    for name, content in contents.items():
        target = mapping.get(name, name)
        current = _existing(store, target)
        if current == content:
            result.unchanged.append(target)
        elif current is None:
            to_create[target] = content
        elif deprecated_text(current):
            result.skipped.append((name, DEPRECATED_SKIPPED))
        else:
            result.skipped.append(
                (name, "a memory of that name exists with other text; it is left as it is")
            )
    return to_create


def _links(plan: ImportPlan, renamed: dict[str, str]) -> dict[str, str]:
    """The paragraph each existing memory gets that links to the imported text which could
    not take its name, so an agent reading `mem:core` finds what CLAUDE.md said of it."""
    links = {}
    for old, new in renamed.items():
        origin = plan.origins.get(old) or plan.source
        links[old] = f"Imported from {origin} beside this memory: `{reference(new)}`."
    return links


def _rewritten(contents: dict[str, str], mapping: dict[str, str]) -> dict[str, str]:
    if not mapping:
        return dict(contents)
    out = {}
    for name, text in contents.items():
        for old, new in mapping.items():
            text, _ = rewrite_references(text, old, new)
        out[name] = text
    return out


def _placements(
    store: MemoryStore, contents: dict[str, str], on_conflict: str, result: ImportResult
) -> dict[str, str]:
    """Where each planned memory taken by other text goes, with ``rename``: the first free
    ``NAME-imported`` (or one holding the same text: imported before)."""
    mapping: dict[str, str] = {}
    if on_conflict == "skip":
        return mapping
    taken = set(contents)
    for name, content in contents.items():
        current = _existing(store, name)
        if current is None or current == content or deprecated_text(current):
            continue  # a deprecated memory's old text never comes back beside it
        first = (
            f"{name}{RENAMED_SUFFIX}"
            if on_conflict == "rename"
            else f"{_beside_topic(result.plan, name)}/{N.last_segment(name)}"
        )
        for n in range(1, MAX_RENAME_TRIES + 1):
            candidate = first + (f"-{n}" if n > 1 else "")
            if candidate in taken:
                continue
            there = _existing(store, candidate)
            if there is None or there == content:
                mapping[name] = candidate
                taken.add(candidate)
                break
    return mapping


def _beside_topic(plan: ImportPlan, name: str) -> str:
    """The topic a memory goes to beside the one of its name: the import's format under the
    memory's own topic (``claude-md`` beside ``core``, ``auth/claude-md`` beside
    ``auth/login``)."""
    topic = name.rsplit("/", 1)[0] if "/" in name else ""
    return f"{topic}/{plan.format}" if topic else plan.format
