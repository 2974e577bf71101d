"""The steps of CI that a contributor would run too.

Every CI file is named on the sheet; from GitHub Actions workflows (and the scripts of
GitLab, Travis, CircleCI and Azure) only the lines that test, lint, format, type check,
build or set up are offered. Left out: workflows and jobs that release, publish, deploy,
bump versions, scan for security, label issues or test another repository; lines that need
CI's variables; and plumbing (checkouts, caches, ``echo``, ``git config``).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from typing import Any

from serena_memory.agent.project_facts.ci_installs import (
    installs_tox_for_ci,
    is_contributors_install,
)
from serena_memory.agent.project_facts.commands import (
    MAX_COMMAND_CHARS,
    canonical,
    classify_command,
    installs_system_packages,
    installs_tool,
    program,
    without_environment,
)
from serena_memory.agent.project_facts.files import Project, table, walk
from serena_memory.agent.project_facts.languages import CI_FILES
from serena_memory.agent.project_facts.names import words
from serena_memory.agent.project_facts.sheet import CI, FactSheet

MAX_WORKFLOWS = 60
MAX_MATRIX_VALUES = 6
MAX_STEPS = 200
# sourcehut's builds: `.build.yml`, or the files of `.builds/`
SOURCEHUT = ".builds"
_MATRIX = re.compile(r"\$\{\{\s*matrix\.([A-Za-z0-9_-]+)\s*\}\}")
_ENV = re.compile(r"\$\{\{\s*env\.([A-Za-z0-9_]+)\s*\}\}")
# the shell's spelling of an env value: `$BUILD_CMD test`, `${BUILD_CMD} test`
_SHELL_VAR = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")
_QUOTED_VAR = re.compile(r'(?<!\S)"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?"(?!\S)')
# the machine a job builds for (`--target=${{ matrix.job.target }}`): a contributor builds
# for their own, the tool's default
_CROSS_TARGET = re.compile(r"\s--target[= ]\$\{\{\s*matrix\.[\w.-]+\s*\}\}")
# words of a workflow's or job's name (or file name) that say it is not about the code
_NOT_CODE = frozenset(
    {"release", "releases", "publish", "deploy", "deployment", "pages", "docs-deploy",
     "codeql", "scorecard", "scorecards", "security", "zizmor", "trivy", "snyk", "audit",
     "stale", "lock", "label", "labeler", "labels", "triage", "issue", "issues", "greet",
     "welcome", "backport", "dependabot", "renovate", "bump", "version", "tag", "cla",
     "changelog", "sponsors", "people", "upload", "previews", "claude", "pullfrog",
     "conflict", "manager", "cd", "sync", "dependencies", "third", "party",
     "external", "benchmark", "benchmarks", "codspeed", "fuzz", "cifuzz"}
)  # fmt: skip
# options that change what a command prints, not what it runs
# (and tox's reuse of the environment a step before made: `--skip-pkg-install`)
_OUTPUT_OPTIONS = frozenset({"--show-diff-on-failure", "--verbose", "-v", "-vv", "--color",
                             "--colour", "-q", "--quiet", "--no-progress", "--locked",
                             "--frozen", "--no-fund", "--no-audit",
                             "--skip-pkg-install"})  # fmt: skip
# the test runners' options to run again only what failed in the run before
_RERUNS_FAILED = frozenset({"--lf", "--last-failed", "--only-failures"})
# words a step that checks the code may have (`Download dependencies`, `Test External
# Adapters`), unlike a workflow or job (one testing another repository)
_STEP_WORDS = frozenset({"dependencies", "external", "third", "party"})
# the programs that install packages
_INSTALLERS = frozenset({"pip", "pip3", "uv", "npm", "pnpm", "yarn", "bun", "bundle", "gem",
                         "poetry", "pdm", "go", "cargo", "hatch", "pipenv", "conda", "ni",
                         "composer", "mix", "dotnet", "pre-commit", "prek"})  # fmt: skip
# a value CI fills in: its words say nothing of what the job does
_EXPRESSION = re.compile(r"\$\{\{[^}]*\}\}")
# words of a job checking the code on the oldest version it supports (no version bump)
_MINIMUM = frozenset({"min", "minimum", "minimal", "oldest", "msrv"})
# matrix keys of the versions or machines a job runs on
_VERSION_KEYS = frozenset({"version", "versions", "python", "node", "ruby", "go", "rust",
                           "toolchain", "os", "platform", "jdk", "java"})  # fmt: skip
_VERSION = re.compile(r"^(v|py|pypy)?\d+([.\-]\w+)*$")
# actions that run a checker the contributor runs by hand, as they run it
_ACTIONS = {"crate-ci/typos": "typos", "golangci/golangci-lint-action": "golangci-lint run",
            "pre-commit/action": "pre-commit run --all-files",
            "codespell-project/actions-codespell": "codespell",
            "astral-sh/ruff-action": "ruff check"}  # fmt: skip
_NOT_FOR_TAGS = re.compile(r"!\s*startsWith\(\s*github\.ref\s*,\s*'refs/tags/")
_CODE_EVENTS = {"push", "pull_request", "pull_request_target", "merge_group"}


def ci_paths(project: Project) -> list[str]:
    """The CI files: GitHub workflows first (sorted), then the other services' files."""
    paths = []
    workflows = ".github/workflows"
    for name in project.listing(workflows)[:MAX_WORKFLOWS]:
        if name.endswith((".yml", ".yaml")) and project.is_file(f"{workflows}/{name}"):
            paths.append(f"{workflows}/{name}")
    paths.extend(name for name in CI_FILES if project.is_file(name))
    builds = [f"{SOURCEHUT}/{n}" for n in sorted(project.listing(SOURCEHUT))[:MAX_WORKFLOWS]]
    paths.extend(rel for rel in [".build.yml", *builds] if _is_sourcehut(project, rel))
    return paths


