"""Rebuild a labelled facts set (``benchmarks/data/facts-labels/setN``) as the folder layout
``facts_realworld.py`` reads, from bare git mirrors of its repositories.

The labels keep only the commands and the commit, not the repository's files (they are
someone else's code); measuring needs the files a contributor reads for those commands. For
each ``OWNER__NAME.json`` this writes ``OUT/OWNER__NAME/`` with ``labels.json`` (a copy),
``tree.txt`` (``git ls-tree -r --name-only`` at the labels' ``commit``) and ``files/``: the
build and package files (at any depth but inside vendored or fixture folders), the task
runners, every CI configuration, the README and the contributor docs (the root's and
``.github/``'s Markdown, the docs pages whose name or folder is for contributors, the docs'
own Makefile and requirements), and the project's script folders (``scripts/``, ``ci/``,
``tools/``, ``tasks/``, ``xtask/``...), as ``command-facts.tar.gz`` holds them. Nothing over
200 KB is written; symlinks stay symlinks.

The mirror of ``OWNER/NAME`` is looked up as ``MIRRORS/OWNER+NAME/repo`` (what the
session's ``fetch`` tool makes), else ``MIRRORS/OWNER+NAME`` or ``MIRRORS/OWNER__NAME``.

Usage: python benchmarks/facts_fetch.py LABELS_DIR OUT_DIR [--mirrors DIR]
       e.g. python benchmarks/facts_fetch.py benchmarks/data/facts-labels/set14 \\
            /work/facts-dev/set14 && python benchmarks/facts_realworld.py /work/facts-dev/set14
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MAX_BYTES = 200 * 1024
DEFAULT_MIRRORS = Path("/work/.mirror")

# build, package and tool configuration files, at any depth (monorepos' members)
BUILD_NAMES = frozenset(
    {
        "Makefile", "makefile", "GNUmakefile", "Makefile.js", "make.bat", "justfile",
        "Justfile", ".justfile", "Rakefile", "Rakefile.rb", "Gemfile", "Taskfile.yml",
        "Taskfile.yaml", "Taskfile.dist.yml", "Taskfile.dist.yaml", "taskfile.yml",
        "taskfile.yaml", "magefile.go", "package.json", "pyproject.toml", "setup.py",
        "setup.cfg", "tox.ini", "tox.toml", "noxfile.py", "hatch.toml", "pytest.ini",
        "mypy.ini", ".mypy.ini", "ruff.toml", ".ruff.toml", "pyrightconfig.json",
        "conftest.py", "Cargo.toml", "rustfmt.toml", ".rustfmt.toml", "clippy.toml",
        ".clippy.toml", "deny.toml", "rust-toolchain", "rust-toolchain.toml", "go.mod",
        "composer.json", "mix.exs", ".formatter.exs", "build.gradle", "build.gradle.kts",
        "settings.gradle", "settings.gradle.kts", "pom.xml", "CMakeLists.txt",
        "meson.build", "configure.ac", "autogen.sh", "bootstrap.sh", "book.toml",
        "netlify.toml", "deno.json", "deno.jsonc", "biome.json", "biome.jsonc",
        "lerna.json", "nx.json", "turbo.json", "pnpm-workspace.yaml", ".npmrc", ".nvmrc",
        ".node-version", ".yarnrc.yml", ".yarnrc", ".tool-versions", "mise.toml",
        ".mise.toml", ".pre-commit-config.yaml", ".pre-commit-config.yml",
        ".pre-commit-hooks.yaml", ".rubocop.yml", ".golangci.yml", ".golangci.yaml",
        ".golangci.toml", ".golangci.json", ".readthedocs.yaml", ".readthedocs.yml",
        "readthedocs.yml", "mkdocs.yml", "mkdocs.yaml", "lefthook.yml", ".lefthook.yml",
        ".lintstagedrc", ".lintstagedrc.json", "phpunit.xml", "phpunit.xml.dist",
        "phpunit.dist.xml", "phpcs.xml", ".phpcs.xml", "psalm.xml", "phpstan.neon",
        "Dockerfile", "docker-compose.yml", "docker-compose.yaml", "compose.yaml",
        "compose.yml", "Brewfile", "Procfile", "Earthfile", ".editorconfig",
        ".gitmodules", "codecov.yml", ".codecov.yml", ".coveragerc", "environment.yml",
        "Pipfile", "flake.nix", "shell.nix", "default.nix", "Vagrantfile", "Jenkinsfile",
    }
)  # fmt: skip
BUILD_PATTERNS = ("*.gemspec", "*.mk", "requirements*.txt", "requirements*.in",
                  "constraints*.txt", "tsconfig*.json", "*.cabal", "*.rake")  # fmt: skip
# the tools' own configuration, read at the root only (an example's is not the project's)
ROOT_PATTERNS = (
    "eslint.config.*",
    ".eslintrc*",
    "prettier.config.*",
    ".prettierrc*",
    "jest.config.*",
    "vitest.config.*",
    "karma.conf.*",
    "rollup.config.*",
    "webpack.config.*",
    "vite.config.*",
    "babel.config.*",
    ".babelrc*",
    "knip.*",
    "Gruntfile.*",
    "gulpfile.*",
    "*.sh",
    "*.py",
    "*.js",
    "*.mjs",
    "*.cjs",
    "*.ts",
    "*.rb",
    "*.toml",
    "*.yml",
    "*.yaml",
    "*.json",
    "*.cfg",
    "*.ini",
    "*.md",
    "*.rst",
    "*.txt",
    "*_test.go",
)  # fmt: skip  (a Go test's name: one test is run by it)
# the test files right in the tests' folder, whose first test the one-test line names
# (`cargo test parses_headers`)
TEST_FOLDERS = ("tests", "test")
TEST_PATTERNS = ("*.rs", "test_*.py", "*_test.py")
# every CI configuration
CI_FOLDERS = (".github/", ".circleci/", ".builds/", ".azure-pipelines/", ".buildkite/",
              ".gitlab/", ".woodpecker/", ".forgejo/", ".gitea/", ".ci/")  # fmt: skip
CI_NAMES = frozenset({".travis.yml", ".gitlab-ci.yml", "azure-pipelines.yml",
                      "azure-pipelines.yaml", "appveyor.yml", ".appveyor.yml", ".cirrus.yml",
                      "bitbucket-pipelines.yml", ".drone.yml", ".build.yml",
                      ".woodpecker.yml"})  # fmt: skip
# the project's own scripts and task folders, at the root or one level down
SCRIPT_FOLDERS = frozenset({"scripts", "script", "ci", "tools", "tool", "tasks", "hack",
                            "bin", "xtask", "rakelib", "magefiles", "build-tools", "dev",
                            "devtools", ".devcontainer", ".husky", ".githooks",
                            ".config", ".cargo", ".mise", "mise"})  # fmt: skip
# the code's own folders, whose ``bin/`` or ``tools/`` is code, not the contributors' scripts
SOURCE_FOLDERS = frozenset({"src", "lib", "test", "tests", "pkg", "internal", "cmd"})
DOC_FOLDERS = ("docs/", "doc/", "documentation/", "Documentation/", "website/docs/")
DOC_SUFFIXES = (".md", ".mdx", ".rst", ".txt", ".adoc", ".markdown", "")
# a docs page (or folder) for contributors rather than users
CONTRIBUTOR_WORDS = ("contribut", "develop", "hacking", "build", "test", "setup",
                     "getting-started", "getting_started", "quickstart", "install",
                     "maintain", "agents", "claude", "style", "lint", "dev", "tooling",
                     "workflow", "internals", "makefile", "conf.py")  # fmt: skip
# folders whose files are someone else's or data: never the project's commands
SKIP_PARTS = frozenset({"node_modules", "vendor", "third_party", "third-party", "testdata",
                        "fixtures", "__fixtures__", "__snapshots__", "snapshots", ".yarn",
                        "bower_components", "site-packages", "dist"})  # fmt: skip
MAX_BUILD_DEPTH = 4
# a shell script anywhere near the root (``verify/all.sh``), and any executable file there
SHELL_SUFFIXES = (".sh", ".bash", ".ps1", ".bat", ".cmd")
MAX_SCRIPT_FILES = 400


@dataclass(frozen=True)
class Entry:
    """One path of the tree at the commit."""

    mode: str
    kind: str
    sha: str
    size: int
    path: str


def git(git_dir: Path, *args: str) -> bytes:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True
    ).stdout


def entries(git_dir: Path, commit: str) -> list[Entry]:
    """Every path of the tree at ``commit`` (submodules as ``commit`` entries)."""
    out = git(git_dir, "ls-tree", "-r", "-l", "-z", "--full-tree", commit)
    found = []
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        mode, kind, sha, size = meta.decode().split()
        found.append(Entry(mode, kind, sha, int(size) if size.isdigit() else 0,
                           path.decode("utf-8", errors="surrogateescape")))  # fmt: skip
    return found


def is_doc_for_contributors(path: PurePosixPath) -> bool:
    """A README or contributor guide at the root or in ``.github/``, or a docs page whose
    name or folder is for contributors (``docs/contributing/pull-requests.md``)."""
    text = str(path)
    if path.suffix.lower() not in DOC_SUFFIXES and path.name not in ("conf.py", "Makefile"):
        return False
    if len(path.parts) == 1:
        return True
    if not text.startswith(DOC_FOLDERS):
        return False
    lowered = text.lower()
    named = any(word in lowered for word in CONTRIBUTOR_WORDS)
    return named or path.stem.lower() in ("readme", "index")


def _skipped(path: str) -> bool:
    return any(part in SKIP_PARTS for part in PurePosixPath(path).parts[:-1])


def is_wanted(path: str) -> bool:
    """Whether ``path`` is one of the files a contributor reads for the commands."""
    pure = PurePosixPath(path)
    parts = pure.parts
    if _skipped(path):
        return False
    if path.startswith(CI_FOLDERS) or pure.name in CI_NAMES:
        return True
    if len(parts) <= MAX_BUILD_DEPTH and (
        pure.name in BUILD_NAMES or any(fnmatch.fnmatch(pure.name, p) for p in BUILD_PATTERNS)
    ):
        return True
    if len(parts) == 1 and any(fnmatch.fnmatch(pure.name, p) for p in ROOT_PATTERNS):
        return True
    folders = parts[:-1][:1] if parts[0] in SOURCE_FOLDERS else parts[:-1][:2]
    if any(part in SCRIPT_FOLDERS for part in folders):
        return True
    if len(parts) <= MAX_BUILD_DEPTH and pure.suffix in SHELL_SUFFIXES:
        return True
    if len(parts) == 2 and parts[0] in TEST_FOLDERS:  # the sheet reads one test's name there
        return any(fnmatch.fnmatch(pure.name, p) for p in TEST_PATTERNS)
    return is_doc_for_contributors(pure)


def select(tree: list[Entry]) -> list[Entry]:
    """The wanted blobs and symlinks of at most ``MAX_BYTES``, a script folder's first
    ``MAX_SCRIPT_FILES`` files only (a ``tools/`` can be a whole program)."""
    chosen: list[Entry] = []
    per_folder: dict[str, int] = {}
    for entry in tree:
        if entry.kind != "blob" or entry.size > MAX_BYTES:
            continue
        executable = entry.mode == "100755" and entry.path.count("/") < MAX_BUILD_DEPTH
        if not (is_wanted(entry.path) or (executable and not _skipped(entry.path))):
            continue
        top = entry.path.split("/", 1)[0]
        per_folder[top] = per_folder.get(top, 0) + 1
        if per_folder[top] <= MAX_SCRIPT_FILES:
            chosen.append(entry)
    return chosen


def write_repository(git_dir: Path, labels_file: Path, out: Path) -> int:
    """``out`` rebuilt from scratch for one labelled repository; the files written."""
    labels = json.loads(labels_file.read_text(encoding="utf-8"))
    tree = entries(git_dir, labels["commit"])
    if out.exists():
        shutil.rmtree(out)
    files = out / "files"
    files.mkdir(parents=True)
    (out / "tree.txt").write_text("".join(e.path + "\n" for e in tree), encoding="utf-8")
    shutil.copyfile(labels_file, out / "labels.json")
    for entry in tree:
        if entry.kind == "commit":  # a submodule: a folder, empty until it is initialized
            (files / entry.path).mkdir(parents=True, exist_ok=True)
    chosen = select(tree)
    for entry in chosen:
        target = files / entry.path
        target.parent.mkdir(parents=True, exist_ok=True)
        data = git(git_dir, "cat-file", "blob", entry.sha)
        if entry.mode == "120000":
            target.symlink_to(data.decode("utf-8", errors="surrogateescape"))
        else:
            target.write_bytes(data)
    return len(chosen)


def mirror_of(mirrors: Path, slug: str) -> Path | None:
    """The bare git directory of ``OWNER__NAME`` under ``mirrors``, if there is one."""
    owner, _, name = slug.partition("__")
    for candidate in (
        mirrors / f"{owner}+{name}" / "repo",
        mirrors / f"{owner}+{name}",
        mirrors / slug,
    ):
        if (candidate / "HEAD").is_file():
            return candidate
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("labels", type=Path, help="a folder of OWNER__NAME.json labels")
    parser.add_argument("out", type=Path, help="the folder to write OWNER__NAME/ into")
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS)
    options = parser.parse_args()
    missing = 0
    for labels_file in sorted(options.labels.glob("*.json")):
        slug = labels_file.stem
        git_dir = mirror_of(options.mirrors, slug)
        if git_dir is None:
            print(f"{slug}: no mirror under {options.mirrors}", file=sys.stderr)
            missing += 1
            continue
        count = write_repository(git_dir, labels_file, options.out / slug)
        print(f"{slug}: {count} files")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
