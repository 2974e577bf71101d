"""The commands the contributor docs show: what a person was told to type.

Read: the contributing guides (``CONTRIBUTING``, ``DEVELOPMENT``, ``HACKING``, ``BUILD``, and
last ``AGENTS`` and ``CLAUDE``, what a coding agent is told to run; at the root, in ``docs/`` or
``.github/``) whole, and of the README only the sections whose heading says building,
testing, developing or contributing (the rest is for users: their
``cargo install ripgrep`` or ``npm install express`` is no work on the project). Commands
come from code blocks (Markdown fences, reStructuredText ``::`` blocks, ``$`` prompts) and
inline code spans, and are kept when they are a contributor's command of a known kind.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from serena_memory.agent.project_facts.ci import own_script_text, script_lines
from serena_memory.agent.project_facts.commands import (
    classify_command,
    installs_own,
    unwrap,
    without_environment,
)
from serena_memory.agent.project_facts.doc_sections import (
    editable_installs,
    readme_sections,
    without_maintainer_sections,
)
from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.npm_docs import PackageScripts
from serena_memory.agent.project_facts.own_programs import own_programs, runs_own_program
from serena_memory.agent.project_facts.sheet import FactSheet

# AGENTS.md, CLAUDE.md: the instructions for coding agents name the commands to run before
# committing (an AGENTS.md often only points to the CLAUDE.md); GitHub Copilot's are
# `.github/copilot-instructions.md`
AGENT_GUIDES = ("AGENTS", "CLAUDE", "GEMINI", "COPILOT-INSTRUCTIONS")
GUIDES = ("CONTRIBUTING", "DEVELOPMENT", "DEVELOPING", "HACKING", "BUILD", "BUILDING",
          *AGENT_GUIDES)  # fmt: skip
GUIDE_FOLDERS = ("", "docs/", ".github/", "doc/")
# the docs' part for the project's developers, and its first page there
DEVELOPER_FOLDERS = frozenset({"development", "developing", "contributing", "contributors",
                               "dev", "hacking"})  # fmt: skip
# and its pages on running the tests (`docs/development/tests.mdx`)
STARTS = ("GETTING-STARTED", "GETTING_STARTED", "THE_BASICS", "THE-BASICS", "BASICS", "SETUP",
          "QUICKSTART", "TESTS", "TESTING", "RUNNING-TESTS", "RUNNING_TESTS")  # fmt: skip
# a developers' folder's pages that hold no work on the code: releasing, the issue tracker,
# reviews, conduct (`docs/contributing/reviewing-pull-requests.md`); the rest are read whole
_NOT_WORK_PAGES = re.compile(
    r"releas|publish|deploy|changelog|conduct|governance|security|triage|issue|review|maintain"
    r"|roadmap|licen|dependenc|version",
    re.IGNORECASE,
)
MAX_DEVELOPER_PAGES = 8
# MDX (Mintlify's, Docusaurus's pages) is Markdown with components
SUFFIXES = (".md", ".mdx", ".rst", ".txt", "")
READMES = ("README.md", "Readme.md", "readme.md", "README.rst", "README")
MAX_DOC_FOLDERS = 40
MAX_PER_KIND = 8
MAX_FROM_DOCS = 20
# the forms of one command handing its program options after `--` the guide shows
MAX_FORMS = 2
SOURCE = "docs"
_SHELL_FENCES = frozenset({"", "sh", "bash", "shell", "console", "zsh", "shell-session",
                           "shellsession", "sh-session", "terminal", "cmd", "text"})  # fmt: skip
_MAX_CARRIED = 600
_FENCE = re.compile(r"^\s*(```+|~~~+)\s*([\w+-]*)")
_BLOCK_QUOTE = re.compile(r"^\s*>\s?")
# a prompt naming the virtual environment it runs in: `(.venv)$ tox -e py`, `(venv) $ ...`
_ENV_PROMPT = re.compile(r"^\([\w.-]{1,40}\) ?(?=\$ )")
# the set-up steps a guide shows that CI does its own way: the toolchain and its components
# added (`rustup toolchain install nightly`, `rustup component add clippy`), the package
# manager the project pins enabled (`corepack enable`); a virtual environment made and
# entered is left, being a matter of taste the projects' own lists disagree on
_GUIDE_SETUP = re.compile(
    r"^(?:rustup\s+(?:component\s+add|toolchain\s+install)\s|corepack\s+enable\b)"
)
# a guide's install of the task runner or hook manager the project's work goes through
# (`pip install tox`, `python -m pip install nox`, `uv tool install poethepoet`); CI's own
# install of it sets up CI's machine
_RUNNER_INSTALL = re.compile(
    r"^(?:(?:py|python3?)\s+-m\s+)?(?:pip3?|pipx|uv\s+tool)\s+install\s+(?:-U\s+|--upgrade\s+)?"
    r"[\"']?(?:tox|nox|pre-commit|prek|poethepoet)(?:[\"'<>=!~\[\s]|$)"
)
# what a guide says does not work on the project ("The `cargo fmt` command does not work on
# the Tokio codebase"), or is not enough in its plain form ("a simple `cargo doc` is not
# sufficient"): an ecosystem's usual command the sheet would offer otherwise
_DOES_NOT_WORK = re.compile(
    r"`([^`\n]{2,60})`(?:\s+command)?\s+(?:does\s+not|doesn't|will\s+not|won't|cannot|can't)"
    r"\s+(?:work|be\s+used)\b",
    re.IGNORECASE,
)
_NOT_ENOUGH = re.compile(
    r"(?:simple|plain|bare|just)\s+`([^`\n]{2,60})`\s+(?:is\s+not|isn't)\s+(?:sufficient|enough)",
    re.IGNORECASE,
)
# an optional option a guide shows in brackets (`cargo +nightly docs-rs [--open]`)
_OPTIONAL = re.compile(r"\s\[-{1,2}[\w-]+(?:[ =][^\]\[]{0,40})?\]")
# what a sentence says of a program it only names: what is handed to it, what it is
# ("passed to `pytest`", "forwarded to `tox`", "a wrapper around `make`")
_NAMED_ONLY = re.compile(
    r"\b(?:passed|forwarded|handed|given|sent|piped)\s+(?:on\s+)?(?:to|through)\s+"
    r"(?:the\s+)?`?$|\b(?:wrapper|wraps|around|uses|installs|requires)\s+`?$",
    re.IGNORECASE,
)
# a reStructuredText role whose text follows in backquotes (`:doc:`, `:ref:`, `:pypi:`)
_ROLE = re.compile(r"(?<![\w`]):[a-z][\w+.-]*(?::[a-z][\w+.-]*)?:$")
_WHOLE_SPAN = re.compile(r"^(``?)([^`\n]+)\1$")
_LIST_ITEM = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,9}[.)])\s")
_INLINE = re.compile(r"``?([^`\n]{2,100})``?")
# a value the reader fills in (`pytest <path>`, `cargo test --test <name>`), never the
# first word nor a link
_PLACEHOLDER = re.compile(r"(?<=\s)<[A-Za-z][\w.:-]{0,40}>")
# a name standing for the reader's own project (`RUST_LOG=my_lib=info cargo test`)
_READERS_OWN = re.compile(r"(?:^|[\s=:/])(my[_-][\w-]+)")
# a virtualenv's copy of a tool, as the docs spell it: `.venv/bin/pip`, `venv/bin/python`
_VENV_BIN = re.compile(r"^(?:\./)?\.?(?:venv|env)/bin/(?=[\w-]+ )")
# a user's install of the published package, not the project's set-up
_PACKAGE_INSTALL = re.compile(r"^(npm|pnpm|yarn|bun)\s+(install|i|add)\s+(-[gD]\s+)?[@\w]")
# the suffixes of a file one runs; a span naming another file (`docs/doc.md`,
# `tests/integration_tests.rs`) is something to read, not to run
_RUNNABLE = frozenset({"", ".sh", ".bash", ".py", ".rb", ".js", ".mjs", ".cjs", ".ts", ".pl",
                       ".ps1", ".cmd", ".bat"})  # fmt: skip


def guide_paths(project: Project) -> list[str]:
    """The contributing guides at the root, in ``docs/``, ``.github/`` or a folder of the
    docs (``docs/community/contributing.md``), and the getting-started page of the docs'
    part for developers (``docs/html/development/getting-started.rst``)."""
    found = []
    folders = list(GUIDE_FOLDERS)
    for docs in ("docs", "doc"):
        names = [name for name in project.listing(docs) if "." not in name]
        folders += [f"{docs}/{name}/" for name in names[:MAX_DOC_FOLDERS]]
    folders += _developer_folders(project, folders)
    for folder in folders:
        pages = 0
        for name in sorted(project.listing(folder.rstrip("/") or ".")):
            stem, dot, suffix = name.partition(".")
            if f"{dot}{suffix}".lower() not in SUFFIXES:
                continue
            if stem.upper() in GUIDES:
                found.append(folder + name)
            elif _is_for_developers(folder) and pages < MAX_DEVELOPER_PAGES and _is_work(stem):
                found.append(folder + name)  # a page of the developers' part
                pages += 1
    paths = [path for path in dict.fromkeys(found) if project.is_file(path)]
    # the people's guides first: an agents' file often repeats them in its own spellings
    return sorted(paths, key=lambda path: _stem(path) in AGENT_GUIDES)


def _is_work(stem: str) -> bool:
    """A page of the developers' part about work on the code, not releases or reviews."""
    return stem.upper() in STARTS or not _NOT_WORK_PAGES.search(stem)


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].partition(".")[0].upper()