def _is_sourcehut(project: Project, rel: str) -> bool:
    return rel.endswith((".yml", ".yaml")) and project.is_file(rel)


def _listed(data: dict[str, Any], key: str) -> list[Any]:
    value = data.get(key)
    return value if isinstance(value, list) else []


def _sourcehut_scripts(data: Any) -> list[tuple[str, str]]:
    """The scripts of a sourcehut build's ``tasks:``, each run in the clone of its
    ``sources:`` (``cd alacritty`` is the project's root, ``cd alacritty/alacritty`` its
    member ``alacritty``)."""
    if not isinstance(data, dict):
        return []
    sources = _listed(data, "sources")
    clones = {
        s.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git") for s in sources if isinstance(s, str)
    }
    found: list[tuple[str, str]] = []
    for task in _listed(data, "tasks")[:MAX_STEPS]:
        for name, script in task.items() if isinstance(task, dict) else []:
            if not isinstance(script, str) or not _is_code(name):
                continue
            lines = script.strip().splitlines()
            first = lines[0].split() if lines else []
            folder = ""
            if len(first) == 2 and first[0] == "cd" and first[1].split("/", 1)[0] in clones:
                folder, lines = first[1].partition("/")[2], lines[1:]
            found.append(("\n".join(lines), folder))
    return found


def read_ci(project: Project) -> None:
    """Name every CI file and offer its contributor's steps while the sheet has room."""
    paths = ci_paths(project)
    called = _called_workflows(project, paths)
    for rel in paths:
        if not _is_reusable(project, rel):
            project.sheet.ci_files.append(rel)
        lines = list(_lines(project, rel, called))
        for index, line in enumerate(lines):
            kind = _step_kind(project, line)
            if kind and _is_new(project.sheet, kind, line) and project.sheet.add(kind, line, CI):
                _offer_script_parts(project, line)
            after = lines[index + 1] if index + 1 < len(lines) else ""
            if kind in _REWRITES and _DIFF_CHECK.match(after):
                checked = f"{line} && {after}"  # `go mod tidy` then `git diff --exit-code`
                if _is_new(project.sheet, "lint", checked):
                    project.sheet.add("lint", checked, CI)


# a step that rewrites files followed by one failing when it changed any: a check that the
# committed files are what the command makes (`go mod tidy` then `git diff --exit-code`)
_REWRITES = frozenset({"setup", "format", "build"})
_DIFF_CHECK = re.compile(r"^git diff (?:--exit-code|--quiet)(?: [\w./*:-]{1,200}){0,8}$")
# the kinds a script's lines may give it, in the order one wins: a script that installs
# what it needs and then tests is a test
_SCRIPT_KINDS = ("test", "lint", "typecheck", "format", "build")
_SHELLS = frozenset({"bash", "sh"})


def _step_kind(project: Project, line: str) -> str | None:
    """The kind of one of CI's lines: a pattern rule's, the command's, what the project's
    own script runs, tox installed for CI; None for a script CI fetched."""
    kind = _pattern_kind(project.sheet, line) or classify_command(line)
    kind = kind or _own_script_kind(project, line)
    kind = kind or ("setup" if installs_tox_for_ci(line) else None)
    return None if kind and _fetched_script(project, line) else kind


