"""What one command line does, for the steps of CI: a contributor's command (test, lint,
format, type check, build, set up) or something else (release, publish, deploy, a version
bump, a security scan, or the plumbing of CI itself: checkouts, caches, ``echo``, ``git``).

Only the first kind is offered. A line is read as words, never run; a line that depends on
CI's variables (``${{ matrix.python }}``, ``$TARGET``) is not offered either, as it can't be
typed as it stands.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from serena_memory.agent.project_facts.environment_runs import environment_kind, sets_up
from serena_memory.agent.project_facts.names import classify_name, is_never, is_never_line
from serena_memory.agent.project_facts.package_managers import MANAGERS, for_member, without_run

# a CI step longer than this is a script to read, not a command to type (axum's 114-character
# `cargo clippy --manifest-path examples/Cargo.toml ... -- -D warnings` is still typed)
MAX_COMMAND_CHARS = 120

# first words of CI plumbing and of maintainers' steps
_PLUMBING = frozenset(
    {"echo", "printf", "cd", "export", "set", "unset", "source", ".", "if", "then", "else",
     "elif", "fi", "for", "do", "done", "while", "case", "esac", "exit", "true", "false",
     "mkdir", "rm", "cp", "mv", "ls", "cat", "tee", "touch", "chmod", "chown", "ln", "tar",
     "unzip", "zip", "7z", "curl", "wget", "sudo", "apt", "apt-get", "brew", "choco", "winget",
     "yum", "dnf", "apk", "pacman", "snap", "git", "gh", "docker", "podman", "sleep", "which",
     "env", "test", "[", "[[", "{", "}", "(", ")", "find", "xargs", "grep", "sed", "awk", "jq",
     "shasum", "sha256sum", "certutil", "strip", "rustup", "nvm", "corepack", "pipx",
     "codecov", "coveralls", "smokeshow", "twine", "goreleaser", "gpg", "ssh", "scp",
     "rsync", "kill", "pkill", "wait", "timeout", "time", "date", "pwd", "whoami", "uname",
     "python", "python3", "node", "ruby", "bash", "sh", "pwsh", "powershell", "cmd"}
)  # fmt: skip
# tools run through another (their own command follows): `uv run pytest`
_WRAPPERS = {
    ("uv", "run"), ("poetry", "run"), ("pdm", "run"), ("pipenv", "run"), ("bundle", "exec"),
    ("pnpm", "exec"), ("yarn", "exec"), ("npm", "exec"), ("python", "-m"), ("python3", "-m"),
    ("ruby", "-S"),
    ("pipx", "run"),
}  # fmt: skip
_PYTHONS = frozenset({"python", "python3"})
_JOINED_MODULE = re.compile(r"^-(?:[BIOqsSuE]+m|m)([\w.]+)?$")
_VERSION_OPTIONS = frozenset({"--version", "-V"})
_TEST_FOLDERS = frozenset({"test", "tests", "spec"})
_SCRIPT_FOLDERS = ("scripts/", "script/", "./scripts/", "./script/")
# folders whose scripts are read with the folders they are filed in
_FILED_FOLDERS = _TEST_FOLDERS | {"scripts", "script"}
# a program file of the project's own, named by what it does (`./runtests.py`)
_SCRIPT_SUFFIXES = (".py", ".sh", ".bash", ".rb", ".pl")
_RUNS_NEXT = frozenset({"npx", "bunx", "pnpx", "uvx", "php"})
_UV_VALUE_OPTIONS = frozenset({"--group", "--only-group", "--with", "--python", "-p",
                               "--directory", "--extra", "--package", "--env-file"})  # fmt: skip
# a tool's own words: (first word, second word or "") -> kind
_TOOLS: dict[tuple[str, str], str] = {
    ("pytest", ""): "test", ("jest", ""): "test", ("vitest", ""): "test", ("mocha", ""): "test",
    ("ava", ""): "test", ("cucumber", ""): "test", ("c8", ""): "test", ("nyc", ""): "test",
    ("rspec", ""): "test", ("phpunit", ""): "test", ("ctest", ""): "test",
    ("go", "test"): "test", ("cargo", "test"): "test", ("cargo", "nextest"): "test",
    ("gotestsum", ""): "test", ("borp", ""): "test", ("tinygo", "test"): "test",
    ("tinygo", "build"): "build",
    # cargo's coverage tools run the tests to measure them
    ("cargo", "llvm-cov"): "test", ("cargo", "tarpaulin"): "test",
    # C and C++ builds: generating and running the configure script sets the tree up,
    # CMake, Meson and Ninja build it
    ("autoreconf", ""): "setup", ("configure", ""): "setup", ("autogen.sh", ""): "setup",
    ("cmake", ""): "build", ("meson", "setup"): "setup", ("meson", "compile"): "build",
    ("meson", "test"): "test", ("ninja", ""): "build",
    ("airtap", ""): "test", ("tstyche", ""): "typecheck", ("attw", ""): "lint",
    ("tsd", ""): "typecheck",
    ("coverage", "run"): "test", ("tox", ""): "test", ("nox", ""): "test",
    ("ruff", "check"): "lint", ("flake8", ""): "lint", ("pylint", ""): "lint",
    ("eslint", ""): "lint", ("xo", ""): "lint", ("golangci-lint", "run"): "lint",
    ("go", "vet"): "lint", ("cargo", "clippy"): "lint", ("cargo", "check"): "typecheck",
    ("rubocop", ""): "lint", ("shellcheck", ""): "lint", ("codespell", ""): "lint",
    ("pre-commit", "run"): "lint",
    ("prek", "run"): "lint", ("biome", "lint"): "lint", ("biome", "check"): "lint",
    ("black", ""): "format", ("isort", ""): "format", ("prettier", ""): "format",
    ("ruff", "format"): "format", ("gofmt", ""): "format", ("cargo", "fmt"): "format",
    ("rustfmt", ""): "format", ("biome", "format"): "format", ("golangci-lint", "fmt"): "format",
    ("mypy", ""): "typecheck", ("pyright", ""): "typecheck", ("tsc", ""): "typecheck",
    ("ty", "check"): "typecheck", ("pyrefly", "check"): "typecheck",
    ("composer", "install"): "setup", ("phpstan", ""): "typecheck", ("psalm", ""): "typecheck",
    # Psalm's PHAR, and composer-bin-plugin's install of a tool in `vendor-bin/NAME`
    ("psalm.phar", ""): "typecheck", ("composer", "bin"): "setup",
    ("phpcs", ""): "lint", ("php-cs-fixer", ""): "format", ("phpcbf", ""): "format",
    ("pint", ""): "format", ("rector", ""): "lint",
    ("go", "generate"): "build", ("go", "build"): "build", ("cargo", "build"): "build",
    ("cargo", "doc"): "build",
    ("cargo", "docs-rs"): "build", ("cargo", "spellcheck"): "lint", ("cargo", "deny"): "lint",
    ("cargo", "machete"): "lint", ("goimports", ""): "format", ("mkdocs", "build"): "build",
    ("sphinx-build", ""): "build", ("mkdocs", "serve"): "run",
    ("hatch", "test"): "test", ("hatch", "build"): "build", ("hatch", "env"): "setup",
    ("uv", "sync"): "setup", ("npm", "ci"): "setup", ("npm", "install"): "setup",
    ("npm", "clean-install"): "setup", ("npm", "install-clean"): "setup",
    ("pnpm", "install"): "setup", ("yarn", "install"): "setup", ("bun", "install"): "setup",
    ("bundle", "install"): "setup", ("poetry", "install"): "setup", ("pdm", "install"): "setup",
    ("go", "mod"): "setup", ("pre-commit", "install"): "setup", ("prek", "install"): "setup",
    ("npm", "test"): "test", ("npm", "start"): "run",
    ("bun", "test"): "test", ("deno", "test"): "test", ("deno", "lint"): "lint",
    ("deno", "fmt"): "format", ("deno", "check"): "typecheck", ("unittest", ""): "test",
    ("playwright", "test"): "test", ("cypress", "run"): "test", ("tap", ""): "test",
    ("standard", ""): "lint", ("standardrb", ""): "lint", ("stylelint", ""): "lint",
    ("oxlint", ""): "lint", ("markdownlint", ""): "lint", ("yamllint", ""): "lint",
    ("actionlint", ""): "lint", ("typos", ""): "lint", ("staticcheck", ""): "lint",
    ("revive", ""): "lint", ("pycodestyle", ""): "lint", ("pydocstyle", ""): "lint",
    ("clang-tidy", ""): "lint", ("vue-tsc", ""): "typecheck", ("svelte-check", ""): "typecheck",
    ("basedpyright", ""): "typecheck", ("srb", "tc"): "typecheck", ("steep", "check"): "typecheck",
    ("gofumpt", ""): "format", ("yapf", ""): "format", ("autopep8", ""): "format",
    ("clang-format", ""): "format", ("taplo", "fmt"): "format", ("dprint", "fmt"): "format",
    ("dprint", "check"): "format", ("swift", "test"): "test", ("swift", "build"): "build",
    ("dotnet", "test"): "test", ("dotnet", "build"): "build", ("dotnet", "format"): "format",
    ("ni", ""): "setup", ("mix", "test"): "test", ("mix", "format"): "format",
    ("mix", "credo"): "lint", ("mix", "deps.get"): "setup", ("mix", "docs"): "build",
    ("mix", "dialyzer"): "typecheck",
    ("yarn", "constraints"): "lint",  # Yarn's checks of the workspace's manifests
    ("build", ""): "build", ("pyproject-build", ""): "build", ("rstcheck", ""): "lint",
    ("towncrier", "check"): "lint", ("uv", "build"): "build", ("poetry", "build"): "build",
    ("pdm", "build"): "build", ("knip", ""): "lint", ("playwright", "install"): "setup",
    ("cargo-fmt", ""): "format", ("shfmt", ""): "format", ("nixfmt", ""): "format",
    ("yamlfmt", ""): "format", ("interrogate", ""): "lint", ("doc8", ""): "lint",
    ("cargo", "udeps"): "lint", ("cargo-sort", ""): "lint", ("cargo", "sort"): "lint",
    ("yard", ""): "build", ("yardoc", ""): "build", ("wasm-pack", "test"): "test",
    ("wasm-pack", "build"): "build", ("cargo", "msrv"): "lint", ("manypkg", "check"): "lint",
    ("check-jsonschema", ""): "lint", ("validate-pyproject", ""): "lint",
    ("slotscheck", ""): "lint", ("golint", ""): "lint", ("markdownlint-cli2", ""): "lint",
    ("betteralign", ""): "lint", ("check-manifest", ""): "lint", ("karma", "start"): "test",
    ("babel", ""): "build",  # `babel src --out-dir lib` compiles the sources
    ("poetry", "check"): "lint", ("zensical", "build"): "build", ("jekyll", "build"): "build",
    ("astro", "build"): "build", ("vitepress", "build"): "build", ("vite", "build"): "build",
    ("docusaurus", "build"): "build", ("hugo", ""): "build", ("zola", "build"): "build",
    ("yard", "server"): "run", ("mdbook", "build"): "build", ("mdbook", "serve"): "run",
    ("cargo", "semver-checks"): "lint", ("cargo", "run"): "run",  # the crate's own program
    ("uv", "format"): "format",  # uv's own front to Ruff's formatter
    ("tombi", "format"): "format", ("tombi", "lint"): "lint",  # TOML's formatter and linter
    ("publint", ""): "lint",  # the package.json of a package as published
    ("taplo", "format"): "format", ("taplo", "lint"): "lint", ("taplo", "check"): "lint",
    # JavaScript's bundlers: `rollup -c` builds the bundles, `webpack serve` a dev server
    ("rollup", ""): "build", ("webpack", ""): "build", ("webpack", "serve"): "run",
    ("esbuild", ""): "build", ("tsup", ""): "build", ("uvu", ""): "test",
    # the docs' API pages generated, the docs rebuilt as they change (Sphinx), the API docs
    # of TypeScript, a Next.js site and a Storybook built or served
    ("sphinx-apidoc", ""): "build", ("sphinx-autobuild", ""): "run", ("typedoc", ""): "build",
    ("next", "build"): "build", ("next", "dev"): "run", ("storybook", "build"): "build",
    ("storybook", "dev"): "run",
    # Go's analyzer of code a newer Go writes better; Cargo's benchmarks, run like the tests
    ("modernize", ""): "lint", ("cargo", "bench"): "test", ("mix", "deps.compile"): "setup",
    # Go code's security linter (a scan of the modules' known holes is CI's: names.py)
    ("gosec", ""): "lint",
    # what a git hook runs on the files staged: the linters and formatters lint-staged
    # is configured with, prettier alone
    ("lint-staged", ""): "lint", ("pretty-quick", ""): "format",
}  # fmt: skip
# what another tool's subcommand says it does (a docs site's `zensical serve`)
_SUBCOMMANDS = {"serve": "run"}
# runners whose next word is a task name: (first word, second word or "")
_RUNNERS = {("make", ""), ("just", ""), ("task", ""), ("rake", ""), ("npm", "run"),
            ("pnpm", "run"), ("yarn", "run"), ("bun", "run"), ("pnpm", ""), ("yarn", ""),
            ("gradlew", ""), ("gradle", ""), ("mvn", ""), ("mvnw", ""),
            ("hatch", "run"), ("hatch", ""), ("poe", ""), ("turbo", "run"), ("turbo", ""),
            ("lerna", "run"), ("nx", "run"), ("nx", ""), ("moon", "run"),
            ("nr", ""), ("bake", ""), ("cargo", "xtask"), ("artisan", ""),
            ("inv", ""), ("invoke", "")}  # fmt: skip
# a runner's options that take values before the task's name: just's `--set NAME VALUE`
_OPTION_VALUES = {"--set": 2, "--justfile": 1, "--working-directory": 1}
# where Composer installs its packages' programs (`vendor/bin/phpunit` runs PHPUnit)
_COMPOSER_BIN = "vendor/bin/"
_ENVIRONMENT_MANAGERS = frozenset({"hatch", "poetry", "pipenv", "pdm"})
# a dependency's program run by its path: `./node_modules/uvu/bin.js`, `node_modules/.bin/tsc`
_DEPENDENCY_PROGRAM = re.compile(r"^(?:\./)?node_modules/(?:\.bin/)?((?:@[\w.-]+/)?[\w.-]+)")
# the system's package managers
_SYSTEM_PACKAGES = frozenset({"apt-get", "apt", "brew", "yum", "dnf", "apk", "pacman",
                              "zypper", "port", "choco", "winget"})  # fmt: skip
# cargo's own short names of its commands
_CARGO_ALIASES = {"b": "build", "c": "check", "t": "test", "d": "doc", "r": "run"}
# programs that run the rest of the line: `time pytest`, `cross-env NODE_ENV=test jest`
_PREFIXES = frozenset({"time", "cross-env", "env"})
# a shell given one quoted command: `nix-shell --cores 0 --pure --run 'cargo fmt'`,
# `bash -c "pytest -x"`, `nix develop --command cargo test` is read by its words already
_SHELL_RUN = re.compile(
    r"""^(?:nix-shell(?:\s+-{1,2}[\w-]+(?:\s+\d+)?)*?\s+--run|(?:ba)?sh\s+-c)\s+(["'])(.*)\1$"""
)
# a camelCase name's word boundaries (`checkRuleFiles`)
CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_CI_VARIABLE = re.compile(r"\$\{\{|\$[A-Za-z_{(]")
# the project's own files handed to a tool (`rustfmt --check $(git ls-files '*.rs')`): no
# variable of CI's, the same in every checkout
_FILES_LISTED = re.compile(r"\$\(git ls-files(?: [^()$`;|&]*)?\)")
_ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=\S*$")


def unwrap(words: list[str]) -> list[str]:
    """The command behind ``uv run``, ``poetry run``, ``bundle exec``, ``python -m``..."""
    words = _module_option(words)
    while len(words) > 1 and ((words[0], words[1]) in _WRAPPERS or words[0] in _RUNS_NEXT):
        words = words[1:] if words[0] in _RUNS_NEXT else words[2:]
        while words and words[0].startswith("-"):
            option = words.pop(0)
            if option in _UV_VALUE_OPTIONS and words:
                words.pop(0)
    return words


def _module_option(words: list[str]) -> list[str]:
    """``python -Im pytest`` (isolated) and ``python -mpip`` are ``python -m pytest`` and
    ``python -m pip``: Python's short options run together."""
    joined = _JOINED_MODULE.match(words[1]) if len(words) > 1 and words[0] in _PYTHONS else None
    if joined is None:
        return words
    module = [joined.group(1)] if joined.group(1) else []
    return [words[0], "-m", *module, *words[2:]]


def shell_command(line: str) -> str:
    """The command a shell is handed to run: ``nix-shell --pure --run 'cargo fmt'`` and
    ``bash -c 'cargo fmt'`` run ``cargo fmt``; any other line as it is."""
    match = _SHELL_RUN.match(line)
    if match is None:
        return line
    inner = match.group(2).strip()
    return inner if inner and match.group(1) not in inner else line


def _task_kind(words: list[str]) -> str | None:
    """The kind of a runner's task (``make test``, ``pnpm lint:check``, ``tox -e typing``)."""
    first = words[0].removeprefix("./")
    for width in (2, 1):
        key = (first, words[1] if width == 2 and len(words) > 1 else "")
        if key in _RUNNERS and len(words) > width:
            targets = [w for w in _without_values(words[width:]) if "=" not in w]
            if targets[:1] == ["run"] and len(targets) > 1 and first in ("just", "make"):
                return _words_kind(words[words.index("run") + 1 :])  # `just run black .`
            return _target_kind(first, targets)
    return None


def _without_values(words: list[str]) -> list[str]:
    """A runner's words but its options and the values they take (``just --set python
    python3.10 test`` runs ``test``)."""
    kept: list[str] = []
    skip = 0
    for word in words:
        if skip:
            skip -= 1
        elif word.startswith("-"):
            skip = _OPTION_VALUES.get(word, 0)
        else:
            kept.append(word)
    return kept


def _target_kind(runner: str, targets: list[str]) -> str | None:
    """The kind of the task a runner is given, by its name."""
    if targets and runner == "hatch":  # `hatch run coverage:combine` combines
        return _hatch_kind(targets[0])
    if targets[:1] == ["run"] and len(targets) > 1 and runner in MANAGERS:
        targets = targets[1:]  # `pnpm --stream run test`: its options came first
    if not targets and runner == "make":
        return "build"  # `make -j8`, `make LDFLAGS=-static`: the default target builds
    return classify_name(targets[0]) if targets else None


def _hatch_kind(target: str) -> str | None:
    """A Hatch script by its name, but for a check environment's script named for
    something generic: ``typing:test`` type checks, ``lint:build`` lints, ``style:fix``
    formats."""
    environment, _, script = target.rpartition(":")
    kind = classify_name(script)
    checks = classify_name(environment) if environment else None
    generic = kind in (None, "test", "build", "run", "lint")
    return checks if checks in ("lint", "typecheck", "format") and generic else kind


def classify_command(line: str, *, typed: bool = True) -> str | None:
    """The kind of a CI line, or None when it is not a contributor's command; a line a task
    runs (not ``typed``) is read whatever its length: the task's name is what is typed."""
    if line.startswith("git submodule update"):
        return "setup"  # the vendored sources a build needs (git is CI's plumbing else)
    # Composer's `vendor/bin/` holds the project's tools, not vendoring
    never = is_never_line(line.removeprefix("./").removeprefix(_COMPOSER_BIN))
    variable = _CI_VARIABLE.search(_FILES_LISTED.sub("FILES", line))
    if typed and len(line) > MAX_COMMAND_CHARS or variable or never:
        return None
    inside = in_folder(line)
    if inside:
        return classify_command(inside[1], typed=typed)
    words = _program_words(unwrap(_without_environment(line.split())))
    if words[:1] == ["node"]:
        return _node_kind(words)
    return None if _is_plumbing(words) else _words_kind(words)


def _program_words(words: list[str]) -> list[str]:
    """The words of the command a shell, an interpreter or cargo-hack is handed."""
    if len(words) > 1 and words[0] in ("bash", "sh") and _is_own_script(words[1]):
        return words[1:]  # `bash scripts/test.sh` runs the project's script
    if len(words) > 1 and words[0] in ("python", "python3") and _is_python_file(words[1]):
        return words[1:]  # `python runtests.py` runs the project's script
    if words[:2] == ["cargo", "hack"] and len(words) > 2:
        return ["cargo", *words[2:]]  # `cargo hack check --each-feature` checks each feature
    return words


def _node_kind(words: list[str]) -> str | None:
    """Node's own test runner, ``node --test``, ShellJS's make, ``node Makefile
    checkLicenses``, and a dependency's program run by its path (``node --require x.js
    ./node_modules/uvu/bin.js -r module test``: uvu's); any other script node runs is CI's."""
    if words[1:2] == ["--test"]:
        return "test"
    if words[1:2] in (["Makefile"], ["Makefile.js"]) and words[2:]:
        return shelljs_target_kind(words[2])
    at = next((i for i, w in enumerate(words) if _DEPENDENCY_PROGRAM.match(w)), None)
    if at is None:
        return None
    package = _DEPENDENCY_PROGRAM.match(words[at]).group(1)  # type: ignore[union-attr]
    named = words[at].rsplit("/bin/", 1)[-1] if "/bin/" in words[at] else package
    if named.startswith("@") or "." in named:
        return None  # a scoped package's program has a name of its own
    return _words_kind([named, *words[at + 1 :]])


def _is_plumbing(words: list[str]) -> bool:
    """CI's own step: a plumbing program, a tool installed on its machine, a version
    printed in its log."""
    return not words or words[0] in _PLUMBING or _installs_globally(words) or _asks_version(words)


def _asks_version(words: list[str]) -> bool:
    """``pnpm tsc --version``, ``cargo clippy -V``: CI printing a tool's version in its log
    runs nothing of the project."""
    return len(words) <= 3 and words[-1] in _VERSION_OPTIONS


def _installs_globally(words: list[str]) -> bool:
    """``npm install -g eslint`` puts a tool on CI's machine: no set-up of the project."""
    return words[0] in MANAGERS and bool({"-g", "--global", "global"} & set(words[1:3]))


def _is_own_script(path: str) -> bool:
    """``scripts/test``, ``integration/test.sh``: a script of the project's own folders."""
    inside = "/" in path and not path.startswith(("/", "~", "$")) and ".." not in path
    return path.startswith(_SCRIPT_FOLDERS) or inside and path.endswith(".sh")


def shelljs_target_kind(name: str) -> str | None:
    """The kind of a ShellJS make target, its camelCase read as words."""
    return classify_name(CAMEL.sub("-", name))


def _is_python_file(path: str) -> bool:
    """``runtests.py``, ``tools/check.py``: a Python file of the project's own (relative,
    not above it, no variable); one of the tests' folder is their helper (it fetches their
    data), which the test runner runs."""
    parts = path.removeprefix("./").split("/")
    outside = path.startswith(("/", "~", "$", "-")) or ".." in parts
    return path.endswith(".py") and not outside and parts[0] not in _TEST_FOLDERS


def in_folder(line: str) -> tuple[str, str] | None:
    """(folder, command) of ``cd FOLDER && COMMAND`` when the folder is one of the project's
    own (relative, no variable, not above it): a workspace member's command."""
    head, sep, rest = line.partition(" && ")
    words = head.split()
    if not sep or len(words) != 2 or words[0] != "cd":
        return None
    folder = words[1]
    if folder.startswith(("/", "~", "-")) or ".." in folder.split("/") or "$" in folder:
        return None
    return folder, rest


def _without_environment(words: list[str]) -> list[str]:
    """``TERM=unknown pytest`` is ``pytest``, and so are ``RUSTFLAGS="-D warnings" pytest``
    (a quoted value of several words), ``time pytest`` (timed) and ``cross-env TZ=UTC
    jest`` (the variables set on every system)."""
    while words and (_ENV_ASSIGNMENT.match(words[0]) or words[0] in _PREFIXES and words[1:]):
        value = words[0].partition("=")[2]
        quote = value[:1]
        words = words[1:]
        if quote in ("'", '"') and (len(value) == 1 or not value.endswith(quote)):
            closing = next((i for i, w in enumerate(words) if w.endswith(quote)), None)
            words = words[closing + 1 :] if closing is not None else []
    return words


def installs_system_packages(lines: list[str]) -> bool:
    """Whether every command of a script runs the system's package manager (``sudo apt-get
    install --assume-yes libcurl4-openssl-dev``): the machine's libraries set up, CI's
    chore, not the project's (a contributor's system has its own way)."""
    found = [line.split() for line in lines if line.strip()]
    found = [w for w in found if not w[0].startswith("#") and w[0] not in ("set", "exit")]
    programs = [w[1] if w[0] == "sudo" and len(w) > 1 else w[0] for w in found]
    return bool(programs) and all(p in _SYSTEM_PACKAGES for p in programs)


def without_environment(line: str) -> list[str]:
    """The words of a command line from its program on (``FOO=a/b cmd x`` is ``cmd x``)."""
    return _without_environment(line.split())


def _words_kind(words: list[str]) -> str | None:
    words = _as_tool(for_member(words))
    first = words[0].removeprefix("./").removeprefix(_COMPOSER_BIN)
    if "/" in first and not first.startswith("/") or first.endswith(_SCRIPT_SUFFIXES):
        return _own_tool_kind(first)  # `ci/test-all`, the root's `runtests.py`
    second = words[1] if len(words) > 1 else ""
    if first in _ENVIRONMENT_MANAGERS and "shell" in words[1:4]:
        return None  # `hatch -e test shell` opens a shell: it runs nothing
    special = _SPECIAL.get((first, second)) or _SPECIAL.get((first, ""))
    if special is not None:
        return special(words)
    kind = _TOOLS.get((first, second)) or _TOOLS.get((first, "")) or _task_kind(words)
    if kind is None and first in ("pip", "uv") and _installs_the_project(words):
        kind = "setup"
    return kind or _SUBCOMMANDS.get(second)


def program(line: str) -> str:
    """The program a command line runs, behind its wrappers: ``pnpm exec playwright
    install`` and ``pnpm playwright install`` run ``playwright``, in a member's folder too."""
    inside = in_folder(line)
    if inside:
        line = inside[1]
    words = _as_tool(for_member(unwrap(_without_environment(line.split()))))
    return words[0] if words else ""


def _as_tool(words: list[str]) -> list[str]:
    """``cargo +stable check`` is a toolchain's cargo; ``pnpm playwright install`` runs
    the tool's own command from the project's dependencies; ``go run
    mvdan.cc/gofumpt@latest`` runs gofumpt."""
    if words[:1] == ["cargo"] and words[1:2] and words[1].startswith("+"):
        words = [words[0], *words[2:]]
    if words[:1] == ["cargo"] and words[1:2] and words[1] in _CARGO_ALIASES:
        return ["cargo", _CARGO_ALIASES[words[1]], *words[2:]]  # `cargo c` checks
    if words[:2] == ["go", "run"] and "@" in "".join(words[2:3]):
        return [words[2].split("@", 1)[0].rsplit("/", 1)[-1], *words[3:]]  # a tool's module
    tool = (words[1], words[2] if len(words) > 2 else "") if len(words) > 1 else ("", "")
    return words[1:] if words[:1] in (["pnpm"], ["yarn"]) and tool in _TOOLS else words


def _own_tool_kind(path: str) -> str | None:
    """The project's own tool (``ci/test-complete``) by its name; outside ``scripts/``, an
    installer is CI's own (``ci/ubuntu-install-packages`` sets up the runner)."""
    kind = classify_name(path.rsplit("/", 1)[-1].rsplit(".", 1)[0])
    script = path.endswith((".sh", ".bash")) or "." not in path.rsplit("/", 1)[-1]
    if kind is None and script and path.split("/", 1)[0] in _FILED_FOLDERS:
        # a script of the tests' folder (`tests/syntax-tests/update.sh` regenerates their
        # expected output), or filed under a kind's folder of the scripts
        # (`scripts/test/tz.sh`, `scripts/build/package.sh`), is read with its folders: a
        # test's update releases nothing
        kind = classify_name(path.rsplit(".", 1)[0])
    return None if kind == "setup" and not path.startswith(_SCRIPT_FOLDERS) else kind


def _rake_kind(words: list[str]) -> str | None:
    """A bare ``rake`` runs the default task: Ruby's is the tests."""
    return "test" if words == ["rake"] else _task_kind(words)


def _hook_kind(words: list[str]) -> str | None:
    """``pre-commit run typecheck --all-files`` runs one hook; without one, every hook."""
    hook = words[2] if len(words) > 2 else "-"
    return "lint" if hook.startswith("-") else classify_name(hook) or "lint"


def _mix_compile_kind(words: list[str]) -> str | None:
    """``mix compile`` builds; with ``--warnings-as-errors`` it is CI's lint of the code."""
    return "lint" if "--warnings-as-errors" in words else "build"


def _mix_unlock_kind(words: list[str]) -> str | None:
    """``mix deps.unlock --check-unused`` fails on a lock file's unused dependencies: a
    lint of the project's manifest; unlocking one changes the lock."""
    return "lint" if "--check-unused" in words else None


def _rbs_kind(words: list[str]) -> str | None:
    return "typecheck" if "validate" in words else None  # RBS's check of the signatures


def _go_get_kind(words: list[str]) -> str | None:
    return None if "-u" in words else "setup"  # `go get -u` updates


def _hatch_fmt_kind(words: list[str]) -> str | None:
    """``hatch fmt`` formats and fixes; with ``--check`` it lints and checks the format."""
    return "lint" if "--check" in words else "format"


def installs_tool(words: list[str]) -> bool:
    """``go install gotest.tools/gotestsum@latest``, ``cargo install cargo-watch``: a tool
    the project's work needs (not the project's own program: ``go install ./cmd/task``,
    ``cargo install --path .``)."""
    if words[:2] == ["go", "install"]:
        return any("@" in word for word in words[2:])
    return words[:2] == ["cargo", "install"] and not {"--path", "--git"} & set(words)


def installs_own(words: list[str], own: frozenset[str]) -> bool:
    """``cargo install -f just`` in just's repository, ``go install example.com/x/cmd/x@latest``
    in module ``example.com/x``: the published program put on the system, no set-up."""
    if not own or not installs_tool(words):
        return False
    target = _installed(words)
    if not target:
        return words[:2] == ["cargo", "install"]  # `cargo install --no-default-features`
    return any(target == name or target.startswith(name + "/") for name in own)


def _installed(words: list[str]) -> str:
    """What ``go install``/``cargo install`` installs, its version aside ('' for none)."""
    return next((w for w in words[2:] if not w.startswith("-")), "").split("@", 1)[0]


def _install_kind(words: list[str]) -> str | None:
    """A tool's install sets up, but not a maintainer's tool's (``go install
    golang.org/x/vuln/cmd/govulncheck@latest``, a security scanner); ``go install
    ./cmd/task`` builds the project's program."""
    if installs_tool(words):
        return None if is_never(_installed(words).rsplit("/", 1)[-1]) else "setup"
    return "build" if words[:2] == ["go", "install"] else None


def _cargo_test_kind(words: list[str]) -> str | None:
    return "build" if "--no-run" in words else "test"  # compiles the tests only


def _cog_kind(words: list[str]) -> str | None:
    return "lint" if "--check" in words else "build"


def _installs_the_project(words: list[str]) -> bool:
    """``pip install -e .``, ``pip install -r requirements-dev.txt``: not a tool's install."""
    if "install" not in words[:3]:
        return False
    rest = [w.strip("'\"") for w in words[words.index("install") + 1 :]]  # `".[docs]"`
    return any(
        w in (".", "-r") or w.startswith((".[", "-e", "--group", "--editable")) for w in rest
    )


def _nix_kind(words: list[str]) -> str | None:
    """Nix's commands in a flake's project: ``nix develop`` enters its shell (or runs the
    command it is given there), ``nix flake check`` runs every check, ``nix fmt``
    formats, ``nix build .#clippy`` builds the output named for a check."""
    sub = words[1] if len(words) > 1 else ""
    rest = [w for w in words[2:] if not w.startswith("-")]
    if sub == "develop":
        for option in ("--command", "-c"):
            if option in words[:-1]:
                return _words_kind(words[words.index(option) + 1 :])
        return "setup"
    if sub == "build":  # an output named for nothing known (`./#trycmd-local`) is left
        output = rest[0].rpartition("#")[2] if rest and "#" in rest[0] else ""
        return classify_name(output) if output else "build"
    return {"fmt": "format", "run": "run"}.get(sub) or (
        "test" if sub == "flake" and rest[:1] == ["check"] else None
    )


def _miri_kind(words: list[str]) -> str | None:
    """``cargo miri test`` (or ``nextest``, ``run``) runs the tests under Miri;
    ``cargo miri setup`` prepares CI's machine for it."""
    return "test" if words[2:3] in (["test"], ["nextest"], ["run"]) else None


def _fuzz_kind(words: list[str]) -> str | None:
    """``cargo fuzz run TARGET`` runs a fuzz test; ``list``, ``init``, ``add`` don't."""
    return "test" if words[2:3] == ["run"] else None


# tools whose words say more than their name: (first word, second word or "") -> reader
_SPECIAL: dict[tuple[str, str], Callable[[list[str]], str | None]] = {
    ("tox", ""): environment_kind, ("nox", ""): environment_kind,
    ("tox", "devenv"): sets_up, ("tox", "d"): sets_up, ("tox", "--devenv"): sets_up,
    ("pre-commit", "run"): _hook_kind, ("prek", "run"): _hook_kind,
    ("go", "get"): _go_get_kind, ("cog", ""): _cog_kind, ("rake", ""): _rake_kind,
    ("hatch", "fmt"): _hatch_fmt_kind, ("cargo", "test"): _cargo_test_kind,
    ("cargo", "miri"): _miri_kind, ("cargo", "fuzz"): _fuzz_kind,
    ("go", "install"): _install_kind, ("cargo", "install"): _install_kind,
    ("nix", ""): _nix_kind, ("mix", "compile"): _mix_compile_kind,
    ("mix", "deps.unlock"): _mix_unlock_kind, ("rbs", ""): _rbs_kind,
}  # fmt: skip


def canonical(command: str) -> str:
    """One spelling of a command: no environment, wrapper, ``./``, ``bash`` or ``run``
    where the runner does without (``pnpm run lint`` is ``pnpm lint``), one spacing."""
    words = unwrap(_without_environment(command.split()))
    if words[:1] in (["bash"], ["sh"]):
        words = words[1:]
    words = [w.removeprefix("./") if i == 0 else w for i, w in enumerate(words)]
    if words[:2] in (["tox", "run"], ["tox", "r"]):
        words = ["tox", *words[2:]]
    if len(words) > 2 and words[0] in ("pnpm", "yarn", "npm") and words[1] == "run":
        words = without_run(words)
    return " ".join(words)
