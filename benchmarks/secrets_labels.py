"""The secret gate on labeled sets written apart from it: recall on the secrets and false
positives on the look-alikes of each file, with the misses and false alarms per form.

Each file is JSON lines: ``text``, ``secret`` (true or false), ``form``, ``note``
(benchmarks/data/secrets-dev.jsonl and secrets-heldout.jsonl were written by someone who
never saw the gate; the rules may be tuned on the dev file only). Each text is judged as a
memory's text (``secrets.scan``, what a write, ``check --secrets`` and the history's scan
run) and, when it is one line, as a memory's name (``secrets.scan_name``). A team sync
runs the same two functions (``secrets.holding_secrets``); tests/core/test_secrets.py
shows that, so the set is not run through a sync here.

Usage: ``python benchmarks/secrets_labels.py [FILE ...] [--quiet]``
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from serena_memory.core import secrets

DATA = Path(__file__).parent / "data"
DEV = DATA / "secrets-dev.jsonl"


def load(path: Path) -> list[dict[str, Any]]:
    """The labeled items of one JSON-lines file."""
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


class Figures:
    """Counts for one file and one way of judging (text or name)."""

    def __init__(self) -> None:
        self.secrets = self.caught = self.lookalikes = self.flagged = 0
        self.missed: Counter[str] = Counter()
        self.false: Counter[str] = Counter()

    def add(self, item: dict[str, Any], found: bool) -> None:
        if item["secret"]:
            self.secrets += 1
            self.caught += found
            if not found:
                self.missed[item["form"]] += 1
        else:
            self.lookalikes += 1
            self.flagged += found
            if found:
                self.false[item["form"]] += 1

    @property
    def recall(self) -> float:
        return self.caught / self.secrets if self.secrets else 1.0

    @property
    def false_rate(self) -> float:
        return self.flagged / self.lookalikes if self.lookalikes else 0.0

    def line(self) -> str:
        return (
            f"recall {self.recall:.3f} ({self.caught}/{self.secrets}), false positives "
            f"{self.false_rate:.1%} ({self.flagged}/{self.lookalikes})"
        )


def judge(items: list[dict[str, Any]]) -> tuple[Figures, Figures]:
    """(as a memory's text, as a memory's name for the one-line items)."""
    text, name = Figures(), Figures()
    for item in items:
        text.add(item, bool(secrets.scan(item["text"])))
        if "\n" not in item["text"].strip():
            name.add(item, bool(secrets.scan_name(item["text"].strip())))
    return text, name


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="*", type=Path, default=[DEV])
    parser.add_argument("--quiet", action="store_true", help="no list of misses per form")
    args = parser.parse_args()
    for path in args.files:
        items = load(path)
        text, name = judge(items)
        print(f"{path.name}: {len(items)} items")
        print(f"  as a memory's text: {text.line()}")
        print(f"  as a memory's name (one-line items): {name.line()}")
        if not args.quiet:
            for label, counts in (("missed", text.missed), ("false alarms", text.false)):
                for form, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
                    print(f"    {label} {form}: {n}")


if __name__ == "__main__":
    main()
