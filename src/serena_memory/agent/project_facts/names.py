"""What a task's name says it does: the names of make targets, just recipes, tox
environments, nox sessions, npm scripts and the files of ``scripts/`` are read as words.

A name with a release word (``release``, ``publish``, ``deploy``, ``bump``, ...) is never
an everyday command, whatever else it says; a name with no word of a known kind is left
off the sheet (the agent can read the runner's file; the sheet stays short).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from serena_memory.agent.project_facts.sheet import FactSheet

# a build with the compiler's optimizations: `cargo build --release` releases nothing
BUILD_MODES = frozenset({"--release", "-r", "--profile=release"})
# programs and runners' verbs whose next word is the script that runs: `bash x/release.sh`
_RUNS_SCRIPT = frozenset({"bash", "sh", "zsh", "python", "python3", "node", "ruby", "perl",
                          "bun", "deno", "tsx", "ts-node", "run", "exec", "source",
                          "."})  # fmt: skip
# words that make a task a maintainer's, never an everyday one
NEVER = frozenset(
    {"release", "releases", "publish", "deploy", "upload", "bump", "version", "tag", "tags",
     "changelog", "prerelease", "dist", "dists", "sign", "notarize", "vendoring", "vendor",
     "snapshot", "homebrew", "snap", "pypi", "npm-publish", "announce", "contributors", "lockfiles",
     "outdated", "upgrade", "goreleaser", "update", "sponsors", "codeql", "audit", "security",
     "docker", "vuln", "vulncheck", "govulncheck", "authors",
     # CI's own jobs (`script/travis`, `nox -s github_actions_tests`) and packaging for a
     # distribution's package manager (`make brew-test`)
     "travis", "appveyor", "circleci", "jenkins", "buildkite", "github", "gha",
     "brew", "choco", "chocolatey", "scoop", "winget", "flatpak", "packaging",
     # the coverage report sent to a hosted service (`npm run coveralls`)
     "coveralls", "codecov",
     # the docs' links to other sites, checked over the network (CI's nightly chore)
     "linkcheck"}
)  # fmt: skip
# what a task led by a test word may do to the tests' own data: `test-snapshot-update`,
# `test:build:version` (they release nothing), or test besides the sources: `test:dist`
# runs the tests on the package built
_TESTS_MAY = frozenset({"snapshot", "update", "version", "upgrade", "dist"})
# (kind, words), checked in this order: `format-check` is a format task, `test:types` a
# type check, `lint:check` a lint
_KIND_WORDS: tuple[tuple[str, frozenset[str]], ...] = (
    ("typecheck", frozenset({"typecheck", "typechecks", "type", "types", "typing",
                             "mypy", "pyright", "tsc", "pyrefly", "ty"})),
    ("format", frozenset({"format", "fmt", "formatting", "prettier", "black", "isort", "fix",
                          "gofmt", "rustfmt", "autoformat", "reformat", "spotlessapply",
                          "blacken"})),
    # automake's `distcheck` builds and tests the release tarball: a test, not a lint
    ("test", frozenset({"distcheck"})),
    ("lint", frozenset({"lint", "linting", "linter", "check", "checks", "vet", "clippy",
                        "style", "flake8", "pylint", "ruff", "eslint", "rubocop",
                        "shellcheck", "precommit", "pre-commit", "spotlesscheck",
                        "validate", "checker", "verify", "analyze", "analyse", "analysis"})),
    ("test", frozenset({"test", "tests", "spec", "specs", "e2e", "unit", "integration",
                        "coverage", "cov", "itest", "testing", "pytest", "jest", "vitest",
                        "cover", "fuzz", "cucumber", "rspec", "mocha", "karma", "jasmine",
                        "regression"})),
    ("setup", frozenset({"install", "setup", "bootstrap", "deps", "init", "develop", "tools"})),
    ("build", frozenset({"build", "compile", "bundle", "assemble", "codegen", "transpile"})),
    ("run", frozenset({"start", "dev", "serve", "server", "run", "preview", "play", "watch",
                       "livehtml", "autobuild", "auto", "live", "console", "view"})),
    # the docs (and manual pages) are built unless the name says they are served
    # (`docs-serve`, `docs-auto`)
    ("build", frozenset({"docs", "doc", "html", "rdoc", "yard", "typedoc", "jsdoc", "javadoc",
                         "apidoc", "apidocs", "man", "manpage", "manpages"})),
)  # fmt: skip
# a test task's name with more to it than the word: `testcov`, `richtest`, `itest`
_TEST_AFFIX = ("test", "tests")  # `runtests`, `alltests`
_NOT_TEST = frozenset({"latest", "contest", "attest"})
_REPORTS = frozenset({"summary", "report", "reports", "stats", "coverage", "changelog"})
# a report of the coverage the tests measured, unless the name says it runs them too
_COVERAGE_REPORTS = frozenset({"summary", "report", "reports"})
_TEST_RUNS = frozenset({"test", "tests", "spec", "specs", "unit", "e2e", "integration"})
_CLEANS = frozenset({"clean", "cleanup", "distclean", "clobber"})
_SEPARATORS = re.compile(r"[:_\-./\s]+")
# tox environments named after a Python version (py313, 3.12, pypy3), or tox's own `py`
# (the interpreter tox runs on), run the tests
_PYTHON_VERSION = re.compile(r"^(?:(py|pypy)?\d|py$)")


def words(name: str) -> list[str]:
    return [w for w in _SEPARATORS.split(name.lower()) if w]


def is_never(name: str) -> bool:
    """Whether the name says release, publish, deploy or another maintainer's task."""
    lowered = name.lower()
    found = words(lowered)
    # led or closed by a test word: `test-snapshot-update`, `snapshot-tests` (insta's, jest's)
    if found[:1] in (["test"], ["tests"], ["spec"]) or found[-1:] in (["tests"], ["specs"]):
        found = [word for word in found if word not in _TESTS_MAY]
    if any(word in NEVER for word in found):
        return True
    return "pre-commit" in lowered and "update" in lowered  # `pre-commit autoupdate`