def _is_for_developers(folder: str) -> bool:
    return folder.rstrip("/").rsplit("/", 1)[-1].lower() in DEVELOPER_FOLDERS


def _developer_folders(project: Project, folders: list[str]) -> list[str]:
    """The docs' folders for developers one level below a folder of the docs
    (``docs/html/development/``, next to the pages for users)."""
    found = []
    for folder in folders[len(GUIDE_FOLDERS) :]:
        found += [
            f"{folder}{name}/"
            for name in project.listing(folder.rstrip("/"))
            if name.lower() in DEVELOPER_FOLDERS
        ]
    return found[:MAX_DOC_FOLDERS]


def unquoted(text: str) -> str:
    """The text with each block quote that holds a code fence (a note's ``> ```bash``)
    unquoted, so its fence is read like any other."""
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        end = index
        while end < len(lines) and lines[end].lstrip().startswith(">"):
            end += 1
        inner = [_BLOCK_QUOTE.sub("", line, count=1) for line in lines[index:end]]
        if any(_FENCE.match(line) for line in inner):
            lines[index:end] = inner
        index = end + 1
    return "\n".join(lines)


def doc_commands(text: str) -> Iterator[tuple[str, str]]:
    """(folder, command) of each candidate command line of a document, in order: a block's
    lines after its ``cd FOLDER`` run in that folder."""
    folder = ""
    cloned = False  # the `cd` after a `git clone` enters the clone, the project's root
    for line in _block_commands(text):
        words = line.split()
        if not line:
            folder = ""  # a block ends: its folder with it
        elif words[:1] == ["cd"] and len(words) == 2:
            folder = words[1] if _is_relative(words[1]) and not cloned else ""
            cloned = False
        else:
            cloned = words[:2] == ["git", "clone"]
            yield folder, line