def _fetched_script(project: Project, line: str) -> bool:
    """A script run by its bare name that the project does not hold (``golangci-lint.sh -b
    ~/bin v1.37.0``): one CI downloaded onto its PATH, CI's set-up; or the project's script
    that only installs the system's packages (``./script/install-apt-deps.sh``)."""
    first = (without_environment(line) or [""])[0]
    script = first.endswith((".sh", ".bash", ".py", ".rb", ".pl")) and "/" not in first
    own = own_script_text(project, first) or ""
    system = own.startswith("#!") and installs_system_packages(own.splitlines()[1:])
    return script and not project.is_file(first) or system


def _own_script_kind(project: Project, line: str) -> str | None:
    """The kind of a project's own shell script a CI step runs (``ci/miri.sh``,
    ``bash ci/tsan.sh``) whose name says none: what its lines run (``cargo miri test``)."""
    words = line.split()
    if words and words[0] in _SHELLS:
        words = words[1:]
    if len(words) != 1 or not words[0].endswith((".sh", ".bash")):
        return None
    text = own_script_text(project, words[0])
    if not text:
        return None
    # what each line runs, its environment aside: `RUSTFLAGS="$RUSTFLAGS -Cpanic=abort"
    # cargo test` tests, whatever CI's variables the script passes on
    kinds = {classify_command(" ".join(without_environment(c))) for c in script_lines(text)}
    return next((kind for kind in _SCRIPT_KINDS if kind in kinds), None)


def _offer_script_parts(project: Project, line: str) -> None:
    """The lines of the project's own script a CI step runs (``ci/test-stable.sh test``),
    each under its own kind when they are of several."""
    from serena_memory.agent.project_facts.parts import offer_parts
    from serena_memory.agent.project_facts.scripts_folder import script_parts

    words = line.split()
    words = words[1:] if words[:1] and words[0] in _SHELLS else words
    text = own_script_text(project, words[0]) if words else None
    if text and text.startswith("#!"):
        offer_parts(project.sheet, script_parts(text, tuple(words[1:])), CI)


def own_script_text(project: Project, word: str) -> str | None:
    """The text of the project's script a command's first word names (``ci/miri.sh``,
    ``./scripts/docs``: in a folder of the project, never above it), or None."""
    rel = word.removeprefix("./")
    if "/" not in rel or ".." in rel.split("/") or not project.is_file(rel):
        return None
    return project.text(rel)


def release_only_lines(project: Project) -> set[str]:
    """The lines GitHub workflows run only in what releases (a publish workflow's ``uv
    build``): a command run nowhere else is a maintainer's step, not a contributor's."""
    released: set[str] = set()
    checked: set[str] = set()
    for rel in ci_paths(project):
        data = project.yaml(rel)
        if not rel.startswith(".github/") or not isinstance(data, dict):
            continue
        code = {line for script, _ in _workflow_scripts(rel, data) for line in script_lines(script)}
        every = {line for script, _ in _other_scripts(data) for line in script_lines(script)}
        checked |= code
        released |= every - code
    return released - checked


def _pattern_kind(sheet: FactSheet, line: str) -> str | None:
    """The kind of a pattern rule's recipe for a line that names one (``make
    check-release``), when it can be typed as it stands."""
    if "$" in line or len(line) > MAX_COMMAND_CHARS:
        return None
    kind = sheet.pattern_kind(line)
    return kind if kind in sheet.commands else None


def _is_new(sheet: FactSheet, kind: str, line: str) -> bool:
    """Not a spelling of a command offered already (CI's installs of packages only when the
    project names none: CI's are often for one job's needs; a tool's own set-up, such as
    the browsers of Playwright, is more than that, and so are tox with its CI plugin and
    ``npm ci``, see ci_installs; never CI's install of a tool)."""
    everyday = kind == "setup" and is_contributors_install(sheet, line)
    if kind == "setup" and sheet.has("setup") and program(line) in _INSTALLERS and not everyday:
        return False
    if kind == "setup" and installs_tool(line.split()):
        return False  # a tool for one job (`cargo install cargo-hack`): CI's own set-up
    if _RERUNS_FAILED.intersection(line.split()):
        return False  # `pytest --lf -vvvvv` after a failed run: the failures in CI's log
    return _key(line) not in {_key(command) for command in sheet.offered()}


