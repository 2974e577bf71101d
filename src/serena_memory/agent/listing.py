"""Listings of memory names that fit a budget, so 10,000 memories don't flood the agent.

Under the budget (``memory_listing_budget``, in tokens) every name is listed, as always.
Over it, the listing shows the memories directly in the topic (``mem:core`` first) and the
topics below it with their counts, as deep as still fits, and says how to go further:
list a topic, or search. When even that is too long, the listing is cut into pages.
Following topics and pages from the top reaches every name, each answer within budget.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field

from serena_memory.agent import tools as T
from serena_memory.core import names as N
from serena_memory.core.display import counted
from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.front_matter import one_line
from serena_memory.core.lifecycle import DEPRECATED, STALE, Described, summaries_and_marks
from serena_memory.core.store import MemoryListing, MemoryStore

CORE = "core"
CHARS_PER_TOKEN = 3.5  # conservative for names: slashes and underscores cut tokens short
SKIPPED_SHOWN = 10  # entries skipped by the scan, in an answer: a few say what is wrong
# what the rare parts of an answer mean, said in the answer that has them (not in the
# tool's description, which every conversation pays for)
SKIPPED_NOTE = (
    "'skipped' lists files that look like memories but are not read (a broken link, a link "
    "leading outside the allowed folders, a file that is not regular), each with its reason; "
    "tell the user when one of them should be a memory."
)
CODE_DRIFT_NOTE = (
    "'code_drift' names the memories shown that mention code missing or moved now; reading "
    "one says which mentions and where they went."
)
RENAME_JOURNAL_NOTE = (
    "Changes to memories fail until the user deals with this interrupted rename: tell the "
    "user what 'rename_journal' says."
)


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


@dataclass
class TopicCount:
    topic: str  # the full topic path, e.g. 'billing/webhooks'
    memories: int  # in it and below it
    read_only: int


@dataclass
class BudgetedListing:
    """What one answer shows of the memories in ``topic`` ('' for all)."""

    topic: str
    total: int
    names: list[str]
    read_only: set[str]
    topics: list[TopicCount] = field(default_factory=list)
    complete: bool = True  # every name of the topic is in ``names``
    page: int = 1
    pages: int = 1


def _order(names: list[str]) -> list[str]:
    """Sorted, with the entry point first."""
    return sorted(names, key=lambda n: (n != CORE, n))


def _topic_counts(
    names: list[str], read_only: set[str], topic: str, depth: int
) -> list[TopicCount]:
    """Every topic below ``topic`` down to ``depth`` levels, with its memory count."""
    counts: dict[str, list[int]] = {}
    base = len(topic.split("/")) if topic else 0
    for name in names:
        parts = N.topic_of(name).split("/") if N.topic_of(name) else []
        for level in range(base + 1, min(len(parts), base + depth) + 1):
            entry = counts.setdefault("/".join(parts[:level]), [0, 0])
            entry[0] += 1
            entry[1] += name in read_only
    return [TopicCount(t, c[0], c[1]) for t, c in sorted(counts.items())]


def plan_listing(
    listing: MemoryListing,
    topic: str,
    budget_tokens: int,
    render: Callable[[BudgetedListing], str],
    page: int = 1,
) -> BudgetedListing:
    """The most complete view of ``listing`` whose ``render`` fits ``budget_tokens``."""
    names = listing.all
    read_only = set(listing.read_only_memories)

    def fits(view: BudgetedListing) -> bool:
        return estimate_tokens(render(view)) <= budget_tokens

    everything = BudgetedListing(topic, len(names), names, read_only)  # as always: sorted
    if fits(everything) and page == 1:
        return everything
    direct = _order([n for n in names if N.topic_of(n) == topic])
    max_depth = max((len(N.topic_of(n).split("/")) for n in names if N.topic_of(n)), default=0)
    best: BudgetedListing | None = None
    for depth in range(1, max_depth + 1):
        view = BudgetedListing(
            topic, len(names), direct, read_only, _topic_counts(names, read_only, topic, depth)
        )
        view.complete = False
        if not fits(view):
            break
        best = view
    if best is not None and page == 1:
        return best
    return _paged(topic, names, direct, read_only, budget_tokens, render, page)


def _paged(
    topic: str,
    names: list[str],
    direct: list[str],
    read_only: set[str],
    budget_tokens: int,
    render: Callable[[BudgetedListing], str],
    page: int,
) -> BudgetedListing:
    """Direct names, then first-level topics, cut into pages that each fit."""
    entries: list[str | TopicCount] = [*direct, *_topic_counts(names, read_only, topic, 1)]
    pages: list[list[str | TopicCount]] = [[]]

    def view_of(chunk: list[str | TopicCount], number: int, count: int) -> BudgetedListing:
        return BudgetedListing(
            topic,
            len(names),
            [e for e in chunk if isinstance(e, str)],
            read_only,
            [e for e in chunk if isinstance(e, TopicCount)],
            complete=False,
            page=number,
            pages=count,
        )

    placeholder = 10 ** len(str(len(entries) + 1))  # widest page numbers, for measuring
    for entry in entries:
        trial = pages[-1] + [entry]
        if pages[-1] and estimate_tokens(render(view_of(trial, placeholder, placeholder + 1))) > (
            budget_tokens
        ):
            pages.append([entry])  # a page holds at least one entry, whatever its size
        else:
            pages[-1] = trial
    if not 1 <= page <= len(pages):
        where = f"topic '{topic}'" if topic else "the listing"
        raise MemoryStoreError(
            f"page {page} doesn't exist: {where} has {counted(len(pages), 'page')}; pass a page "
            f"from 1 to {len(pages)}"
        )
    return view_of(pages[page - 1], page, len(pages))


# -- renderings ------------------------------------------------------------------------------
def _topic_line(count: TopicCount) -> str:
    marks = counted(count.memories, "memory", "memories")
    if count.read_only == count.memories:
        marks += ", all read-only"
    elif count.read_only:
        marks += f", {count.read_only} read-only"
    return f"- {count.topic}/ ({marks})"


def _call(topic: str, page: int | None = None) -> str:
    args = [f'topic="{topic}"'] if topic else []
    if page is not None:
        args.append(f"page={page}")
    return f"`{T.LIST_MEMORIES}({', '.join(args)})`"


def further_hint(view: BudgetedListing, search_tool: bool = True) -> str:
    """How the agent reaches what this view leaves out."""
    where = f"topic '{view.topic}' holds" if view.topic else "there are"
    parts = [
        f"{where.capitalize()} {view.total} memories, more than fit in one listing: shown "
        "are the memories directly in it and the topics below it with their counts."
    ]
    parts.append(f"List a topic with {_call('NAME')}")
    if search_tool:
        parts[-1] += f', or find memories by subject with `{T.SEARCH_MEMORIES}(query="...")`'
    parts[-1] += "."
    if view.pages > 1:
        parts.append(
            f"This is page {view.page} of {view.pages}"
            + (
                f"; the next one: {_call(view.topic, view.page + 1)}."
                if view.page < view.pages
                else "."
            )
        )
    return " ".join(parts)


def listing_text_lines(view: BudgetedListing, search_tool: bool = True) -> list[str]:
    """The names part of the activation message, for a view that is not complete."""
    lines = [further_hint(view, search_tool)]
    if view.names:
        lines.append("Memories:")
        lines.extend(f"- {n}" + (" (read-only)" if n in view.read_only else "") for n in view.names)
    if view.topics:
        lines.append("Topics:")
        lines.extend(_topic_line(t) for t in view.topics)
    return lines


def listing_answer(
    store: MemoryStore, topic: str = "", page: int = 1, *, search_tool: bool = True
) -> str:
    """The JSON answer of `list_memories`: every name while they fit the budget, else
    the budgeted view with its topics, counts, page and a note on how to go further."""
    if isinstance(page, bool) or not isinstance(page, int) or page < 1:
        raise MemoryStoreError(f"page must be a whole number from 1, got {page!r}")
    topic = N.normalize_topic(topic)
    listing = store.list(topic)
    if topic and not listing.all and not listing.skipped:
        raise MemoryStoreError(_no_such_topic(store, topic))
    budget = store.settings.listing_budget
    extra = _extras(listing, budget)
    view = plan_listing(listing, topic, budget, lambda v: _answer_json(v, search_tool, extra), page)
    from serena_memory.integrity.code_drift.drifted_memories import drifted_memories

    described = summaries_and_marks(store, view.names, write=False)  # a server's
    marks = _marks(described)
    if estimate_tokens(_answer_json(view, search_tool, {**extra, **marks})) <= budget:
        extra = {**extra, **marks}
    extra = _with_unreviewed(store, view, search_tool, extra, budget)
    # the names shown that mention code gone now, as many as still fit the budget
    drifted = drifted_memories(store, view.names)[0]
    while drifted:
        if estimate_tokens(_answer_json(view, search_tool, extra, set(drifted))) <= budget:
            break
        drifted = drifted[: len(drifted) // 2]
    # then each memory's summary, cut shorter until they all fit (or none is shown)
    for limit in SUMMARY_LIMITS:
        summaries = {n: one_line(d.summary, limit) for n, d in described.items() if d.summary}
        told = {**extra, "summaries": summaries} if summaries else extra
        answer = _answer_json(view, search_tool, told, set(drifted))
        if estimate_tokens(answer) <= budget:
            return answer
    return _answer_json(view, search_tool, extra, set(drifted))


SUMMARY_LIMITS = (120, 60, 30)
"""The lengths a listing cuts summaries to, longest first, until the answer fits."""
LIFECYCLE_NOTE = (
    "'deprecated' and 'stale' memories are outdated: prefer current ones; reading one "
    "says what replaces it."
)


UNREVIEWED_NOTE = "'unreviewed' memories were last written by an agent; no person reviewed them."


def _with_unreviewed(
    store: MemoryStore,
    view: BudgetedListing,
    search_tool: bool,
    extra: dict[str, object],
    budget: int,
) -> dict[str, object]:
    """``extra`` with the names shown that an agent wrote last and no person reviewed
    (agent/trust.py), when they fit the budget."""
    from serena_memory.agent.trust import unreviewed

    named = unreviewed(store, view.names)
    if not named:
        return extra
    told = {**extra, "unreviewed": named, "unreviewed_note": UNREVIEWED_NOTE}
    fits = estimate_tokens(_answer_json(view, search_tool, told)) <= budget
    return told if fits else extra


def _marks(described: dict[str, Described]) -> dict[str, object]:
    """The deprecated and stale memories among those shown, and what that means."""
    marks: dict[str, object] = {}
    for mark in (DEPRECATED, STALE):
        named = sorted(n for n, d in described.items() if d.mark == mark)
        if named:
            marks[mark] = named
    if marks:
        marks["lifecycle_note"] = LIFECYCLE_NOTE
    return marks


def _no_such_topic(store: MemoryStore, topic: str) -> str:
    """Saying that no memory is in ``topic``, with the topics there are (the first few)."""
    topics = sorted({name.split("/", 1)[0] for name in store.list().all if "/" in name})
    shown = ", ".join(topics[:10]) + (", ..." if len(topics) > 10 else "")
    there = f"the topics are: {shown}" if topics else "no memory is in a topic yet"
    return (
        f"there is no topic '{topic}' (no memory's name starts with '{topic}/'); {there}; "
        f"{T.LIST_MEMORIES} without a topic lists every memory"
    )


def _extras(listing: MemoryListing, budget_tokens: int) -> dict[str, object]:
    """What an answer adds to the names: entries the scan skipped (the first few, taking
    at most a quarter of the budget, and how many when not all), and why the project's
    rename journal is not replayed (changes fail until it is dealt with)."""
    extra: dict[str, object] = {}
    if listing.skipped:
        shown: list[dict[str, str]] = []
        for item in listing.skipped[:SKIPPED_SHOWN]:
            trial = [*shown, item.to_dict()]
            if estimate_tokens(json.dumps(trial, ensure_ascii=False)) > budget_tokens // 4:
                break
            shown = trial
        extra["skipped"] = shown
        if len(shown) < len(listing.skipped):
            extra["skipped_total"] = len(listing.skipped)
        extra["skipped_note"] = SKIPPED_NOTE
    if listing.rename_journal:
        extra["rename_journal"] = listing.rename_journal
        extra["rename_journal_note"] = RENAME_JOURNAL_NOTE
    return extra


def _answer_json(
    view: BudgetedListing,
    search_tool: bool,
    extra: dict[str, object] | None = None,
    drifted: set[str] | frozenset[str] = frozenset(),
) -> str:
    memories = [n for n in view.names if n not in view.read_only]
    read_only = [n for n in view.names if n in view.read_only]
    data: dict[str, object] = {"memories": memories, "read_only_memories": read_only}
    marked = [n for n in view.names if n in drifted]
    if marked:  # what reading them tells: mentions of files missing or moved now
        data["code_drift"] = marked
        data["code_drift_note"] = CODE_DRIFT_NOTE
    if not view.complete:
        data["topics"] = {
            t.topic: {"memories": t.memories, "read_only": t.read_only} for t in view.topics
        }
        data["total"] = view.total
        data["page"] = view.page
        data["pages"] = view.pages
        data["note"] = further_hint(view, search_tool)
    data.update(extra or {})  # on every page: each page is measured with it
    return json.dumps(data, ensure_ascii=False)
