"""How close two memory names are: the likely target of a stale reference, near-misses.

People break references in a few typical ways: a typo, a memory moved to another topic
(or out of one), a `_v2`/`_old`/`legacy` variant, hyphens for underscores, camelCase for
snake_case, a plural, words reordered, a word added or dropped. Each of these keeps the
*words* of the name recognisable, so names are compared as canonical word sequences
(lowercase, singular, version words removed) split into topic and last segment, not as
raw strings.

Candidates come from indexes, never from comparing every name with every other one:
exact canonical keys first (topic moves, suffixes, separators, camelCase, plurals,
reordering), then an inverted index of words with typo-tolerant word lookup (rapidfuzz
over the vocabulary), and, when no word is recognised at all, a rapidfuzz search over the
names' canonical spellings.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA, Indel

MAX_CANDIDATES = 3
MIN_SCORE = 0.7
# a candidate far behind the best one is noise, not help
MAX_GAP_TO_BEST = 0.2

_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_VERSION = re.compile(r"v\d+|ver\d+|\d+")
VERSION_WORDS = frozenset(
    {"old", "new", "legacy", "bak", "deprecated", "orig", "original", "prev", "previous",
     "obsolete", "outdated", "archived", "tmp", "wip"}
)  # fmt: skip
_NOT_PLURAL = ("ss", "us", "is", "os", "as", "ys")


def split_words(text: str) -> list[str]:
    """Lowercase words of a name or name part: separators and camelCase boundaries split."""
    return [w.lower() for w in _SPLIT.split(text) if w]


@lru_cache(maxsize=65536)
def singular(word: str) -> str:
    if len(word) <= 3 or not word.endswith("s"):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith(_NOT_PLURAL):
        return word
    return word[:-1]


def _is_version_word(word: str) -> bool:
    return word in VERSION_WORDS or _VERSION.fullmatch(word) is not None


@lru_cache(maxsize=262144)
def canonical_words(text: str) -> tuple[str, ...]:
    """Words that identify what a name is about: version/legacy words at either end dropped
    (`auth_v2`, `old_auth`, unless nothing else is left), each word made singular."""
    words = split_words(text)
    start, end = 0, len(words)
    while end - start > 1 and _is_version_word(words[end - 1]):
        end -= 1
    while end - start > 1 and _is_version_word(words[start]):
        start += 1
    return tuple(singular(w) for w in words[start:end])


class NameShape:
    """A name split into canonical topic words and last-segment words, computed once."""

    __slots__ = ("name", "topic", "base", "all", "base_key", "joined")

    def __init__(self, name: str) -> None:
        self.name = name
        topic, _, base = name.rpartition("/")
        self.topic = canonical_words(topic) if topic else ()
        self.base = canonical_words(base)
        self.all = self.topic + self.base
        self.joined = "".join(self.base)
        self.base_key = self.base


@lru_cache(maxsize=65536)
def shape(name: str) -> NameShape:
    return NameShape(name)


@lru_cache(maxsize=262144)
def _word_match(a: str, b: str) -> bool:
    """Same word, or the same word with one typo (two from 9 letters on); a swap of two
    neighbouring letters is one typo."""
    if a == b:
        return True
    shorter = min(len(a), len(b))
    if shorter < 4:
        return False
    allowed = 1 if shorter < 9 else 2
    return OSA.distance(a, b, score_cutoff=allowed) <= allowed


def _matched(a: Sequence[str], b: Sequence[str]) -> int:
    """How many words of ``a`` have a (typo-tolerant) partner in ``b``, each used once."""
    pool = list(b)
    count = 0
    for word in a:
        for i, other in enumerate(pool):
            if _word_match(word, other):
                del pool[i]
                count += 1
                break
    return count


def _words_similarity(a: Sequence[str], b: Sequence[str]) -> float:
    if not a or not b:
        return 0.0
    if tuple(a) == tuple(b):
        return 1.0
    if sorted(a) == sorted(b):
        return 0.95  # reordered words
    joined_a, joined_b = "".join(a), "".join(b)
    chars = Indel.normalized_similarity(joined_a, joined_b)
    if min(len(joined_a), len(joined_b)) <= 3:
        chars = 0.0  # `api` vs `app` says nothing
    matched = _matched(a, b)
    if matched == 0:
        return chars if chars >= 0.8 else 0.0
    shorter, longer = min(len(a), len(b)), max(len(a), len(b))
    if matched == len(a) == len(b):
        words = 0.9  # every word there, one or two with a typo
    elif matched == shorter:
        words = 0.7 + 0.25 * matched / longer  # a word added or dropped
    else:
        words = 0.5 * (2 * matched / (len(a) + len(b)))
    return max(words, chars if chars >= 0.75 else 0.0)


def _topic_similarity(a: tuple[str, ...], b: tuple[str, ...]) -> float:
    if a == b:
        return 1.0
    if not a or not b:
        return 0.85  # moved into or out of a topic
    if a[: len(b)] == b or b[: len(a)] == a:
        return 0.9  # a sub-topic added or removed
    matched = _matched(a, b)
    return 0.6 + 0.35 * matched / max(len(a), len(b))  # topic changed


def name_similarity(missing: str, existing: str) -> float:
    """Score in [0, 1]: how likely ``existing`` is the memory that ``missing`` meant."""
    a, b = shape(missing), shape(existing)
    if not a.all or not b.all:
        return 0.0
    if a.all == b.all:
        return 0.97 if a.topic == b.topic else 0.95  # only separators/case/suffixes differ
    base = _words_similarity(a.base, b.base)
    split_score = base * (0.6 + 0.4 * _topic_similarity(a.topic, b.topic)) if base else 0.0
    whole = 0.0
    if sorted(a.all) == sorted(b.all):
        whole = 0.9
    elif len(a.all) > 1 and len(b.all) > 1:
        whole = 0.85 * _words_similarity(a.all, b.all)
    return max(split_score, whole)


class NameIndex:
    """Every existing name, indexed for :meth:`candidates`."""

    PREFILTER = 5  # names scored in full after the rapidfuzz prefilter
    POSTING_BUDGET = 400  # names gathered from the word index per query

    def __init__(self, names: Iterable[str]) -> None:
        self.names = sorted(set(names))
        self._by_all: dict[tuple[str, ...], list[str]] = {}
        self._by_sorted: dict[tuple[str, ...], list[str]] = {}
        self._by_base: dict[tuple[str, ...], list[str]] = {}
        self._by_word: dict[str, list[str]] = {}
        self._key: dict[str, str] = {}
        self._joined: dict[str, list[str]] = {}
        for name in self.names:
            s = shape(name)
            if not s.all:
                continue
            self._key[name] = " ".join(s.all)
            self._by_all.setdefault(s.all, []).append(name)
            self._by_sorted.setdefault(tuple(sorted(s.all)), []).append(name)
            self._by_base.setdefault(tuple(sorted(s.base)), []).append(name)
            for word in set(s.all):
                self._by_word.setdefault(word, []).append(name)
            self._joined.setdefault("".join(s.all), []).append(name)
        self._vocabulary = sorted(self._by_word)
        self._joined_keys = sorted(self._joined)
        self._cache: dict[str, tuple[str, ...]] = {}
        self._close_cache: dict[str, list[str]] = {}

    def _close_words(self, word: str) -> list[str]:
        """Vocabulary words equal to ``word`` or one typo away (rapidfuzz over the words)."""
        cached = self._close_cache.get(word)
        if cached is not None:
            return cached
        close = [word] if word in self._by_word else []
        if len(word) >= 4:
            found = process.extract(
                word, self._vocabulary, scorer=fuzz.ratio, score_cutoff=70, limit=8
            )
            close += [w for w, _s, _i in found if w != word and _word_match(word, w)]
        self._close_cache[word] = close
        return close

    def _exact_keys(self, s: NameShape) -> set[str]:
        """Names equal up to separators, case, plurals, suffixes, order, or topic."""
        pool = set(self._by_all.get(s.all, ()))
        pool.update(self._by_sorted.get(tuple(sorted(s.all)), ()))
        if s.base:
            pool.update(self._by_base.get(tuple(sorted(s.base)), ())[:50])
        return pool

    def _word_pool(self, s: NameShape) -> tuple[list[str], bool]:
        """Names sharing words (typo-tolerant) with ``s``, most shared first.

        Postings are taken rarest first within a budget: a rare word singles out the
        intended memory, a topic word shared by hundreds of names only costs time.
        """
        # Every order below is fixed (sorted words, ties broken by name), so the same
        # memories always give the same candidates, whatever Python's hash seed.
        postings = []
        for word in sorted(set(s.all)):
            for close in self._close_words(word):
                postings.append((len(self._by_word[close]), close, self._by_word[close]))
        postings.sort(key=lambda entry: entry[:2])
        hits: Counter[str] = Counter()
        taken = 0
        for size, _word, posting in postings:
            if taken and taken + size > self.POSTING_BUDGET:
                break
            hits.update(posting)
            taken += size
        ranked = sorted(hits.items(), key=lambda item: (-item[1], item[0]))
        return [name for name, _n in ranked[:40]], bool(postings)

    def _scored(self, missing: str, names: Iterable[str]) -> list[tuple[float, str]]:
        s = shape(missing)
        same_base = len(self._by_base.get(tuple(sorted(s.base)), ()))
        scored = []
        for name in names:
            if name == missing:
                continue
            score = name_similarity(missing, name)
            if same_base > 1 and shape(name).base == s.base and shape(name).topic != s.topic:
                # the same last segment in several topics: a move to any of them is a guess
                score *= 1 - 0.05 * min(same_base - 1, 4)
            if score >= MIN_SCORE:
                scored.append((-score, name))
        return scored

    def candidates(self, missing: str, limit: int = MAX_CANDIDATES) -> tuple[str, ...]:
        """Existing names that ``missing`` most likely meant, best first; () when none is close."""
        cached = self._cache.get(missing)
        if cached is not None:
            return cached[:limit]
        s = shape(missing)
        result: tuple[str, ...] = ()
        if s.all:
            exact = self._exact_keys(s)
            scored = self._scored(missing, self._prefilter(s, exact))
            if not scored or min(scored)[0] > -0.95:
                pool, recognised = self._word_pool(s)
                pool = [n for n in pool if n not in exact]
                scored += self._scored(missing, self._prefilter(s, pool))
                if not recognised:
                    found = process.extract(
                        "".join(s.all), self._joined_keys, scorer=fuzz.ratio, score_cutoff=80,
                        limit=5,
                    )  # fmt: skip
                    extra = {n for key, _s, _i in found for n in self._joined[key]}
                    scored += self._scored(missing, extra - exact)
            scored.sort()
            if scored:
                best = -scored[0][0]
                result = tuple(n for sc, n in scored if -sc >= best - MAX_GAP_TO_BEST)
                result = result[:MAX_CANDIDATES]
        self._cache[missing] = result
        return result[:limit]

    def _prefilter(self, s: NameShape, pool: Iterable[str]) -> list[str]:
        """The few names of ``pool`` worth a full score (rapidfuzz on canonical words)."""
        pool = sorted(pool)
        if len(pool) <= self.PREFILTER:
            return pool
        keys = [self._key[n] for n in pool]
        found = process.extract(
            " ".join(s.all), keys, scorer=fuzz.token_set_ratio, limit=self.PREFILTER
        )
        return [pool[i] for _k, _s, i in found]


MEMORY_PATH_PREFIX = "serena/memories/"  # `.serena/memories/x.md`: the run after the dot
_CAMEL_HUMP = re.compile(r"[a-z0-9][A-Z]")
_SEPARATOR = re.compile(r"[_\-/]")


@lru_cache(maxsize=262144)
def near_words(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(words, numbers) of a name or token for near-misses: words lowercase and singular,
    version words (`v2`, `old`, `legacy`...) at either end dropped; numbers (`008` is
    `8`) kept apart, in order. A number is part of a name (`iss-008` is not `iss-002`);
    keeping the numbers apart lets a token that has none still find a dated name."""
    words: list[str] = []
    numbers: list[str] = []
    for word in split_words(text):
        if word.isdigit():
            numbers.append(str(int(word)))
        else:
            words.append(word)
    start, end = 0, len(words)
    while end - start > 1 and _is_version_word(words[end - 1]):
        end -= 1
    while end - start > 1 and _is_version_word(words[start]):
        start += 1
    return tuple(singular(w) for w in words[start:end]), tuple(numbers)


