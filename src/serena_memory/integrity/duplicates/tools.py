"""A role filled by two tools of one kind: "Type checking uses `ty`" / "- Type check:
`uv run mypy src`", `| Unit tests | Jest |` / "Vitest runs the unit tests", "Logging goes
through slog" / "the logger is zerolog". A project has one linter, one package manager,
one test runner of a language; two memories that name two of them for the same role
disagree, though the tool is a plain word no value rule reads.

A *tool row* is one per tool a line names (of :data:`KINDS`, a short list of the tools
people choose between, by kind) and per word of the line that says what it is used for
(its *role*: `type`, `check`, `test`, `unit`, `log`...; a small or generic word is none):
keyed by the kind and that word, its value column the tool's hash salted apart
(:func:`held_of`). Two lines meet when they name tools of one kind beside one role word.
Not read: a line that names two tools of one kind (a choice, a migration: "ruff, not
flake8"), and source code blocks. The check's key groups leave out a kind a memory gives
two tools (a list) and one three memories give three; :func:`contradict` also leaves out
two memories of which one names the other's tool anywhere (a comparison, a history).
"""

from __future__ import annotations

import re
import zlib

from serena_memory.integrity.duplicates.slots import SLOT_MARK, SMALL, stated_lines


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


KINDS: dict[str, frozenset[str]] = {
    kind: frozenset(tools.split())
    for kind, tools in {
        "python type checker": "mypy ty pyright pyre pytype basedpyright",
        "python linter": "flake8 ruff pylint pyflakes pycodestyle",
        "python formatter": "black yapf autopep8",
        "python test runner": "pytest unittest nose nose2",
        "python snapshot testing": "syrupy pytest-snapshot snapshottest",
        "python package manager": "pip poetry uv pipenv pdm conda rye",
        "python build backend": "hatchling setuptools flit flit-core poetry-core pdm-backend",
        "python logger": "structlog loguru",
        "javascript package manager": "npm pnpm yarn bun",
        "javascript test runner": "jest vitest mocha jasmine ava",
        "javascript linter": "eslint biome oxlint tslint",
        "javascript formatter": "prettier dprint",
        "javascript bundler": "webpack vite rollup esbuild parcel turbopack rspack",
        "react router": "wouter react-router react-router-dom",
        "javascript orm": "prisma drizzle typeorm sequelize kysely mikro-orm",
        "go logger": "slog zap zerolog logrus",
        "javascript module format": "esm commonjs",
        "javascript test dom": "jsdom happy-dom",
        "schema validation": "zod yup valibot joi arktype superstruct",
        "android image loader": "glide coil picasso fresco",
        "swift test framework": "xctest swift-testing",
        "python docstring style": "google numpy sphinx restructuredtext epytext",
        "diagram tool": "plantuml mermaid graphviz",
    }.items()
}
"""Tools people choose one of, by kind (a project uses one of each): a general list of
the common ones, not of any memory's words."""
ROLES: dict[str, frozenset[str]] = {
    kind: frozenset(roles.split())
    for kind, roles in {
        "python type checker": "type typ check 类型 型チェック 타입",
        "python linter": "lint check style 检查 検査 リント 린트",
        "python formatter": "format style 格式 フォーマット 포맷",
        "python test runner": "test unit suite spec 测试 テスト 테스트",
        "python snapshot testing": "snapshot test",
        "python package manager": (
            "package install depend lock manag environment 依赖 パッケージ 패키지"
        ),
        "python build backend": "build backend",
        "python logger": "log",
        "javascript package manager": "package install depend lock manag workspace",
        "javascript test runner": "test unit suite spec",
        "javascript linter": "lint check style",
        "javascript formatter": "format style",
        "javascript bundler": "bundl build",
        "react router": "rout navigat",
        "javascript orm": "database orm schema migrat query",
        "go logger": "log",
        "javascript module format": "modul packag format output",
        "javascript test dom": "dom environ preload",
        "schema validation": "schema valid contract",
        "android image loader": "image",
        "swift test framework": "test unit",
        "python docstring style": "docstr",
        "diagram tool": "diagram chart",
    }.items()
}
"""What each kind of tool is for, as stems (:func:`_stem`): two lines name one role
when a word of theirs in common is one of these."""
_KIND_OF = {tool: kind for kind, tools in KINDS.items() for tool in tools}
GENERIC = _words(
    """use uses used using run runs running ran via with instead always never must should
    prefer preferred default defaults project projects tool tools command commands code
    file files config configuration setup set here there this that also only just all
    any each every both when then than from into over under before after make makes
    made new old see docs not note notes script scripts
    dev local work works working main part step steps time add added need needs via"""
)
"""Words beside a tool that say nothing of its role (a verb of any tool, a filler)."""
_CJK = "\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af"
_TOKEN = re.compile(rf"[a-z][a-z0-9_.+@\u00e0-\u024f-]*|[{_CJK}]+")
_ROLE = re.compile(rf"[a-z]+|[{_CJK}]{{2,}}")
"""A role word: Latin letters, or a run of Chinese, Japanese or Korean (`代码检查`, a
table's key in Chinese: no spaces to split it by)."""
_ANY_TOOL = re.compile(
    r"(?<![\w.+-])(?:"
    + "|".join(sorted(map(re.escape, _KIND_OF), key=len, reverse=True))
    + r")(?![\w+-])"
)
"""Any tool's name as a token of its own (one alternation: linear in the text)."""
_PHRASE = re.compile(r"\bswift testing\b")
"""A tool named in two words, read as the one token of :data:`KINDS`."""
_FLAVOUR = re.compile(r"-(style|based|flavou?red)\b")
"""A tool's name joined to a word of how it is followed (`NumPy-style docstrings`,
`Mermaid-based diagrams`): the tool, then that word."""
RULING_OUT = _words("not no never instead without than nor avoid")
"""Words before a tool that say it is not the one used."""
_LINES = (1 << 27) - 1
_SUFFIXES = ("ing", "ers", "er", "es", "s", "ed")
NEAR = 4
"""Tokens on each side of a tool whose words can say its role."""
MAX_ROLES = 12
MIN_ROLES = 2
SHORT = 8
"""Tokens of a line about its tool alone (`| Unit tests | Vitest |`, "Snapshot tests use
syrupy."): one role word in common aligns it."""
"""Role words of one line posted at most (a long line is read in part)."""
_SALT = "\x1etool"
TOOL_PIECE = 7
"""The piece bits of a tool row's place: its line, read again whole to compare."""