def _is_relative(folder: str) -> bool:
    return not folder.startswith(("/", "~", "-", "$")) and ".." not in folder.split("/")


def _block_commands(text: str) -> Iterator[str]:
    """Candidate command lines of a document, and an empty line where a block starts or
    ends."""
    blocks = _Blocks()
    for raw in unquoted(text).splitlines():
        yield from blocks.read(raw)


class _Blocks:
    """Where a document's reading is, line after line: in a fence (and of which
    language), in a reStructuredText ``::`` block, in a block showing ``$`` prompts, or in
    prose whose code span goes on on the next line."""

    def __init__(self) -> None:
        self.fence: str | None = None
        self.rst_block = False
        self.prompted = False  # a block that shows `$ ` prompts: its other lines are output
        self.previous = ""
        self.carried = ""  # a line of prose whose last code span is not closed yet
        self.first_in_fence = False
        self.bare_console = False  # a console block that shows no prompts at all
        self.blank_before = True  # the line before was blank: an indented block may open
        self.in_list = False  # in a list item, whose paragraphs are indented
        self.continued = ""  # a fenced command whose line ends in `\`, to be joined

    def read(self, raw: str) -> Iterator[str]:
        """The candidate commands of one line of the document, and an empty line where it
        starts or ends a block."""
        line = _ENV_PROMPT.sub("", raw.strip())
        underline = self.fence is None and _is_underline(line, self.previous)
        match = None if underline else _FENCE.match(raw)
        self.previous = line
        if match:
            self._toggle_fence(match.group(2).lower())
            yield ""
            return
        self.prompted = self.prompted or line.startswith("$ ")
        if self.fence is not None:
            yield from self._fenced(line)
            return
        if self.rst_block or self._opens_indented(raw):
            if raw[:1] in (" ", "\t") or not line:
                self.blank_before = not line
                yield from _command_of(line, prompt_needed=self.prompted)
                return
            self.rst_block = False
            yield ""
        self.blank_before = not line
        if line:
            self.in_list = bool(_LIST_ITEM.match(raw)) or (self.in_list and raw[:1] == " ")
        yield from self._prose(line)

    def _opens_indented(self, raw: str) -> bool:
        """A Markdown code block shown by indenting it four spaces after a blank line (not
        a list item's next paragraph, which is indented so too)."""
        opens = self.blank_before and not self.in_list and raw.startswith(("    ", "\t"))
        self.rst_block = self.rst_block or (opens and bool(raw.strip()))
        return self.rst_block

    def _toggle_fence(self, language: str) -> None:
        """A fence opens (of ``language``) or closes the block it opened."""
        self.fence = language if self.fence is None else None
        self.prompted = False
        self.first_in_fence = self.fence is not None
        self.bare_console = False
        self.carried = ""
        self.continued = ""

    def _fenced(self, line: str) -> Iterator[str]:
        """A line of a fence: a command only in a shell's fence, and in one showing
        prompts (or a console's, a text's) only after its prompt; a line ending in a
        backslash goes on on the next (`RUSTFLAGS="--cfg loom"` then `cargo test`)."""
        if self.continued:
            line, self.continued = f"{self.continued} {line}", ""
        if line.endswith("\\") and len(line) < _MAX_CARRIED:
            self.continued = line[:-1].rstrip()
            return
        if self.fence in _SHELL_FENCES:
            # a console block whose first line shows no prompt lists commands alone
            if self.fence == "console" and not self.prompted and self.first_in_fence:
                self.bare_console = True
            self.first_in_fence = False
            needed = (
                self.prompted
                or self.fence == "text"
                or (self.fence == "console" and not self.bare_console)
            )
            yield from _command_of(line, prompt_needed=needed)

    def _prose(self, line: str) -> Iterator[str]:
        """A line of prose: it may open a reStructuredText block (``::``), and its code
        spans are commands once every span it opened is closed."""
        self.prompted = line.startswith("$ ")
        self.rst_block = line.endswith("::") or line.startswith((".. code-block::", ".. code::"))
        if self.rst_block:
            yield ""
        # a code span may go on on the paragraph's next line (`cargo install⏎cargo-watch`)
        prose = f"{self.carried} {line}" if self.carried and line else line
        self.carried = prose if prose.count("`") % 2 and len(prose) < _MAX_CARRIED else ""
        if not self.carried:
            yield from _prose_commands(prose)


