"""The code drift check's fixes written to a store (the replacements themselves are
:mod:`.fixes`): :func:`fix_code_replacements` for the writable project memories (the
command line, the dashboard's button), :func:`fix_memory_drift` for the replacements one
memory's read note offers (the agent's edit)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, NamedTuple

from serena_memory.core import names as N
from serena_memory.core.display import counted
from serena_memory.core.store import MemoryStore
from serena_memory.integrity.code_drift import fixes
from serena_memory.integrity.code_drift.check import run_code_check
from serena_memory.integrity.code_drift.code_report import MOVED

if TYPE_CHECKING:
    from serena_memory.integrity.code_drift.code_report import CodeFinding
    from serena_memory.integrity.code_drift.fixes import Replacement


class CodeFixes(NamedTuple):
    """What a fix did (would do, in a dry run), and the moved paths it left as written:
    their new place can't be written the way the memory writes them (a name in a drawn
    tree that went under another entry), so a person moves them."""

    made: list[Replacement]
    left: list[CodeFinding]


def fix_code_replacements(
    store: MemoryStore,
    dry_run: bool = False,
    only: Iterable[tuple[str, int, str]] | None = None,
) -> CodeFixes:
    """Rewrite the moved paths and the renamed symbols of writable project memories to
    what git saw them become (all of them, or only the ``(memory, line, mention)``
    given); the fixes of one run are one history entry."""
    wanted = None if only is None else set(only)
    found = [
        f
        for f in run_code_check(store, changed_commits=0).findings
        if wanted is None or (f.memory, f.line, f.mention) in wanted
    ]
    planned = fixes.replacements(found)
    covered = {id(f) for r in planned for f in r.findings}
    left = [f for f in found if f.status == MOVED and not f.read_only and id(f) not in covered]
    if dry_run or not planned:
        return CodeFixes(planned, left)
    by_memory: dict[str, list[Replacement]] = {}
    for r in planned:
        by_memory.setdefault(r.memory, []).append(r)
    done: list[Replacement] = []

    def fixer(items: list[Replacement]) -> Callable[[str], str]:
        def transform(text: str) -> str:
            text, made = fixes.apply(text, items)
            done.extend(made)
            return text

        return transform

    changes = {name: fixer(items) for name, items in sorted(by_memory.items())}
    store.update(changes, f"Bring {counted(len(planned), 'mention')} of code up to date")
    return CodeFixes(done, left)


def fix_memory_drift(store: MemoryStore, name: str) -> tuple[list[Replacement], int, str]:
    """Apply, as the agent's edit of one memory, every replacement its read note offers:
    under review mode a proposal, else an edit (size bounds and the secret gate as for any
    edit). Returns the replacements, how many places changed and the proposal's wording
    ('' when applied directly); no replacement: nothing written."""
    from serena_memory.core import verbs
    from serena_memory.integrity.code_drift.read_note import offered_replacements

    canonical = N.normalize_name(name)
    text = store.read(canonical)
    planned: list[Replacement] = []
    if not N.is_global(canonical):
        planned = offered_replacements(
            str(store.layout.project_root),
            canonical,
            text,
            cache_home=str(store.layout.home),
            written=str(store.real_path_of(canonical)),
        )
    if not planned:
        return [], 0, ""

    def edit(current: str) -> tuple[str, int]:
        new, made = fixes.apply(current, planned)
        return new, len(made)

    outcome = verbs.edit(store, canonical, edit)
    if isinstance(outcome, verbs.Applied):
        return planned, outcome.change.replacements, ""
    told = outcome.proposal.told() if outcome.proposal is not None else ""
    return planned, outcome.replacements, told