def _key(command: str) -> tuple[str, ...]:
    """What a command runs, whatever its spelling and its output's options: CI's
    ``pre-commit run --show-diff-on-failure --all-files`` is the ``pre-commit run
    --all-files`` offered; ``cargo check --no-default-features`` is another check."""
    kept = (w for w in canonical(command).split() if w.split("=", 1)[0] not in _OUTPUT_OPTIONS)
    return tuple(kept)


def _called_workflows(project: Project, paths: list[str]) -> frozenset[str]:
    """The workflows of the project that a workflow run on changes calls (``uses:
    ./.github/workflows/test.yml``): they check the changes too."""
    called: set[str] = set()
    for rel in paths:
        data = project.yaml(rel) if rel.startswith(".github/workflows/") else None
        if not isinstance(data, dict) or not _runs_on_changes(data):
            continue
        for job in table(data, "jobs").values():
            uses = job.get("uses") if isinstance(job, dict) else None
            if isinstance(uses, str) and uses.startswith("./.github/workflows/"):
                called.add(uses.removeprefix("./").split("@", 1)[0])
    return frozenset(called)


def _lines(project: Project, rel: str, called: frozenset[str] = frozenset()) -> Iterator[str]:
    data = project.yaml(rel)
    if rel.startswith(".github/"):
        scripts = _workflow_scripts(rel, data, rel in called)
    elif rel.startswith((SOURCEHUT, ".build.")):
        scripts = _sourcehut_scripts(data)
    else:
        scripts = _other_scripts(data)
    for script, folder in scripts:
        yield from script_lines(script, folder)


def script_lines(script: str, folder: str = "") -> Iterator[str]:
    """The commands of a shell script: continued lines joined, ``a && b`` split; each line
    run in ``folder`` is written ``cd FOLDER && COMMAND``."""
    joined = script.replace("\\\r\n", " ").replace("\\\n", " ")
    start = f"cd {folder} && " if folder else ""
    for line in joined.splitlines():
        line = line.strip()
        if line.startswith("#"):
            continue
        folder = start
        line = line.split(" || ", 1)[0]  # `pytest || pytest --lf`: what runs is the first
        for part in line.split(" && "):
            part = " ".join(part.split())
            if part.startswith("cd ") and len(part.split()) == 2:
                folder = f"{part} && "  # what follows runs in that folder
                continue
            if part and part.count("(") == part.count(")"):
                yield folder + part


def _is_code(name: Any, allowed: frozenset[str] = frozenset()) -> bool:
    if not isinstance(name, str):
        return False
    found = words(_EXPRESSION.sub(" ", name))  # `Test ${{ matrix.python-version }}`
    if _MINIMUM.intersection(found):
        allowed = allowed | {"version"}  # `min_version`: tests on the oldest toolchain
    if {"ci", "cd"} <= set(found):
        allowed = allowed | {"cd"}  # `CI/CD`: its jobs say which deploy
    return not any(w in _NOT_CODE and w not in allowed for w in found)


def _is_code_job(code: bool, job_id: str, name: Any) -> bool:
    """A job of a workflow that checks the code, named for no release or deploy; or, in one
    that deploys, the job that tests the deployment on changes (``test-deploy``: ``Test
    deployment`` builds the site a change would deploy, as a contributor does)."""
    if code:
        return _is_code(job_id) and _is_code(name)
    return all(_tests_deployment(n) for n in (job_id, name if isinstance(name, str) else job_id))


def _for_tags(condition: str) -> bool:
    """A job's ``if:`` running it for tags only; ``!startsWith(github.ref, 'refs/tags/')``
    runs it for everything else."""
    return "refs/tags/" in condition and not _NOT_FOR_TAGS.search(condition)


def _tests_deployment(name: str) -> bool:
    found = set(words(name))
    return "test" in found and bool(found & {"deploy", "deployment"})


def _workflow_scripts(rel: str, data: Any, called: bool = False) -> list[tuple[str, str]]:
    """The ``run:`` scripts of a workflow's jobs that check the code (``called``: by a
    workflow run on changes)."""
    if not isinstance(data, dict) or not (called or _runs_on_changes(data)):
        return []
    code = _is_code(os.path.basename(rel).rsplit(".", 1)[0]) and _is_code(data.get("name", ""))
    scripts: list[tuple[str, str]] = []
    for job_id, job in table(data, "jobs").items():
        if not isinstance(job, dict) or not _is_code_job(code, job_id, job.get("name", "")):
            continue
        if _for_tags(str(job.get("if", ""))):
            continue  # a job that runs for a tag only releases
        steps = job.get("steps")
        if isinstance(steps, list) and not _checks_out_another_repository(steps):
            scripts.extend(_job_scripts(data, job, steps))
    return scripts