def _prose_commands(line: str) -> Iterator[str]:
    """The commands of a line of prose: after a ``$`` prompt, or in its code spans."""
    if line.startswith("$ "):
        yield from _command_of(line, prompt_needed=True)
    for span in _INLINE.finditer(line):
        text = span.group(1)
        if " " not in text.strip() and _NAMED_ONLY.search(line, 0, span.start()):
            continue  # "arguments are passed to `pytest`": a program named, not run
        if _ROLE.search(line, 0, span.start()):
            continue  # reStructuredText's :doc:`tox <tox:index>`: a link to a page
        yield from _command_of(text, prompt_needed=False)


def _is_underline(line: str, previous: str) -> bool:
    """A reStructuredText heading's underline (``~~~~`` under its title), not a fence."""
    return bool(previous) and set(line) == {"~"} and len(line) >= len(previous)


def _command_of(line: str, prompt_needed: bool) -> Iterator[str]:
    whole = _WHOLE_SPAN.match(line)
    if whole:  # an indented paragraph of one literal: reStructuredText's block quote
        line = whole.group(2)
    if line.startswith(("$ ", "> ", "% ")):
        line = line[2:].strip()
    elif prompt_needed:
        return
    line = _OPTIONAL.sub("", line.split(" # ", 1)[0]).strip()
    if line and not line.startswith("#"):
        yield " ".join(line.split())


