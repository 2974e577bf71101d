"""What is written in which language, said two ways: "Code comments, docs, and commit
messages should be Korean" / "Commit messages should be English, imperative mood, even
when comments are Korean", "Conventional commits, English" / "commit messages ... are
written in Korean". A project writes its commit messages (its comments, its docs, the
agent's answers) in one language; two memories that name two disagree, however the rest
is worded, and neither holds a value :mod:`.slots` reads.

A *language row* is one per thing a sentence says the language of (:data:`_THINGS`: commit
messages, comments, docstrings, docs, pull requests, log and error messages, the UI, the
agent's answers) when the sentence names one language (of a sentence naming two, each
clause naming one): keyed by the thing, its value column the language (:func:`held_of`).
The check's key groups leave out a thing a memory gives two languages (a rule with its
exception, a translation) and one many memories hold. Not read: fenced blocks.
"""

from __future__ import annotations

import re
import zlib

from serena_memory.integrity.duplicates.slots import SLOT_MARK, stated_lines

LANGUAGE_PIECE = 3
"""The piece bits of a language row's place (a sentence index of a slot's too: a row is
read by the rule whose value it holds, and a slot's value never is a language's)."""
_SALT = "\x1elanguage"
_LINES = (1 << 27) - 1
_LANGUAGES = {
    "english": "en", "korean": "ko", "japanese": "ja", "chinese": "zh", "german": "de",
    "french": "fr", "spanish": "es", "portuguese": "pt", "russian": "ru", "italian": "it",
    "dutch": "nl", "polish": "pl", "turkish": "tr", "vietnamese": "vi", "englisch": "en",
    "deutsch": "de", "한국어": "ko", "한글": "ko", "영어": "en", "日本語": "ja", "英語": "en",
    "英文": "en", "英语": "en", "中文": "zh", "中国語": "zh", "日语": "ja", "韩语": "ko",
}  # fmt: skip
_LANGUAGE = re.compile(
    r"(?i)\b(?:"
    + "|".join(k for k in _LANGUAGES if k.isascii())
    + r")\b|"
    + "|".join(k for k in _LANGUAGES if not k.isascii())
)
_THINGS = {
    "commit": r"commit(?:s| messages?)?|커밋|コミット|提交",
    "comment": r"(?:code )?comments?|주석|コメント|注释",
    "docstring": r"docstrings?",
    "doc": r"docs|documentation|문서|ドキュメント|文档",
    "pr": r"prs?|pull requests?",
    "log": r"log messages?|logs",
    "error": r"error messages?",
    "ui": r"ui(?: text| copy| strings)?|user-facing (?:text|strings|copy)",
    "reply": r"respon(?:d|ses?)|repl(?:y|ies)|answers?|응답|回答|返答",
}
_THING = re.compile(
    "|".join(
        rf"(?P<{name}>(?<![A-Za-z0-9_/.-])(?:{words})(?![A-Za-z0-9_/]))"
        for name, words in _THINGS.items()
    ),
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[.!?;。])\s+")
_CLAUSE = re.compile(r",|、|，|\b(?:but|while|whereas|even when|except)\b", re.IGNORECASE)


def held_of(language: str) -> int:
    """The value column of a language row: the language's code, salted apart."""
    return zlib.crc32(f"{_SALT}\x1f{language}".encode())


def _key(thing: str) -> int:
    return zlib.crc32(f"{_SALT}\x1f{thing}".encode())


def said(line: str) -> dict[str, str]:
    """What a line says the language of: {thing: language code}, of each sentence (or,
    naming two languages, each clause) that names one language; not a thing the line
    gives two languages (`Docs in English, and the Korean docs in docs/ko/`)."""
    found: dict[str, str] = {}
    both: set[str] = set()  # things the line gives two languages: a rule and its exception
    for sentence in _SENTENCE.split(line):
        named = {_LANGUAGES[m.group(0).casefold()] for m in _LANGUAGE.finditer(sentence)}
        if not named:
            continue
        for part in _CLAUSE.split(sentence) if len(named) > 1 else (sentence,):
            languages = {_LANGUAGES[m.group(0).casefold()] for m in _LANGUAGE.finditer(part)}
            if len(languages) == 1:
                language = languages.pop()
                for m in _THING.finditer(part):
                    thing = str(m.lastgroup)
                    if found.setdefault(thing, language) != language:
                        both.add(thing)
    return {thing: language for thing, language in found.items() if thing not in both}


def language_keys(text: str) -> list[tuple[int, int, int]]:
    """One row per thing each line (but in fenced blocks) says the language of."""
    if _LANGUAGE.search(text) is None:
        return []
    rows = []
    for number, line, fenced in stated_lines(text):
        if fenced or _LANGUAGE.search(line) is None:
            continue
        where = SLOT_MARK | (number & _LINES) << 3 | LANGUAGE_PIECE
        rows += [(_key(thing), where, held_of(lang)) for thing, lang in said(line).items()]
    return rows


def contradict(line_a: str, line_b: str, held_a: int, held_b: int) -> tuple[str, str] | None:
    """The two languages, when two lines say one thing is written in two: (first's,
    second's), as each names it."""
    sa, sb = said(line_a), said(line_b)
    for thing, language in sa.items():
        other = sb.get(thing)
        if other and other != language and (held_of(language), held_of(other)) == (held_a, held_b):
            return _named(line_a, language), _named(line_b, other)
    return None


def _named(line: str, language: str) -> str:
    """The word a line names ``language`` by (`English`, `한국어`)."""
    found = (m.group(0) for m in _LANGUAGE.finditer(line))
    return next(w for w in found if _LANGUAGES[w.casefold()] == language)