def is_never_line(line: str) -> bool:
    """A line that publishes, releases, deploys, bumps a version or scans for security
    (``cargo build --release`` builds with optimizations: it releases nothing)."""
    words = line.lower().split()
    lowered = " ".join(
        w for i, w in enumerate(words) if w not in BUILD_MODES and not _given_path(words, i)
    )
    return any(
        word in lowered
        for word in (" publish", "release", "deploy", "upload", "twine", "codeql", "zizmor")
    ) or is_never(" ".join(w for w in lowered.split()[:3] if _is_action_word(w, lowered)))


def _given_path(words: list[str], index: int) -> bool:
    """A path a program is given (``isort twine/ tests/``, ``pytest tests/test_upload.py``):
    the files it works on, which say nothing of what it does; a script an interpreter runs
    (``bash scripts/release.sh``) is the program."""
    word = words[index]
    top = word.split("/", 1)[0]
    # a module or a URL (`github.com/goreleaser/goreleaser@latest`) names a package, no file
    local = "/" in word and top in (".", "..") or "." not in top and ":" not in top
    return index > 0 and "/" in word and local and words[index - 1] not in _RUNS_SCRIPT


def _is_action_word(word: str, line: str) -> bool:
    """A word saying what a line does: no option, and no file it is given
    (``pytest tests/snapshot_tests/test_snapshots.py`` updates no snapshot)."""
    given = "/" in word and not line.startswith(word)
    return not word.startswith("-") and "=" not in word and not given


def classify_name(name: str) -> str | None:
    """The kind of task a name stands for, or None (unknown, private, or never everyday)."""
    if not _is_everyday_name(name):
        return None
    found = _name_words(name)
    if _CLEANS.intersection(found):
        return None  # `test-coverage-clean: rimraf coverage` cleans up after the tests
    if "generate" in found and not _REPORTS.intersection(found):
        return "build"  # code generation (`generate:types`), not a report's summary
    if _is_coverage_report(found):
        return None  # `coverage:write-summary-report` reads what the tests left: no test
    return _kind_of_words(found)


def _is_coverage_report(found: list[str]) -> bool:
    """``coverage:generate-summary``, ``cov-report``: the report of what the tests measured,
    which runs none of them (unless the name says it does: ``test-coverage-report``)."""
    coverage = any(word in ("coverage", "cov", "cover") for word in found)
    report = _COVERAGE_REPORTS.intersection(found)
    return coverage and bool(report) and not _TEST_RUNS.intersection(found)


def _is_everyday_name(name: str) -> bool:
    """A name a person types for everyday work: not empty, not private (``_helper``,
    ``.hidden``), and not a release's or another maintainer's task."""
    return bool(name) and not name.startswith(("_", ".")) and not is_never(name)


def _name_words(name: str) -> list[str]:
    """The name's words, with ``pre-commit`` kept whole as well (the separators split it,
    and its halves say nothing)."""
    found = words(name)
    if "pre-commit" in name.lower().replace("_", "-"):  # Rake's `pre_commit` too
        found.append("pre-commit")
    return found


def _kind_of_words(found: list[str]) -> str | None:
    """The first kind of ``_KIND_WORDS`` one of the words says, else tests when the words
    name them another way, else None."""
    for kind, known in _KIND_WORDS:
        if any(word in known for word in found):
            return kind
    return "test" if _names_tests(found) else None


def _names_tests(found: list[str]) -> bool:
    """Tests named without a word of their kind: a Python version first (tox's ``py313``,
    ``3.12``), or a word with ``test`` as prefix or suffix (``testcov``, ``richtest``), but
    not a word that merely ends so (``latest``)."""
    if found and _PYTHON_VERSION.match(found[0]):
        return True
    affixed = [w for w in found if w not in _NOT_TEST]
    return any(w.startswith(_TEST_AFFIX) or w.endswith(_TEST_AFFIX) for w in affixed)


def offer_tasks(
    sheet: FactSheet,
    names: Iterable[str],
    command: Callable[[str], str],
    source: str,
    *,
    installs_project: bool = True,
) -> None:
    """Offer each task by the kind its name says; per kind the plain names (``test``,
    ``lint``) come first, then the others in the file's order. ``installs_project`` is
    False where an ``install`` task installs the built program on the system (a C, Go or
    Rust Makefile's) rather than setting up the project for work."""
    ranked: list[tuple[int, int, str, str]] = []
    for index, name in enumerate(dict.fromkeys(names)):
        kind = classify_name(name)
        if kind is None or kind == "setup" and not installs_project and "install" in words(name):
            continue
        plain = 0 if len(words(name)) == 1 else 1
        ranked.append((plain, index, kind, name))
    for _, _, kind, name in sorted(ranked):
        sheet.add(kind, command(name), source)
