"""One big memory: the duplicate check reads it in time that grows with its length, not
its square, and a write beside it is told about duplicates without reading it.

Linearity is checked without a wall-clock limit: the same number of lines is parsed as one
text and as eight texts of an eighth each, in the same run, the best of a few tries each.
Work in proportion to the length costs both the same; work that grows with the square
costs the whole text eight times its pieces."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from serena_memory.core.store import MemoryStore
from serena_memory.integrity.duplicates.detect import find_duplicates
from serena_memory.integrity.duplicates.features import features_of
from serena_memory.integrity.duplicates.features_cache import cache_path
from serena_memory.integrity.duplicates.text import parse
from serena_memory.integrity.duplicates.write_comparison import LARGEST_READ, write_note

PIECES = 8
RATIO = 3.0
"""Whole over pieces: about 1 when linear, about PIECES when quadratic."""


def best(work: Callable[[], object], tries: int = 3) -> float:
    times = []
    for _ in range(tries):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def whole_over_pieces(run: Callable[[str], object], line: Callable[[int], str], n: int) -> float:
    """The time of ``run`` on a text of ``n`` lines over its time on PIECES texts of
    ``n // PIECES`` lines each (the same bytes in all), best of three each."""
    whole = "".join(line(i) for i in range(n))
    size = n // PIECES
    pieces = ["".join(line(i) for i in range(p * size, (p + 1) * size)) for p in range(PIECES)]
    run(pieces[0])  # warm: regexes compiled, numpy loaded
    one = best(lambda: run(whole))
    parts = best(lambda: [run(p) for p in pieces])
    return one / parts


SHAPES = {
    "headings": lambda i: f"# Heading {i}\n",
    "sentences in one paragraph": lambda i: f"Line {i} says the build uses port {i}.\n",
    "paragraphs": lambda i: f"Paragraph {i} is about the port {i} here.\n\n",
    "list items": lambda i: f"- item {i} names the file src/{i}.py of it\n",
    "a section per line": lambda i: f"## Part {i}\nThe service {i} runs on port {i} now.\n",
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_parsing_a_text_takes_time_in_proportion_to_its_length(shape: str) -> None:
    ratio = whole_over_pieces(features_of, SHAPES[shape], 32_000)
    assert ratio < RATIO, f"{shape}: the whole text took {ratio:.1f} times its pieces"


def _compare_with_itself_edited(text: str) -> object:
    """Two near-copies of ``text`` compared line for line and section by section."""
    edited = text.replace("port", "the port")
    return find_duplicates({"a": text, "b": edited})


@pytest.mark.parametrize(
    "line",
    [
        lambda i: f"## Part {i}\nThe service {i} runs on port {i} now.\n",  # many sections
        lambda i: "The same line said again and again here.\n",  # one line many times
    ],
    ids=["many sections", "one line repeated"],
)
def test_comparing_two_big_memories_takes_time_in_proportion_to_their_length(
    line: Callable[[int], str],
) -> None:
    ratio = whole_over_pieces(_compare_with_itself_edited, line, 16_000)
    assert ratio < RATIO, f"the whole took {ratio:.1f} times its pieces"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["# Title", "The build runs on port 80. Then", "- the item names a file here", "", "x"]
        )
    )
)
def test_line_numbers_are_those_of_the_text(lines: list[str]) -> None:
    """Counting on from the last heading or sentence finds the lines counting from the
    start found."""
    text = "\n".join(lines)
    parsed = parse(text)
    split = text.split("\n")
    for first, _last in parsed.sections[1:] if parsed.sections else []:
        assert split[first - 1].startswith("#")
    for s in parsed.statements:
        assert s.text.split()[0] in split[s.line - 1]


def test_a_write_beside_a_big_memory_is_told_without_reading_it(
    store: MemoryStore, project: Path
) -> None:
    """A memory over LARGEST_READ is not read at write time (its parse alone would take
    longer than a write may): the note comes from the others, at once."""
    big = "".join(f"Line {i} says the build uses port {i} of it.\n" for i in range(60_000))
    assert len(big) > 4 * LARGEST_READ
    deploy = "# Deploy\n\nThe service listens on port 8080 for every request it gets.\n"
    store.write("ops/deploy", deploy)
    (project / ".serena" / "memories" / "pulled.md").write_text(big)
    text = "# Health\n\nThe service listens on port 9090 for every request it gets.\n"
    store.write("ops/health", text)
    write_note(store, "ops/warm", "# Warm\n\nnumpy loaded, as a server has it.\n")
    start = time.process_time()
    note = write_note(store, "ops/health", text)
    spent = time.process_time() - start
    assert "contradicts memory 'ops/deploy'" in note
    assert not cache_path(store).exists()  # a write leaves no cache a check did not
    # the big memory is not parsed (about a second here): far less CPU than that
    parse_big = best(lambda: parse(big), tries=1)
    assert spent < parse_big / 2, (spent, parse_big)
