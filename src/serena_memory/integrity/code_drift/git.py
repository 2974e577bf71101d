"""git, run for the code checks so that a hostile repository can run nothing and hold
nothing up for long. A command either gives its output or raises :class:`GitUnavailable`
(git missing, no work tree, a refusal, a timeout); :class:`GitJob` runs one in the
background while this process does other work.

Why git never sees the repository's own git directory: git always reads its ``config``,
and every file an ``include`` or ``includeIf`` there names, before any command; no option
or variable turns that off, and ``-c`` only adds settings on top, so it can't take an
include away (a fifo named by one blocks git for ever), nor a filter driver
(``filter.<any name>.clean``/``smudge``/``process``, which ``diff``, ``status`` and
``ls-files -m`` run on any file whose timestamps differ from the index), nor a signature
program (``log.showSignature`` with ``gpg.program``), nor a key a later git adds. So each
command runs with ``GIT_DIR`` set to a temporary git directory written here: a
configuration naming no program at all, a copy of the repository's HEAD, and links to its
objects, refs, index and ``info`` (the excludes), with ``GIT_WORK_TREE`` its work tree and
the system and global configuration turned off. Filters, textconv, external diffs,
fsmonitor, hooks, pagers, signature programs, credential helpers and lazy fetches each
need a configuration key to name their program, and there is none; a submodule is never
entered. The repository is found without running git (the ``.git`` folder or file above
the project, as git's own discovery finds it) and used only when its folders belong to
the person running the check or are in their ``safe.directory``, as git itself requires.

Reading the repository through the libgit2 binding the history uses is no way out: libgit2
follows includes too, and the listing, ``grep`` and rename detection of ``log -M`` would
have to be rebuilt on it.

A command that does not finish within :data:`GIT_TIMEOUT` seconds (a fifo where git
expects a file blocks it) is ended, and for :data:`STALL_SECONDS` git is not asked again
in that work tree (:class:`GitStalled`): the checks go on without it and say so.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import re
import shutil
import stat
import subprocess
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass

from serena_memory.core import paths
from serena_memory.core.errors import MemoryStoreError
from serena_memory.core.process import PROCESS

GIT_TIMEOUT = 5.0
STALL_SECONDS = 60.0
"""After a command ran out of time, how long git is not asked again in that work tree."""

_SMALL_FILE = 64 * 1024  # HEAD, a .git file, commondir
_CONFIG_FILE = paths.MAX_CONFIG_BYTES

_SEALED_CONFIG = """\
[core]
\trepositoryformatversion = {version}
\tbare = false
\tquotePath = false
\tfsmonitor = false
\tuntrackedCache = false
{core}{excludes}[gc]
\tauto = 0
[maintenance]
\tauto = false
[submodule]
\trecurse = false
[diff]
\tignoreSubmodules = all
{extensions}"""
"""The whole configuration git reads: nothing in it names a program."""

_FROM_COMMON = ("objects", "refs", "packed-refs", "info", "shallow", "logs", "reftable")
_CORE_FLAGS = frozenset({"ignorecase", "precomposeunicode", "symlinks", "filemode"})
_EXTENSIONS = {"objectformat": ("sha1", "sha256"), "refstorage": ("files", "reftable")}
_KEPT_VARIABLES = frozenset({"GIT_EXEC_PATH"})  # where git's own programs are installed


class _Kept:
    """What this process knows of the repositories it ran git in."""

    def __init__(self) -> None:
        self.stalled: dict[str, float] = {}  # work tree -> when a command last ran out of time
        self.sealed: dict[Repository, tuple[str, tuple[str, str, tuple[str, ...]] | None]] = {}


def _kept() -> _Kept:
    return PROCESS.owned(_Kept)


_SEALING = threading.Lock()


class GitUnavailable(Exception):
    """git is not installed, the folder is no work tree, or git refused it."""


class GitStalled(GitUnavailable):
    """git did not finish in time in this work tree (now, or a moment ago)."""


@dataclass(frozen=True)
class Repository:
    """Where a work tree's git data lies: ``git_dir`` holds its HEAD and index,
    ``common_dir`` its objects, refs and configuration (the same folder but in a linked
    work tree)."""

    work_tree: str
    git_dir: str
    common_dir: str

    @property
    def index(self) -> str:
        return os.path.join(self.git_dir, "index")

    def head(self) -> str:
        """What HEAD holds (``ref: refs/heads/main`` or a commit id; '' when it can't be
        read or is neither)."""
        try:
            text = _small(os.path.join(self.git_dir, "HEAD")).strip()
        except _NotRepository:
            return ""
        return text if re.fullmatch(r"ref: refs/\S+|[0-9a-f]{40}|[0-9a-f]{64}", text) else ""


class _NotRepository(Exception):
    pass


# -- finding the repository without git ---------------------------------------------------------
def _small(path: str, limit: int = _SMALL_FILE) -> str:
    """The text of a small regular file (never a fifo or device: those are refused)."""
    real = os.path.realpath(path)
    try:
        data = paths.read_regular_file(real, (os.path.dirname(real),), "git's file", limit)
    except (OSError, MemoryStoreError) as exc:
        raise _NotRepository(str(exc)) from None
    return data.decode("utf-8", "replace")


def _is_git_dir(git_dir: str, common: str) -> bool:
    return (
        os.path.isfile(os.path.join(git_dir, "HEAD"))
        and os.path.isdir(os.path.join(common, "objects"))
        and os.path.isdir(os.path.join(common, "refs"))
    )


def _at(folder: str) -> Repository | None:
    """The repository whose ``.git`` is in ``folder`` (None: none is; an unreadable
    ``.git`` file raises, as it stops git's discovery)."""
    dot = os.path.join(folder, ".git")
    try:
        mode = os.stat(dot).st_mode
    except OSError:
        return None
    if stat.S_ISDIR(mode):
        git_dir = dot
    elif stat.S_ISREG(mode):
        text = _small(dot).strip()
        if not text.startswith("gitdir:"):
            raise _NotRepository(f"{dot} is not a git file")
        git_dir = os.path.realpath(os.path.join(folder, text[len("gitdir:") :].strip()))
    else:
        return None
    common = git_dir
    if os.path.isfile(os.path.join(git_dir, "commondir")):
        common = os.path.realpath(os.path.join(git_dir, _small(git_dir + "/commondir").strip()))
    if not _is_git_dir(git_dir, common):
        if git_dir == dot:
            return None  # not a git directory: git looks further up
        raise _NotRepository(f"{git_dir} is not a git directory")
    return Repository(folder, git_dir, common)


def _ceilings() -> set[str]:
    found = os.environ.get("GIT_CEILING_DIRECTORIES", "")
    return {os.path.realpath(c) for c in found.split(os.pathsep) if c}


def locate(root: str) -> Repository | None:
    """The repository whose work tree holds ``root``, found as git finds it: the nearest
    ``.git`` folder or file above, without crossing into another file system or a
    ``GIT_CEILING_DIRECTORIES`` folder (None: there is none, or it is not the person's)."""
    folder = os.path.realpath(root)
    ceilings = _ceilings()
    across = os.environ.get("GIT_DISCOVERY_ACROSS_FILESYSTEM", "").lower() in ("1", "true")
    try:
        device = os.stat(folder).st_dev
        while True:
            found = _at(folder)
            if found is not None:
                return found if _trusted(found) else None
            parent = os.path.dirname(folder)
            if parent == folder or parent in ceilings:
                return None
            if not across and os.stat(parent).st_dev != device:
                return None
            folder = parent
    except (OSError, _NotRepository):
        return None


def _trusted(repo: Repository) -> bool:
    """Whether git would use ``repo``: its work tree and git directory are the person's
    (the person who used sudo, under sudo), or the work tree is in their ``safe.directory``."""
    if not hasattr(os, "geteuid"):
        return True
    uids = {os.geteuid()}
    sudo = os.environ.get("SUDO_UID", "")
    if uids == {0} and sudo.isdigit():
        uids.add(int(sudo))
    try:
        owners = {os.stat(p).st_uid for p in (repo.work_tree, repo.git_dir)}
    except OSError:
        return False
    return owners <= uids or _listed_safe(repo.work_tree)


@functools.lru_cache(maxsize=64)
def _listed_safe(work_tree: str) -> bool:
    """Whether the person's own git configuration (system and global, never a
    repository's: git is run in an empty folder it can't look above) lists ``work_tree``
    under ``safe.directory`` (asked once per process)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    with tempfile.TemporaryDirectory(prefix="serena-git-") as empty:
        env["GIT_CEILING_DIRECTORIES"] = os.path.dirname(empty)
        try:
            done = subprocess.run(
                ["git", "config", "--get-all", "safe.directory"],
                cwd=empty,
                env=env,
                capture_output=True,
                stdin=subprocess.DEVNULL,
                timeout=GIT_TIMEOUT,
            )
        except (OSError, subprocess.TimeoutExpired):
            return False
    listed: list[str] = []
    for value in done.stdout.decode("utf-8", "replace").splitlines():
        listed = [] if not value else [*listed, value]  # an empty value resets the list
    for value in listed:
        if value == "*":
            return True
        base = os.path.realpath(os.path.expanduser(value.removesuffix("/*")))
        if work_tree == base or (value.endswith("/*") and paths.is_inside(work_tree, (base,))):
            return True
    return False


# -- the sealed git directory -------------------------------------------------------------------
def _format(common: str) -> tuple[str, str, str]:
    """(repository format version, the ``[core]`` lines that say how the file system
    behaves, the ``[extensions]`` lines git needs to read the objects and refs) from the
    repository's configuration, read here without includes; only known keys with known
    values are taken."""
    try:
        text = _small(os.path.join(common, "config"), _CONFIG_FILE)
    except _NotRepository:
        return "0", "", ""
    section, version, core, extensions = "", "0", [], []
    for line in text.splitlines():
        head = re.match(r"\s*\[\s*([A-Za-z0-9.-]+)\s*\]", line)
        if head:
            section = head.group(1).lower()
            continue
        item = re.match(r'\s*([A-Za-z][A-Za-z0-9-]*)\s*=\s*"?([A-Za-z0-9]*)"?\s*$', line)
        if not item:
            continue
        key, value = item.group(1).lower(), item.group(2).lower()
        if section == "core" and key == "repositoryformatversion":
            if value not in ("0", "1"):
                raise _NotRepository(f"repository format {value} is not one git reads")
            version = value
        elif section == "core" and key in _CORE_FLAGS and value in ("true", "false"):
            core.append(f"\t{key} = {value}\n")
        elif section == "extensions" and value in _EXTENSIONS.get(key, ()):
            extensions.append(f"\t{key} = {value}\n")
    return version, "".join(core), "[extensions]\n" + "".join(extensions) if extensions else ""


def _person_excludes() -> str:
    """The ``core.excludesFile`` line for the person's own ignore file at git's default
    place ('' when there is none)."""
    config_home = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    found = os.path.join(config_home, "git", "ignore")
    if not os.path.isfile(found) or re.search(r'["\\\n]', found):
        return ""
    return f'\texcludesFile = "{found}"\n'


def _write(folder: str, name: str, text: str) -> None:
    """Replace ``folder/name`` whole (a git running meanwhile reads the old or the new)."""
    part = os.path.join(folder, f".{name}.{os.getpid()}.{threading.get_ident()}")
    with open(part, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(part, os.path.join(folder, name))


def _new_folder(repo: Repository) -> str:
    folder = tempfile.mkdtemp(prefix="serena-git-")
    atexit.register(shutil.rmtree, folder, True)
    for target in [os.path.join(repo.common_dir, n) for n in _FROM_COMMON] + [repo.index]:
        os.symlink(target, os.path.join(folder, os.path.basename(target)))  # may dangle
    return folder


def seal(repo: Repository) -> str:
    """The temporary git directory git is pointed at for ``repo``: one per repository and
    process (made once, removed at exit), its HEAD and configuration rewritten when the
    repository's change."""
    head = repo.head()
    if not head:
        raise _NotRepository("HEAD names no branch or commit")
    version, core, extensions = _format(repo.common_dir)
    config = _SEALED_CONFIG.format(
        version=version, core=core, extensions=extensions, excludes=_person_excludes()
    )
    shared = sorted(n for n in os.listdir(repo.git_dir) if n.startswith("sharedindex."))
    state = (head, config, tuple(shared))  # shared: a split index's other part
    with _SEALING:
        folder, was = _kept().sealed.get(repo, ("", None))
        if not folder or not os.path.isdir(folder):
            folder, was = _new_folder(repo), None
        if state != was:
            _write(folder, "config", config)
            _write(folder, "HEAD", head + "\n")
            for name in shared:
                with contextlib.suppress(FileExistsError):
                    os.symlink(os.path.join(repo.git_dir, name), os.path.join(folder, name))
        _kept().sealed[repo] = (folder, state)
    return folder


def _environment(repo: Repository, sealed: str) -> dict[str, str]:
    """This process's environment without git's variables (a caller's GIT_DIR, GIT_INDEX_FILE,
    GIT_CONFIG_*...), pointing git at the sealed directory, with no configuration of the
    system's or the person's, no prompt, no optional lock (a read never writes the index)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in _KEPT_VARIABLES}
    env.update(
        GIT_DIR=sealed,
        GIT_WORK_TREE=repo.work_tree,
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_ATTR_NOSYSTEM="1",
        GIT_NO_LAZY_FETCH="1",
        GIT_TERMINAL_PROMPT="0",
        GIT_OPTIONAL_LOCKS="0",
        GIT_PAGER="cat",
        HOME=sealed,  # a git too old for GIT_CONFIG_GLOBAL finds no ~/.gitconfig
        XDG_CONFIG_HOME=sealed,
        LC_ALL="C",
    )
    return env


@dataclass
class _Sealed:
    """What one command runs with: the repository, its sealed git directory and the
    environment pointing at it."""

    repo: Repository
    folder: str
    env: dict[str, str]


def _prepare(root: str) -> _Sealed:
    """The sealed git directory for the work tree holding ``root``; GitUnavailable when
    there is none, or when git ran out of time there a moment ago."""
    repo = locate(root)
    if repo is None:
        raise GitUnavailable(f"not a git repository: no work tree of yours holds {root}")
    stalled = _kept().stalled.get(repo.work_tree)
    if stalled is not None and time.monotonic() - stalled < STALL_SECONDS:
        raise GitStalled(f"git did not answer within {int(GIT_TIMEOUT)} seconds a moment ago")
    try:
        folder = seal(repo)
    except (OSError, _NotRepository) as exc:
        raise GitUnavailable(str(exc)) from None
    return _Sealed(repo, folder, _environment(repo, folder))


def seal_before_fork(root: str) -> None:
    """Make the sealed git directory of the work tree holding ``root`` now: a worker
    process forked afterwards shares it (one it made itself would outlive it, as a worker
    ends without running this process's clean-up at exit)."""
    with contextlib.suppress(GitUnavailable):
        _prepare(root)


def stalled(root: str, timeout: float = GIT_TIMEOUT) -> GitStalled:
    """Note that git ran out of time for ``root`` (it is not asked there again for
    :data:`STALL_SECONDS`); the error to raise. A command given less than
    :data:`GIT_TIMEOUT` (a caller's short budget, as a read note's) marks nothing: its
    running out says nothing of git, and the commands after it must still run."""
    if timeout < GIT_TIMEOUT:
        return GitStalled(f"git did not answer within the {timeout:.1f} seconds it was given")
    repo = locate(root)
    if repo is not None:
        _kept().stalled[repo.work_tree] = time.monotonic()
    return GitStalled(f"git did not answer within {int(GIT_TIMEOUT)} seconds")


def run_git(
    root: str, *args: str, timeout: float = GIT_TIMEOUT, data: bytes | None = None
) -> bytes:
    """git's output for ``args`` run in ``root``; GitUnavailable when it fails."""
    sealed = _prepare(root)
    try:
        result = subprocess.run(
            ["git", "--no-pager", *args],
            cwd=root,
            env=sealed.env,
            input=data,
            capture_output=True,
            timeout=timeout,
            stdin=None if data is not None else subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        raise stalled(root, timeout) from None
    except (FileNotFoundError, OSError) as exc:
        raise GitUnavailable(str(exc)) from None
    if result.returncode != 0:
        raise GitUnavailable(result.stderr.decode("utf-8", "replace").strip())
    return result.stdout


def _end(proc: subprocess.Popen[bytes], owner: int) -> None:
    """Kill and collect a git nobody waits for any more (it may wait for ever on a FIFO);
    only in the process that started it (a forked worker's copy of the job is not its
    owner)."""
    if os.getpid() == owner and proc.poll() is None:
        with contextlib.suppress(OSError):
            proc.kill()
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            proc.wait(timeout=5)


class GitJob:
    """A git command started now whose output is read later (:meth:`result`): it runs
    while this process reads the memories. Its output goes to an unnamed temporary file,
    not a pipe, so git never waits for a reader, and no thread is needed, so the process
    may still fork workers while it runs.

    A job whose :meth:`result` or :meth:`discard` is never reached (its caller went
    another way: an error, a cancelled request) still ends its git: when the job is
    collected, or at the latest when this process exits."""

    def __init__(self, root: str, *args: str, timeout: float = GIT_TIMEOUT) -> None:
        self._root = root
        self._timeout = timeout
        self._started = time.monotonic()
        self._done: bytes | GitUnavailable | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._ender: weakref.finalize | None = None
        self._out = tempfile.TemporaryFile()  # noqa: SIM115 - closed in _finish
        self._err = tempfile.TemporaryFile()  # noqa: SIM115 - closed in _finish
        try:
            sealed = _prepare(root)
        except GitUnavailable as exc:
            self._finish(exc)
            return
        try:
            self._proc = subprocess.Popen(
                ["git", "--no-pager", *args],
                cwd=root,
                env=sealed.env,
                stdin=subprocess.DEVNULL,
                stdout=self._out,
                stderr=self._err,
            )
        except (FileNotFoundError, OSError) as exc:
            self._finish(GitUnavailable(str(exc)))
            return
        self._ender = weakref.finalize(self, _end, self._proc, os.getpid())

    def _finish(self, done: bytes | GitUnavailable) -> None:
        if self._ender is not None:
            self._ender.detach()  # git was waited for (or ended) here
        self._done = done
        self._out.close()
        self._err.close()

    def result(self) -> bytes:
        """git's output; GitUnavailable when it failed or did not finish in time."""
        if self._done is None:
            assert self._proc is not None
            left = max(0.0, self._timeout - (time.monotonic() - self._started))
            try:
                status = self._proc.wait(timeout=left)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
                self._finish(stalled(self._root, self._timeout))
            else:
                self._out.seek(0)
                self._err.seek(0)
                if status != 0:
                    message = self._err.read().decode("utf-8", "replace").strip()
                    self._finish(GitUnavailable(message))
                else:
                    self._finish(self._out.read())
        if isinstance(self._done, GitUnavailable):
            raise self._done
        assert self._done is not None
        return self._done

    def discard(self) -> None:
        """Stop waiting for the output: git is ended if it still runs."""
        if self._done is None and self._proc is not None:
            if self._proc.poll() is None:
                self._proc.kill()
            self._proc.wait()
            self._finish(b"")