def _job_scripts(
    data: dict[str, Any], job: dict[str, Any], steps: list[Any]
) -> list[tuple[str, str]]:
    """(script, folder) of each step of a job that checks the code: the workflow's and
    job's ``env:`` values filled in, once per value of the matrix key it names."""
    scripts: list[tuple[str, str]] = []
    values = matrix_values(job)
    env = {**plain_env(data), **plain_env(job)}
    for step in _flat(steps):
        if isinstance(step, dict) and _is_code(step.get("name", ""), _STEP_WORDS):
            run = step.get("run") or action_command(step)
            if isinstance(run, str):
                run = resolve_env(run, {**env, **plain_env(step)})
                folder = _folder(data, job, step)
                lines = _make_per_matrix_env(run, job, values) or expand_matrix(run, values)
                scripts.extend((line, folder) for line in lines)
    return scripts


def action_command(step: dict[str, Any]) -> str | None:
    """The command an action runs, as typed by hand: a checker's (``crate-ci/typos``), or
    ``actions-rs/cargo``'s ``command`` and ``args`` (``cargo check --locked``)."""
    uses = str(step.get("uses", "")).split("@", 1)[0]
    given = step.get("with")
    if uses != "actions-rs/cargo" or not isinstance(given, dict):
        return _ACTIONS.get(uses)
    command, args = given.get("command"), given.get("args", "")
    if not isinstance(command, str) or not isinstance(args, str):
        return None
    toolchain = given.get("toolchain")
    plus = [f"+{toolchain}"] if isinstance(toolchain, str) and toolchain else []
    return " ".join(["cargo", *plus, command, *args.split()])


def _flat(steps: list[Any]) -> list[Any]:
    """The steps, those grouped under ``parallel:`` (run side by side) in their place."""
    found: list[Any] = []
    for step in steps[:MAX_STEPS]:
        group = step.get("parallel") if isinstance(step, dict) else None
        found.extend(group[:MAX_STEPS] if isinstance(group, list) else [step])
    return found


def _make_per_matrix_env(run: str, job: dict[str, Any], values: dict[str, list[str]]) -> list[str]:
    """A ``make`` step of a job whose ``env:`` passes it a matrix value (gin's ``TESTTAGS:
    ${{ matrix.test-tags }}``), once per value as a person types it: ``make test
    TESTTAGS="-tags nomsgpack"``, and ``make test`` for the empty one."""
    if not run.strip().startswith("make ") or "\n" in run.strip():
        return []
    for name, value in table(job, "env").items():
        found = _MATRIX.fullmatch(str(value).strip())
        choices = values.get(found.group(1), []) if found else []
        if 0 < len(choices) <= MAX_MATRIX_VALUES:
            plain = [c for c in choices if '"' not in c and "$" not in c]
            return [f'{run.strip()} {name}="{c}"' if c else run.strip() for c in plain]
    return []


def _folder(*nodes: dict[str, Any]) -> str:
    """The step's ``working-directory`` (its own, else its job's or workflow's default)
    when it is a folder of the project, else "" (the root, or one that needs CI's values)."""
    folder: Any = None
    for node in nodes:
        folder = table(node, "defaults", "run").get("working-directory", folder)
    folder = nodes[-1].get("working-directory", folder)
    if not isinstance(folder, str) or "$" in folder or folder.startswith(("/", "~", "-")):
        return ""
    folder = folder.removeprefix("./").rstrip("/")
    return "" if folder in ("", ".") or ".." in folder.split("/") or " " in folder else folder


def plain_env(node: dict[str, Any]) -> dict[str, str]:
    """The ``env:`` values that need nothing of CI (``CARGO: cargo``, ``FLAGS: ""``)."""
    return {
        str(key): "" if value is None else str(value)
        for key, value in table(node, "env").items()
        if value is None or isinstance(value, str | int) and not {"$", "\n"} & set(str(value))
    }


