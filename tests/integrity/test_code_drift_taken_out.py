"""What a list of changes says of its files, met in drift-13 (benchmarks/data): code taken
out of a file ("- `a.ts` - Removed legacy format handling") is no removal of the file, so
the file is still a claim, under a heading of removals too ("### Removed Tests"); while a
move's old place ("- From: `old/x.ts`") and a file the memory says to delete ("Delete
`x.rs` entirely") are not. Each checked on a real git repository."""

from __future__ import annotations

from pathlib import Path

from test_code_drift import commit, findings, git, memory, repo, write

__all__ = ["repo"]  # the fixture, shared


def _told(found: list[dict]) -> dict[str, str]:
    return {f["mention"]: f["status"] for f in found}


def test_a_file_code_was_taken_out_of_is_still_a_claim(repo: Path) -> None:
    write(repo, "src/services/balance.ts", "export const a = 1\n")
    write(repo, "tests/balance.test.ts", "test('a', () => {})\n")
    memory(
        repo,
        "migration",
        "## Files Modified\n\n"
        "1. `src/services/balance.ts` - Removed legacy format handling\n"
        "2. `tests/balance.test.ts` - Deleted two legacy tests\n"
        "3. `scripts/deploy.sh` - removed\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "src/services/balance.ts", "tests/balance.test.ts", "scripts/deploy.sh")
    commit(repo, "drop the balance service")
    # the first two had code taken out of them, the third was itself removed
    assert _told(findings(repo)) == {
        "src/services/balance.ts": "missing",
        "tests/balance.test.ts": "missing",
    }


def test_a_moves_old_place_and_a_file_to_delete_are_no_claims(repo: Path) -> None:
    write(repo, "src/lib/http/caller.ts", "export const a = 1\n")
    write(repo, "crates/bot/src/dialogue.rs", "fn a() {}\n")
    write(repo, "crates/bot/src/main.rs", "fn main() {}\n")
    memory(
        repo,
        "cleanup",
        "#### Moved caller.ts\n\n- From: `src/lib/old/caller.ts`\n"
        "- To: `src/lib/http/caller.ts`\n\n"
        "### P0\n1. Delete `crates/bot/src/dialogue.rs` entirely\n"
        "2. Keep `crates/bot/src/main.rs` as it is\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "crates/bot/src/dialogue.rs", "crates/bot/src/main.rs")
    commit(repo, "the audit's deletions")
    assert _told(findings(repo)) == {"crates/bot/src/main.rs": "missing"}


def test_a_file_tests_were_taken_out_of_under_a_removals_heading_is_a_claim(
    repo: Path,
) -> None:
    write(repo, "tests/balance.test.ts", "test('a', () => {})\n")
    write(repo, "tests/legacy.test.ts", "test('b', () => {})\n")
    memory(
        repo,
        "tests",
        "## Test Updates\n\n### Removed Tests (Legacy Behavior)\n\n"
        '- `balance.test.ts`: Removed "should fall back to the legacy array"\n'
        "- `legacy.test.ts`\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "tests/balance.test.ts", "tests/legacy.test.ts")
    commit(repo, "drop the balance tests")
    # the first item says what was taken out of its file; the second is a removal
    assert _told(findings(repo)) == {"balance.test.ts": "missing"}