def memory_path(token: str) -> str:
    """The memory name a path to its file spells (`serena/memories/x` from
    `.serena/memories/x.md`, `/x` from a relative link `../x.md`), else ``token``."""
    if token.startswith(MEMORY_PATH_PREFIX):
        return token[len(MEMORY_PATH_PREFIX) :]
    return token.lstrip("/")


def _is_subsequence(part: Sequence[str], whole: Sequence[str]) -> bool:
    rest = iter(whole)
    return all(item in rest for item in part)


def is_code_identifier(token: str) -> bool:
    """camelCase or PascalCase with no separator: how code, not prose, names things."""
    return _SEPARATOR.search(token) is None and _CAMEL_HUMP.search(token) is not None


class NearMissIndex:
    """Long bare tokens that a person would accept as "you meant that memory".

    A token matches a name when, compared as words (case, separators and plurals aside):
    both have the same words (best); the token is the name's last segment
    (`webhook_sampling` for `notifications/webhook_sampling`); or the words of one are a
    contiguous run of the other's covering at least 60% of them (the more the better).
    Numbers must agree: a token with numbers only matches a name with the same numbers
    (`issue-finder-ISS-008` is `audit-issue-finder-iss-008`, not `...-iss-002`); a token
    without numbers may match a numbered or dated name, if only one fits.

    What a person would not accept is left out: a single word (`convention` is prose, not
    `conventions`), a camelCase identifier unless the name is spelled that way
    (`DebugLogger`), a path with a slash where the name has none (`UI/Streamlit`), a
    folder (`test-cases/`, or a topic such as `d27-cursor-pagination`), the source's own
    name, and a tie between several names (an arbitrary pick is no help). A path to a
    memory file (`.serena/memories/x.md`, whose run is `serena/memories/x`) means that
    memory.
    """

    MIN_COVERAGE = 0.6
    MIN_RUN_WORDS = 3  # words a token needs to stand for most of a longer last segment

    def __init__(self, names: Iterable[str], all_names: Iterable[str] = ()) -> None:
        names = sorted(set(names))
        self._all = frozenset(all_names) | frozenset(names)
        self._exact: dict[tuple[str, ...], list[str]] = {}
        self._last: dict[tuple[str, ...], list[str]] = {}
        self._runs: dict[tuple[str, ...], dict[str, float]] = {}  # runs of all the words
        self._last_runs: dict[tuple[str, ...], dict[str, float]] = {}  # of the last segment
        self._numbers: dict[str, tuple[str, ...]] = {}
        self._camel: dict[str, list[str]] = {}  # last segments without separators
        self._topics: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
        for name in self._all:
            topic = name.rpartition("/")[0]
            while topic:
                self._topics.add(near_words(topic))
                topic = topic.rpartition("/")[0]
        for name in names:
            words, numbers = near_words(name)
            if not words:
                continue
            self._numbers[name] = numbers
            self._exact.setdefault(words, []).append(name)
            last = name.rpartition("/")[2]
            last_words = near_words(last)[0]
            if "/" in name and last_words:
                self._last.setdefault(last_words, []).append(name)
            if not any(c in last for c in "_-"):
                self._camel.setdefault(last.lower(), []).append(name)
            for whole, index in ((words, self._runs), (last_words, self._last_runs)):
                n = len(whole)
                for size in range(1, n):
                    coverage = size / n
                    if coverage < self.MIN_COVERAGE:
                        continue
                    for i in range(n - size + 1):
                        runs = index.setdefault(whole[i : i + size], {})
                        if coverage > runs.get(name, 0.0):
                            runs[name] = coverage
        self._cache: dict[str, list[tuple[float, str]]] = {}

    def ranked(self, token: str) -> list[tuple[float, str]]:
        """Matching names with their scores, best first (ties by name), whatever the
        source: a function of the token and the set of names alone, so it can be kept."""
        cached = self._cache.get(token)
        if cached is not None:
            return cached
        result: list[tuple[float, str]] = []
        plain = memory_path(token)
        if plain != token and plain in self._all:
            result = [(1.0, plain)]
        elif not plain.endswith(("/", "-", "_")) and not token.startswith("/"):
            result = self._scored(plain)
        self._cache[token] = result
        return result

    def _scored(self, token: str) -> list[tuple[float, str]]:
        words, numbers = near_words(token)
        if len(words) + len(numbers) < 2 or not words:
            return []  # one word is prose (`convention`), not a memory name
        if (words, numbers) in self._topics and words not in self._exact:
            return []  # a folder of memories, not one memory
        if is_code_identifier(token):  # only a name spelled the same way
            return [(1.0, name) for name in self._camel.get(token.lower(), ())]
        scored = self._matches(words, numbers)
        if "/" in token:  # a path where the name has none is a folder or a phrase
            scored = {name: s for name, s in scored.items() if "/" in name}
        return sorted(((s, name) for name, s in scored.items()), key=lambda e: (-e[0], e[1]))

    def _matches(self, words: tuple[str, ...], numbers: tuple[str, ...]) -> dict[str, float]:
        """{name: score} of every name the token's words match, numbers agreeing."""
        scored: dict[str, float] = {}

        def offer(name: str, score: float) -> None:
            own = self._numbers[name]
            if own != numbers:
                if not _is_subsequence(numbers, own):
                    return  # `iss-008` is not `iss-002`, nor `fixes_2025_02` `fixes_2025_01`
                score -= 0.05  # some of the name's numbers left out: close, not the same
            if score > scored.get(name, 0.0):
                scored[name] = score

        for name in self._exact.get(words, ()):
            offer(name, 1.0)
        for name in self._last.get(words, ()):
            offer(name, 0.95)
        for name, coverage in self._runs.get(words, {}).items():
            offer(name, 0.6 + 0.3 * coverage)
        if len(words) >= self.MIN_RUN_WORDS:  # `Anti-Pattern` is a phrase, not most of
            for name, coverage in self._last_runs.get(words, {}).items():  # `x/x-anti-patterns`
                offer(name, 0.6 + 0.3 * coverage)
        n = len(words)  # the token's words contain a name's words
        for size in range(1, n):
            coverage = size / n
            if coverage < self.MIN_COVERAGE:
                continue
            for i in range(n - size + 1):
                for name in self._exact.get(words[i : i + size], ()):
                    offer(name, 0.6 + 0.3 * coverage)
        return scored

    def has_match(self, token: str) -> bool:
        return bool(self.ranked(token))

    def best(self, token: str, source: str) -> tuple[str, float] | None:
        return best_match(self.ranked(token), token, source)


def best_match(
    ranked: Sequence[tuple[float, str]], token: str, source: str
) -> tuple[str, float] | None:
    """The memory ``token`` in ``source`` most likely means, and how sure (1.0: the same
    words), from the token's ranking (:meth:`NearMissIndex.ranked`); None when it is the
    source itself or several fit equally."""
    if not ranked:
        return None
    plain = memory_path(token)
    own = near_words(source), near_words(source.rpartition("/")[2])
    if plain == source or near_words(plain) in own:
        return None  # the memory naming itself
    ranked = [(s, name) for s, name in ranked if name != source]
    if not ranked or (len(ranked) > 1 and ranked[1][0] == ranked[0][0]):
        return None
    score, name = ranked[0]
    return name, score