def _hash(*parts: str) -> int:
    return zlib.crc32("\x1f".join(parts).encode("utf-8", "surrogatepass"))


def held_of(tool: str) -> int:
    """The value column of a tool row: the tool's hash, salted apart from other rows'."""
    return _hash(_SALT, tool)


def _stem(word: str) -> str:
    """A word without its usual ending (`linting`, `linter`, `lints` are `lint`)."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:-1] if len(word) > 3 and word[-1] == word[-2] else word  # `logg`: `log`


def _folded(text: str) -> str:
    """``text`` casefolded, a tool of two words joined (`swift testing`), a tool's name
    apart from the word joined to it (`numpy-style`: `numpy style`)."""
    folded = text.casefold()
    if "-" in folded:
        folded = _FLAVOUR.sub(r" \1", folded)
    return _PHRASE.sub("swift-testing", folded) if "swift testing" in folded else folded


def _tool(token: str) -> str:
    """A token as a tool's name: `bun@1.3.11` is `bun`, `mypy.ini` stays itself."""
    return token.split("@", 1)[0].rstrip(".")


def _ruled_out(tokens: list[str], at: int) -> bool:
    """Whether the tool at ``at`` follows a word that rules it out (`Swift Testing, not
    XCTest`, `ruff instead of flake8`): the line names the other one as its choice."""
    return any(t in RULING_OUT for t in tokens[max(0, at - 2) : at])


