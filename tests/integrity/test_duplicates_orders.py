"""Steps said in two orders (:mod:`serena_memory.integrity.duplicates.orders`), written
as real memory folders through a real store, as `serena memories check --duplicates`
reads them."""

from __future__ import annotations

from pathlib import Path

import pytest
from duplicates_support import checked, memory

from serena_memory.integrity.duplicates import find_duplicates
from serena_memory.integrity.duplicates.orders import pairs

TWO_ORDERS = [
    (
        "Type-check, then test (never flip): `deno task check` then `deno task test`.",
        "Run `deno task test` first for fast feedback, then `deno task check`.",
    ),
    ("- Run `make lint` before `make test`.", "- `make lint` runs after `make test` passes."),
    (
        "- 定義正式遷移順序（Domain -> Application -> Infrastructure -> UI）",
        "正式遷移順序改為由外而內：User Interface -> Application -> Domain -> Infrastructure",
    ),
]


@pytest.mark.parametrize(("first", "second"), TWO_ORDERS)
def test_two_steps_in_two_orders_are_a_conflict(tmp_path: Path, first: str, second: str) -> None:
    report = checked(tmp_path, {"order": memory("Order", first), "notes": memory("Notes", second)})
    found = [*report.conflicts, *(c for d in report.memories for c in d.conflicts)]
    assert [(c.first, c.second) for c in found] == [("notes", "order")], report.to_dict()


NOT_TWO_ORDERS = [
    # the same order said twice
    ("- Run `make lint` before `make test`.", "- `make test` runs after `make lint`."),
    # layers' dependencies are no migration order: nothing in common but the layers
    (
        "- 定義正式遷移順序（Domain -> Application -> Infrastructure -> UI）",
        "- 在每個 slice 內導入 DDD 四層：presentation -> application -> domain <- infrastructure。",
    ),
    # a loop names both orders
    ("- `build` -> `test` -> `build` again on failure.", "- Always `test` -> `build`."),
]


@pytest.mark.parametrize(("first", "second"), NOT_TWO_ORDERS)
def test_steps_in_one_order_are_no_conflict(first: str, second: str) -> None:
    report = find_duplicates({"a": memory("A", first), "b": memory("B", second)})
    assert report.conflicts == [], report.to_dict()


def test_an_arrow_orders_the_words_beside_it() -> None:
    assert pairs("Flow: lint -> test → `deploy`") == [("lint", "test"), ("test", "deploy")]