def is_command(line: str) -> str | None:
    """The kind of a documented line, or None (a user's install, or no known command)."""
    if line == "yarn":
        return "setup"  # Yarn's install
    if line.split()[0] == "build":
        return None  # a script's name in prose (`build`); PyPA's build is `python -m build`
    if _GUIDE_SETUP.match(line) or _RUNNER_INSTALL.match(line):
        return "setup"
    plain = " ".join(unwrap(line.split()))
    if _PACKAGE_INSTALL.match(plain):
        return None
    return classify_command(line)


def _documented(project: Project, guides: list[str]) -> Iterator[tuple[str, str]]:
    """(kind, command) of every contributor's command the docs show, in order (``guides``:
    the guides' texts)."""
    texts = list(guides)
    readme = project.first(*READMES)
    if readme:
        text = project.text(readme) or ""
        texts += [readme_sections(text), editable_installs(text)]
    programs = own_programs(project.toml("pyproject.toml"))
    scripts = PackageScripts(project)
    for text in texts:
        for folder, line in _each_chained(without_maintainer_sections(text[:200_000])):
            if folder and project.is_dir(folder):  # else `cd project` after cloning it
                line = f"cd {folder} && {line}"
            line = _VENV_BIN.sub("", line)  # `.venv/bin/pip install -r ...` is `pip install`
            if not _names_no_other_file(project, line) or scripts.another_managers(line):
                continue
            handed = _handed_on(project, line)
            kind = is_command(handed) if handed else _kind(line, programs, scripts.forwarded(line))
            if kind is not None:
                yield kind, line


def _each_chained(text: str) -> Iterator[tuple[str, str]]:
    """(folder, command) of a document's lines, and of a chain whose commands are each of a
    known kind (``tox && tox -e lint,docs``: the tests, then the checks) each command
    after it, one a person runs alone."""
    for folder, line in doc_commands(text):
        yield folder, line
        parts = [part.strip() for part in line.split(" && ")]
        chained = len(parts) > 1 and line.split()[0] != "cd"
        if chained and all(part and is_command(part) for part in parts):
            yield from ((folder, part) for part in parts)


def _kind(line: str, programs: set[str], forwarded: str | None) -> str | None:
    """The kind of a documented line: its command's, or the kind of the script a
    forwarding script runs (``npm run react test`` tests), or running the project's own
    program."""
    kind = is_command(line) or (is_command(forwarded) if forwarded else None)
    return kind or ("run" if runs_own_program(line, programs) else None)


_ARGUMENTS = re.compile(r"""["']?\$(?:@|\{@\}|\*)["']?""")


def _handed_on(project: Project, line: str) -> str | None:
    """What a project's script given arguments runs when its one command hands them on
    (``scripts/docs serve`` of a ``uv run zensical "$@"`` is ``uv run zensical serve``, a
    docs server, whatever the script is named); None for any other line."""
    words = line.split()
    text = own_script_text(project, words[0]) if len(words) > 1 else None
    if not text:
        return None
    body = [
        command
        for command in script_lines(text)
        if not command.startswith(("set ", "export ", "echo ", "#!"))
    ]
    if len(body) != 1 or not _ARGUMENTS.search(body[0]):
        return None
    return _ARGUMENTS.sub(" ".join(words[1:]), body[0], count=1)


