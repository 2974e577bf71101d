"""The memory review: what a person or agent should look at to keep the memories healthy.

Memories drift: references go stale when memories are renamed, notes nobody links to are
never read, and several notes grow to say the same thing. The review brief puts the check's
findings (with reachability from `mem:core`) in front of the agent together with what to do
about each kind, following the conventions of `mem:memory_maintenance`.
"""

from __future__ import annotations

from serena_memory.agent import tools as T
from serena_memory.agent.maintenance import MAINTENANCE_NAME
from serena_memory.core.store import MemoryStore

REPORT_LIMIT_CHARS = 20_000
"""The longest check report put into the brief; the rest is left to `serena memories check`
(a brief is read by a model, and a review works through the first findings first)."""


def review_brief(store: MemoryStore) -> str:
    """The review instructions with the current check report (stale references, exact bare
    mentions, memories unreachable from `mem:core`, duplicates and conflicting statements),
    run through the check registry as `serena memories check` runs it."""
    from serena_memory.integrity.plugins.base import CheckOptions
    from serena_memory.integrity.plugins.registry import run_checks

    # one process (a server's thread may ask): no check is split over forked workers
    options = CheckOptions(include_unmarked=True, reachability=True, duplicates=True, jobs=1)
    findings = "".join(run_checks(store, options).to_texts()).strip()
    if len(findings) > REPORT_LIMIT_CHARS:
        findings = (
            findings[:REPORT_LIMIT_CHARS].rsplit("\n", 1)[0]
            + "\n[... the report goes on: run `serena memories check --include-unmarked "
            "--reachability --duplicates` in the project folder for all of it]"
        )
    names = store.list()
    steps = [
        f"1. Read `mem:{MAINTENANCE_NAME}` first (if it exists) and follow its conventions.",
        "2. Fix every stale reference: point it at the memory it meant (the report gives "
        "candidates) or remove it when that knowledge is gone. Read-only memories can't be "
        "changed: name them to the user instead.",
        "3. For each memory not reachable from `mem:core`: reference it from the memory "
        "where a reader would look for it, saying when to read it, or propose deleting it "
        "if it is obsolete.",
        "4. Write the bare mentions of memory names as `mem:NAME` references where they mean "
        "the memory.",
        "5. Look for memories that overlap or contradict each other (similar names, the "
        f"same topic): propose merging them into one and renaming with `{T.RENAME_MEMORY}` so "
        "references follow.",
        "6. Propose pruning what is outdated or obvious from the code. Don't delete or merge "
        "anything without the user's agreement; list your proposals first.",
    ]
    return (
        f"Review the memories of this project ({len(names.all)} memories). Work through "
        "these steps:\n\n"
        + "\n".join(steps)
        + "\n\nThe current check report:\n\n"
        + (findings or "Nothing found.")
        + "\n"
    )