def read_line(line: str) -> tuple[dict[str, str], list[str]]:
    """The tools a line names (kind to tool; none when it names two of one kind) and
    the role words beside them (stems of the words within :data:`NEAR` tokens of a
    tool, in order, at most :data:`MAX_ROLES`): what a long line says elsewhere is about
    something else."""
    tokens = _TOKEN.findall(_folded(line))
    tools: dict[str, set[str]] = {}
    places = []
    for at, token in enumerate(tokens):
        kind = _KIND_OF.get(_tool(token))
        if kind is not None:
            if not _ruled_out(tokens, at):
                tools.setdefault(kind, set()).add(_tool(token))
            places.append(at)
    roles: list[str] = []
    for at in places:
        beside = " ".join(tokens[max(0, at - NEAR) : at + NEAR + 1])
        for token in _ROLE.findall(beside):
            if (len(token) >= 3 or token[0] > "z") and token not in SMALL:
                stem = _stem(token)
                if not ({token, stem} & GENERIC or token in _KIND_OF or stem in roles):
                    roles.append(stem)
    named = {kind: next(iter(found)) for kind, found in tools.items() if len(found) == 1}
    return named, roles[:MAX_ROLES]


def tool_keys(text: str) -> list[tuple[int, int, int]]:
    """One row per tool of each line (but in source blocks) and role word beside it.
    Only the lines a search of the whole text finds a tool's name in are read word by
    word: most lines of a memory name none."""
    folded = _folded(text)
    marked: set[int] = set()
    line = at = 0
    for found in _ANY_TOOL.finditer(folded):  # lines counted on from the last match
        line += folded.count("\n", at, found.start())
        at = found.start()
        marked.add(line)
    if not marked:
        return []
    rows = []
    for number, said, fenced in stated_lines(text):
        if number - 1 not in marked:
            continue
        named, roles = read_line(said)
        where = SLOT_MARK | fenced << 30 | (number & _LINES) << 3 | TOOL_PIECE
        for kind, tool in named.items():
            rows += [(_hash(_SALT, kind, role), where, held_of(tool)) for role in roles]
    return rows


def tool_at(line: str, held: int) -> str | None:
    """The tool of ``line`` whose row holds ``held``, if any."""
    named, _roles = read_line(line)
    return next((t for t in named.values() if held_of(t) == held), None)


def contradict(lines: tuple[str, str], texts: tuple[str, str], tool_a: str, tool_b: str) -> bool:
    """Whether two memories name two tools of one kind for one role: two tools, beside
    :data:`MIN_ROLES` role words or more in common (one shared word is often chance: `block`,
    `hook`), and neither memory names the other's tool anywhere (then it compares them,
    or tells a move from one to the other)."""
    if tool_a == tool_b or _KIND_OF.get(tool_a) != _KIND_OF.get(tool_b):
        return False
    shared = set(read_line(lines[0])[1]) & set(read_line(lines[1])[1])
    short = min(len(_TOKEN.findall(line.casefold())) for line in lines) <= SHORT
    if not _for_role(shared, ROLES[_KIND_OF[tool_a]]) or len(shared) < (1 if short else MIN_ROLES):
        return False
    text_a, text_b = texts
    return not (_names(text_a, tool_b) or _names(text_b, tool_a))


def _for_role(words: set[str], roles: frozenset[str]) -> bool:
    """Whether a stem of ``words`` is one of ``roles`` or, for a role of four letters or
    more, starts with it (`dependenci`: `depend`; `log` alone, not `login`)."""
    return any(
        w in roles or any(len(r) > 3 and w.startswith(r) or r[0] > "z" and r in w for r in roles)
        for w in words
    )


def _names(text: str, tool: str) -> bool:
    """Whether ``text`` names ``tool`` other than to rule it out."""
    tokens = _TOKEN.findall(_folded(text))
    return any(_tool(t) == tool and not _ruled_out(tokens, at) for at, t in enumerate(tokens))