def _names_no_other_file(project: Project, line: str) -> bool:
    """Not a link nor a placeholder, and a path first only for the project's own program
    (``scripts/test.sh``, not ``docs/doc.md``); the environment a line sets first
    (``BUNDLE_GEMFILE=gemfiles/rails-8 bin/test``) is no path."""
    program = without_environment(line) or line.split()
    first = program[0].removeprefix("./")
    if _prose_reading(project, program):
        return False
    if "<" in _PLACEHOLDER.sub("", line) or "\u2026" in line:
        return False  # a link, or a line with parts left out (`yarn test:base … | grep …`)
    if any(not project.is_dir(n) and not project.is_file(n) for n in _READERS_OWN.findall(line)):
        return False  # an example for the reader's project (`RUST_LOG=my_lib=info cargo test`)
    if "/" in first:
        suffix = os.path.splitext(first)[1].lower()
        if suffix not in _RUNNABLE or not project.is_file(first):
            return False
        # a module named alone (`tests/conftest.py`, `spec/project_spec.rb`) is read, not
        # run, unless it is a program (a shell script, or executable)
        return len(program) > 1 or suffix in ("", ".sh", ".bash") or _executable(project, first)
    return True


def _prose_reading(project: Project, program: list[str]) -> bool:
    """Whether a span of prose names something else than a command: a file named in a
    sentence ("if `test_api.py` starts failing": no folder, a program's suffix, not run
    as ``./x.py``), or several targets at once (`make format/lint/typecheck`)."""
    first = program[0]
    if len(program) == 1 and "/" not in first:
        return os.path.splitext(first)[1].lower() in _RUNNABLE - {""}
    if first == "make" and len(program) == 2 and "/" in program[1]:
        return program[1] not in _make_targets(project)
    return False


def _make_targets(project: Project) -> list[str]:
    from serena_memory.agent.project_facts.makefile import make_targets

    return make_targets(project.text("Makefile") or "")


def _executable(project: Project, rel: str) -> bool:
    try:
        return bool((project.root / rel).stat().st_mode & 0o111)
    except OSError:
        return False


def read_docs(project: Project) -> None:
    """Offer the documented commands, at most ``MAX_PER_KIND`` of a kind and
    ``MAX_FROM_DOCS`` in all; a guide's call of one of the project's scripts as it stands
    (``npm run test-smoke``) counts for neither, as the scripts are offered anyway: the
    guide's room is kept for what only it says (``npm run test-browser -- --grep bdd``)."""
    sheet = project.sheet
    guides = [project.text(path) or "" for path in guide_paths(project)]
    for text in guides:
        _withhold_advised_against(sheet, text)
    scripts = PackageScripts(project)
    known = {" ".join(c.split()) for c in sheet.offered()}
    added: dict[str, int] = {}
    forms: dict[str, int] = {}
    for kind, line in _documented(project, guides):
        if line in known or added.get(kind, 0) >= MAX_PER_KIND or line in scripts.bodies:
            continue  # a tool typed as a script runs it (`vitest` for `"test": "vitest"`)
        if installs_own(line.split(), sheet.own_packages):
            continue  # `cargo install gitui --locked` in gitui's README: a user's install
        head = line.split(" -- ", 1)[0]
        if forms.get(head, 0) >= MAX_FORMS:
            continue  # `npm run build -- --amd`, `-- --slim`...: a few forms say how
        if sum(added.values()) >= MAX_FROM_DOCS:
            return
        if sheet.add(kind, line, SOURCE):
            known.add(line)
            forms[head] = forms.get(head, 0) + (head != line)
            counted = not scripts.runs_script(line)
            added[kind] = added.get(kind, 0) + counted


def _withhold_advised_against(sheet: FactSheet, text: str) -> None:
    """Keep off the sheet what a guide says does not work on the project, in any form,
    and what it says is not enough, in its plain form."""
    prose = " ".join(text[:200_000].split())
    for match in _DOES_NOT_WORK.finditer(prose):
        # "if the command `make` doesn't work for you": a reader's trouble, not the project's
        conditional = re.search(
            r"\bif\b[^.]{0,30}$", prose[max(0, match.start() - 30) : match.start()]
        )
        if len(match.group(1).split()) > 1 and not conditional:
            sheet.withhold(match.group(1))
    for match in _NOT_ENOUGH.finditer(prose):
        sheet.withhold_plain(match.group(1))