def resolve_env(script: str, env: dict[str, str]) -> str:
    """``${{ env.CARGO }} test ${{ env.TARGET_FLAGS }}`` as ``cargo test`` when the workflow
    sets ``CARGO: cargo`` and ``TARGET_FLAGS: ""`` (a value set in a step stays unknown);
    the shell's ``$BUILD_CMD`` alike, and a cross-compiling ``--target`` left out."""
    script = _CROSS_TARGET.sub("", script)
    script = _QUOTED_VAR.sub(lambda m: _unquoted(env, m), script)
    script = _SHELL_VAR.sub(lambda m: env.get(m.group(1), m.group(0)), script)
    return _ENV.sub(lambda m: env.get(m.group(1), m.group(0)), script)


def _unquoted(env: dict[str, str], match: re.Match[str]) -> str:
    """A quoted word that is only a variable (``"${FEATURES}"``) holding plain options."""
    value = env.get(match.group(1))
    if value is None or set(value) & set("\"' \t"):
        return match.group(0)
    return value


def matrix_values(job: dict[str, Any]) -> dict[str, list[str]]:
    """Each matrix key's plain values (its list and its ``include`` entries), in order."""
    matrix = table(job, "strategy", "matrix")
    found: dict[str, list[str]] = {}
    entries = [matrix] + [e for e in matrix.get("include") or [] if isinstance(e, dict)]
    for entry in entries:
        for key, value in entry.items():
            if key in ("include", "exclude") or not isinstance(key, str):
                continue
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, str | int) and not isinstance(item, bool):
                    known = found.setdefault(key, [])
                    if str(item) not in known:
                        known.append(str(item))
    return found


def expand_matrix(script: str, values: dict[str, list[str]]) -> list[str]:
    """The script once per value of the one matrix key it names (``make test-${{
    matrix.features }}``: ``make test-minimal``, ``make test-full``...); as it stands when
    it names none, several, or one with too many values."""
    keys = set(_MATRIX.findall(script))
    if len(keys) != 1:
        return [script]
    key = keys.pop()
    choices = values.get(key, [])
    if not 0 < len(choices) <= MAX_MATRIX_VALUES:
        return [script]
    if _is_versions(key, choices):
        choices = choices[:1]  # `--python 3.10`, `--python 3.11`...: one command, typed once
    return [_MATRIX.sub(value.replace("\\", r"\\"), script) for value in choices]


def _is_versions(key: str, choices: list[str]) -> bool:
    """A matrix of the versions or machines one command runs on, not of the tasks it runs."""
    named = set(words(key)) & _VERSION_KEYS
    return bool(named) or all(_VERSION.match(choice) for choice in choices)


def _is_reusable(project: Project, rel: str) -> bool:
    """A workflow only other workflows call (``on: workflow_call``): no file to list, its
    callers are, and what it runs is read with them (its ``uses:`` path is no command)."""
    data = project.yaml(rel) if rel.startswith(".github/workflows/") else None
    if not isinstance(data, dict):
        return False
    events = data.get("on", data.get(True))
    names = [events] if isinstance(events, str) else events
    return isinstance(names, (list, dict)) and list(names) == ["workflow_call"]


def _runs_on_changes(data: dict[str, Any]) -> bool:
    """Whether the workflow runs on pushes or pull requests (not only on tags, releases,
    schedules or by hand). YAML reads the key ``on`` as True."""
    events = data.get("on", data.get(True))  # type: ignore[call-overload]
    if isinstance(events, str):
        events = [events]
    if isinstance(events, list):
        return any(e in _CODE_EVENTS for e in events)
    if isinstance(events, dict):
        push = events.get("push")
        tags_only = isinstance(push, dict) and "tags" in push and "branches" not in push
        return any(e in _CODE_EVENTS for e in events if not (e == "push" and tags_only))
    return False


def _checks_out_another_repository(steps: list[Any]) -> bool:
    for step in steps:
        if isinstance(step, dict) and str(step.get("uses", "")).startswith("actions/checkout"):
            with contextlib.suppress(AttributeError):
                if step.get("with", {}).get("repository"):
                    return True
    return False


# the keys holding shell lines: GitLab's and Travis's scripts (Travis's `install:` sets the
# build up), CircleCI's and Azure's steps
_SCRIPT_KEYS = frozenset({"script", "before_script", "install", "command", "run", "bash"})


def _other_scripts(data: Any) -> list[tuple[str, str]]:
    """Every ``script``/``command``/``run`` string of GitLab, Travis, CircleCI, Azure."""
    found: list[tuple[str, str]] = []
    for key, value in walk(data):
        if key in _SCRIPT_KEYS:
            if isinstance(value, str):
                found.append((value, ""))
            elif isinstance(value, list):
                found.extend((v, "") for v in value if isinstance(v, str))
    return found
