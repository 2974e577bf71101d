"""Names a memory writes that look like files but stand for none: a naming rule
(``PascalCase.tsx``, ``.test.ts``), a placeholder (``PRP-XXX-feature.md``), a product
(``Node.js``) and a name the line gives as an example (``e.g. `UserProfile.tsx```), which
is a claim only when git knew the file (pure).
"""

from __future__ import annotations

import re


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


PLACEHOLDER_NAME = re.compile(
    r"^(?:(?:pascal|camel|kebab|snake|upper|lower|title|screaming)[-_]?case(?:[-_.]\w+)?"
    r"|\.(?:test|spec|stories|story|d|min|module|e2e|config)\.\w+)$",
    re.IGNORECASE,
)
"""Names that state a naming rule: a case style or a bare role suffix like ``.test.ts``."""

PLACEHOLDER_PART = re.compile(
    r"(?:^|[-_./])(?:X{2,}|x{3,}|N{3,}|Y{4}|[XYZN]|NAME|FEATURE|COMPONENT|MODULE|SERVICE)"
    r"(?=$|[-_./])"
)
"""A part of a name that stands for any value: ``PRP-XXX-feature.md``, ``NNN-spec.md``, one
capital letter (``copy-X.test.js``, ``docs/X.md``) or a capitalised word that says what
goes there (``copy-NAME.test.js``)."""

PRODUCT_WORDS = _words(
    """GitHub GitLab BitBucket Bitbucket JavaScript TypeScript CoffeeScript PostgreSQL
    MySQL SQLite MongoDB MariaDB NoSQL GraphQL FastAPI OpenAPI OAuth OpenID PyPI PyPy
    CPython IPython NumPy SciPy PyTorch TensorFlow macOS iOS iPadOS watchOS tvOS iPhone iPad
    VSCode VSCodium IntelliJ PyCharm WebStorm GoLand DevOps DevTools YouTube LinkedIn WordPress
    PowerShell CloudFlare Cloudflare DynamoDB BigQuery OpenAI ChatGPT LangChain LlamaIndex
    MkDocs JetBrains WebSocket WebSockets WebAssembly WebGL WebRTC NodeJS NextJS NuxtJS
    ReactJS VueJS GitOps HashiCorp ElasticSearch Elasticsearch OpenSearch RabbitMQ ZeroMQ
    ActiveRecord RuboCop ESLint TSLint PostCSS SaaS PaaS IaaS ClickHouse CockroachDB
    HuggingFace DeepSeek OpenRouter AppKit UIKit SwiftUI CocoaPods KDE GNOME XCode Xcode
    JSDoc TeX LaTeX BibTeX PhD McDonald"""
)
"""CamelCase words that name products, not symbols of the project."""

PROSE_PRODUCTS = _words(
    """node.js vue.js next.js nuxt.js express.js three.js chart.js d3.js ember.js angular.js
    react.js alpine.js p5.js moment.js nest.js deno.js bun.js knockout.js backbone.js
    socket.io asp.net ado.net"""
)
"""Product names written like file names in prose."""

