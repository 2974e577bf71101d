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


class NearMissIndex:
    """Long bare tokens that are near-misses of existing names (``frontend-grid-layout`` for
    ``frontend/grid_layout``, ``suggested_commands_list`` for ``suggested_commands``).

    A token matches a name when both have the same canonical words (best), or when the
    words of one are a contiguous run of the other's covering at least 60% of the longer
    one: best when the token is the name's last segment (`webhook_sampling` for
    `notifications/webhook_sampling`), else the more they cover the better. Ties go to the
    alphabetically first name.
    """

    MIN_COVERAGE = 0.6

    def __init__(self, names: Iterable[str]) -> None:
        self._exact: dict[tuple[str, ...], list[str]] = {}
        self._runs: dict[tuple[str, ...], list[tuple[int, str]]] = {}
        self._words_of: dict[str, tuple[str, ...]] = {}
        self._last: dict[str, tuple[str, tuple[str, ...]]] = {}
        for name in sorted(set(names)):
            words = canonical_words(name)
            if not words:
                continue
            self._words_of[name] = words
            self._exact.setdefault(words, []).append(name)
            last = name.rpartition("/")[2]
            self._last[name] = (last.lower(), canonical_words(last))
            n = len(words)
            for size in range(self._min_run(n), n + 1):
                for i in range(n - size + 1):
                    self._runs.setdefault(words[i : i + size], []).append((n, name))
        self._cache: dict[str, list[tuple[float, str]]] = {}

    @classmethod
    def _min_run(cls, n: int) -> int:
        """The fewest of ``n`` words that cover enough of them (the same float test as
        the scoring, so no rounding can disagree with it)."""
        return next(size for size in range(1, n + 1) if size / n >= cls.MIN_COVERAGE)

    def _ranked(self, token: str) -> list[tuple[float, str]]:
        cached = self._cache.get(token)
        if cached is not None:
            return cached
        words = canonical_words(token)
        scored: dict[str, float] = {}

        def offer(name: str, score: float) -> None:
            if score > scored.get(name, 0.0):
                scored[name] = score

        for name in self._exact.get(words, ()):
            offer(name, 1.0)
        n = len(words)
        # the token's words contain a name's words ...
        for i in range(n):
            for j in range(i + 1, n + 1):
                coverage = (j - i) / n
                if coverage < self.MIN_COVERAGE:
                    continue
                for name in self._exact.get(words[i:j], ()):
                    offer(name, 0.6 + 0.3 * coverage)
        # ... or a name's words contain the token's; best when the token is its last segment
        lowered = token.lower()
        for length, name in self._runs.get(words, ()):
            last, last_words = self._last[name]
            if last == lowered:
                offer(name, 0.97)
            elif last_words == words:
                offer(name, 0.95)
            else:
                offer(name, 0.6 + 0.3 * n / length)
        ranked = sorted(((-s, name) for name, s in scored.items()))
        result = [(-s, name) for s, name in ranked]
        self._cache[token] = result
        return result

    def has_match(self, token: str) -> bool:
        return bool(self._ranked(token))

    def best(self, token: str, source: str) -> str | None:
        """The most likely meant name for ``token`` found in ``source``, never ``source``."""
        ranked = self._ranked(token)
        if not ranked:
            return None
        own = canonical_words(source)
        for _score, name in ranked:
            if name != source and self._words_of[name] != own:
                return name
        return None