_INTRODUCERS = (
    r"\be\.\s?g\.|\bfor (?:example|instance)|\bsuch as"
    r"|例えば|たとえば|例如|比如|例(?=\s*[:：])"
)
"""The words that introduce an example, in English, Japanese and Chinese: ``e.g.``,
``例:`` (``（例: `agent_loop.go`）`` after a naming rule), ``例えば``, ``例如``; ``例外``
("exception") is none. German ``z. B.`` is left out: notes list the project's real files
after it as often as made-up ones."""
_EXAMPLE = re.compile(
    rf"(?:{_INTRODUCERS})[,:：]?\s*"
    r"(?:`[^`]{1,60}`\s*(?:,|、|\bor\b|\band\b)\s*){0,4}(?:or |and )?[*_(\[]*"
    r"(?:[a-z][\w-]*\s+){0,2}$",
    re.IGNORECASE,
)
"""What introduces an example just before a name, the names listed with it included:
``(e.g., `UserProfile.tsx`)``, ``(e.g., `features/`, `bugs/`)``, ``（例: `a.go`, `b.go`）``,
two plain words between (``e.g. non-obvious nix.conf``)."""
ON_PATH = re.compile(r"\b(?:on|in)\s+(?:the\s+|your\s+|their\s+)?\$?PATH\b")
"""A line that says a name is a program found on the machine's PATH (``dart.bat``)."""
_CASE_STYLES = (
    r"(?:kebab|snake|camel|pascal|train|screaming|upper[-_ ]snake|lower[-_ ]snake)[-_ ]?case"
    r"|スネークケース|ケバブケース|キャメルケース|パスカルケース|蛇形命名|驼峰命名|短横线命名"
)
_STYLE_SHOWN = re.compile(
    rf"(?:{_CASE_STYLES})\**(?:\s+[a-z]+){{0,3}}\s*[(（][^()（）]{{0,200}}$", re.IGNORECASE
)
"""A case style named in words, then the parenthesis the name is in: "**Files**:
kebab-case (`quote-calculator.ts`, ...)", "kebab-case for files (`goal-card.tsx`)",
"スネークケース（例: `agent_loop.go`）": the names show the style, they are not the
project's files."""
_NAMING_SHOWN = re.compile(r"\b(?:naming|named|conventions?|patterns?)\b[^`]{0,40}$", re.IGNORECASE)
"""A label that says a naming rule follows, right before the name: "**Test Naming**:
`test_feature_functionality.py`", "files are named `x_test.go`": the name shows the
rule."""
_ETC_LISTED = re.compile(r"[^()]{0,200}?,\s*(?:etc\.?|and so on|\.\.\.|…)\s*\)", re.IGNORECASE)
"""The rest of a parenthesis that lists names and ends in "etc." ("build files
(CMakeLists.txt, Makefile, package.json, etc.)"): kinds of file any project may have."""
_LANGUAGE_LABEL = re.compile(
    r"\s*(?:[-*+]|\d+\.)\s+\*\*(?:C/C\+\+|C\+\+|C#|Python|TypeScript/JavaScript|TypeScript"
    r"|JavaScript|Go|Golang|Rust|Java|Kotlin|Ruby|PHP|Swift|Dart|Node\.js)\s*:?\s*\*\*\s*:?\s"
)
"""A list item labelled with a programming language ("- **Python:** Check for
pyproject.toml, setup.cfg, or requirements.txt"): the files such a project has, examples
for any project, not this one's."""
_HINT_WORDS = (
    "etc",
    "e.g",
    "e. g",
    "for example",
    "for instance",
    "such as",
    "case",
    "naming",
    "named",
    "convention",
    "pattern",
    "例",
    "比如",
)
_HINT_CJK = ("ケース", "命名")


def may_give_examples(line: str) -> bool:
    """A quick test for a whole line: without one of these words (an introducer, a case
    style) or the word PATH no name on it is an example."""
    low = line.lower()
    for word in _HINT_WORDS:  # a loop of substring tests: this runs for every line
        if word in low:
            return True
    if not low.isascii() and any(word in low for word in _HINT_CJK):
        return True
    if "**" in line and _LANGUAGE_LABEL.match(line):
        return True
    return "path" in low and ON_PATH.search(line) is not None


def is_example(line: str, start: int) -> bool:
    """Whether ``line`` introduces what starts at ``start`` as an example (after
    ``e.g.``, in the parenthesis after a case style it shows, or right after a label
    that says a naming rule follows), or says the names on it
    are programs on the machine's PATH (a file of the project only when git knew it)."""
    window = max(0, start - 360)
    return bool(
        _EXAMPLE.search(line, window, start)
        or _STYLE_SHOWN.search(line, window, start)
        or _NAMING_SHOWN.search(line, window, start)
        or ON_PATH.search(line)
        or _LANGUAGE_LABEL.match(line)
        or (
            line.rfind("(", window, start) > line.rfind(")", window, start)
            and _ETC_LISTED.match(line, start)
        )
    )


def shows_style(line: str, start: int) -> bool:
    """Whether what starts at ``start`` is shown as a case style's or a naming rule's
    example ("PascalCase (`GoalCard`)", "**Test Naming**: `test_x`"): a name that shows how
    names look, not one the code has."""
    window = max(0, start - 360)
    shown = _STYLE_SHOWN.search(line, window, start) or _NAMING_SHOWN.search(line, window, start)
    return shown is not None


_MADE_UP_STEM = re.compile(
    r"^_*(?:test[-_])?(?:foo|bar|baz|qux|example|sample|something|name|filename|file"
    r"|(?:your|my|some|new)[-_]\w[\w-]*|[\w-]*feature[-_]name)(?:[-_.](?:test|spec))?$",
    re.IGNORECASE,
)
"""A file's stem that stands for any file: ``foo.py``, ``your-file.ts``, ``name.py``, and
the same in a naming rule (``_name.py``, ``test_name.py``, ``name.spec.ts``)."""


_LIBRARY_ENDS = (".js", ".jl")
"""How a library's name written like a file ends: ``Passport.js``, a Julia package's
``Flux.jl``."""


def may_be_made_up(path: str) -> bool:
    """Whether a path may name no file of the project but a library or a stand-in: a
    library's name written like a file (``Passport.js``: a capital and ``.js``; a Julia
    package, ``Flux.jl``: a capital and ``.jl``; alone or after other names of
    products, ``React/Next.js``) or a
    stand-in stem (``foo.py``, ``my-component.tsx``, ``isX.js``), or words of a sentence
    written against a path with no space (``CI/CDワークフローをci.yml``: a Japanese
    particle glued to the Latin letters of a part), or a path under a site's name
    (``pvp.codes/app/page.tsx``). Such a name is a claim only when git knew the file."""
    if _GLUED.search(path) or _SITE_FIRST.match(path):
        return True
    parts = path.rstrip("/").split("/")
    last = parts[-1]
    stem = last.split(".", 1)[0]
    library = last.endswith(_LIBRARY_ENDS) and last[:1].isupper() and "." not in stem
    # alone, or among other names (`React/Next.js`): the products a heading is about
    library = library and all(part[:1].isupper() for part in parts)
    # a word with one capital for any name (`src/lib/isX.js`, `useX.ts`): a naming rule
    return library or bool(_MADE_UP_STEM.match(stem) or STAND_IN_WORD.match(stem))


_SITE_FIRST = re.compile(
    r"^[a-z0-9-]+\.(?:com|org|net|io|dev|app|ai|co|sh|me|so|gg|xyz|site|tech|cloud|codes"
    r"|page|pages|vercel\.app|netlify\.app)/"
)
"""A path under a site's name (``pvp.codes/app/page.tsx``: the web frontend's repository
named by its domain): another project's file unless git knew it here."""
_GLUED = re.compile(r"[A-Za-z][\u3040-\u309f]|[\u3040-\u309f][A-Za-z]")
"""A Latin letter and a hiragana character side by side: a Japanese sentence's particle
glued to a word (``をci.yml``); file names hardly hold hiragana next to Latin letters
(``docs/KB運用ガイド.md`` holds kanji and katakana)."""

_ANY_PROJECT = re.compile(
    r"^(?:app|application|project|repo|repository|root|workspace|example|sample"
    r"|(?:my|your|some|new)[-_][\w-]+)$",
    re.IGNORECASE,
)
"""A tree's top folder that stands for any project using a tool (``app/``,
``my-project/``), not this project's folder under its own name."""


def stands_for_any_project(folder: str) -> bool:
    """Whether a tree's top ``folder`` (no ``/``) is a stand-in for any project."""
    return bool(_ANY_PROJECT.match(folder))


STAND_IN_WORD = re.compile(r"^[a-z]{2,}[A-Z]$")
"""A naming rule written with one capital for any word: ``withX``, ``hasX``, ``useX``."""

_STAND_IN = _words("fn func function method callable foo bar baz qux xxx")
"""Names that stand for any function in a written pattern (``humanize.fn(*test_args)``)."""


def placeholder_call(parts: list[str], call: str | None) -> bool:
    """Whether a dotted name or a call is a written pattern, not a symbol of the project:
    the name called stands for any function (``humanize.fn(*test_args)``, ``obj.func``)."""
    return (len(parts) > 1 or call is not None) and parts[-1].lower() in _STAND_IN


GENERIC_WORDS = _words("true false none null nil self this undefined nan inf todo fixme")
"""Words written in code spans that name no symbol of the project."""
