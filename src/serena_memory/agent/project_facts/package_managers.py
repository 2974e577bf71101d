"""JavaScript's package managers (npm, pnpm, Yarn, Bun): their own commands, which a
script of the same name can't be typed as, and how a workspace member's command is
spelt.

Each manager has its own commands: ``pnpm setup`` is pnpm's, so a script named ``setup`` is
``pnpm run setup``, while Yarn has no ``setup`` and runs the script as ``yarn setup``."""

from __future__ import annotations

from collections.abc import Mapping

MANAGERS = frozenset({"npm", "pnpm", "yarn", "bun"})
# the commands each manager has itself (Yarn's classic and modern ones together)
_PNPM = frozenset(
    {"add", "audit", "bin", "cache", "ci", "config", "create", "dedupe", "deploy", "dlx",
     "doctor", "env", "exec", "fetch", "i", "import", "info", "init", "install", "licenses",
     "link", "list", "ls", "outdated", "pack", "patch", "prune", "publish", "rebuild",
     "remove", "root", "run", "setup", "store", "unlink", "up", "update", "upgrade",
     "version", "why", "workspace", "workspaces"}
)  # fmt: skip
_YARN = frozenset(
    {"add", "audit", "autoclean", "bin", "cache", "check", "config", "create", "dedupe",
     "dlx", "exec", "explain", "generate-lock-entry", "global", "help", "import", "info",
     "init", "install", "licenses", "link", "list", "login", "logout", "node", "npm",
     "outdated", "owner", "pack", "patch", "patch-commit", "plugin", "policies", "publish",
     "rebuild", "remove", "run", "search", "set", "stage", "tag", "team", "unlink", "unplug",
     "up", "upgrade", "upgrade-interactive", "version", "versions", "why", "workspace",
     "workspaces"}
)  # fmt: skip
# any manager's: what a script so named is typed with `run` by (npm always takes `run`)
MANAGER_COMMANDS = _PNPM | _YARN
# how a runner is told which workspace member to run in: `pnpm --filter api test`
_MEMBER_OPTIONS = frozenset({"--filter", "-F", "-C", "--dir", "-w", "--workspace",
                             "--prefix", "--cwd"})  # fmt: skip


# how each manager runs a program its packages installed (`npx ava`, `pnpm eslint .`)
_PROGRAM_RUNNERS = {"npm": "npx ", "pnpm": "pnpm ", "yarn": "yarn ", "bun": "bunx "}


def program_prefix(manager: str, program: str, scripts: Mapping[str, object]) -> str:
    """How a dependency's program is typed: pnpm runs one by its bare name when neither a
    command of its own nor a script has that name (``pnpm eslint .``), else it takes
    ``pnpm exec``."""
    if manager == "pnpm" and (program in _PNPM or program in scripts):
        return "pnpm exec "
    return _PROGRAM_RUNNERS.get(manager, "npx ")


def is_own_command(manager: str, name: str) -> bool:
    """Whether ``manager NAME`` runs the manager's own command rather than a script."""
    return name in (_YARN if manager == "yarn" else _PNPM)


def without_run(words: list[str]) -> list[str]:
    """``pnpm run lint`` is ``pnpm lint``; npm keeps ``run`` but for test and start, and
    every manager for a script named like one of its own commands (``pnpm run ci``)."""
    if is_own_command(words[0], words[2]):
        return words
    if words[0] != "npm" or words[2] in ("test", "start"):
        return [words[0], *words[2:]]
    return words


def for_member(words: list[str]) -> list[str]:
    """The command a workspace member runs: ``pnpm --filter api test`` is ``pnpm test``,
    ``yarn workspace api lint`` is ``yarn lint``, ``npm test -w api`` is ``npm test``."""
    if words[:1] not in (["pnpm"], ["yarn"], ["npm"], ["bun"], ["turbo"]):
        return words
    if words[1:2] == ["workspace"] and len(words) > 3:
        return [words[0], *words[3:]]  # `yarn workspace api lint`
    if words[1:3] == ["workspaces", "foreach"]:  # `yarn workspaces foreach -A run test`
        return [words[0], *(w for w in words[3:] if not w.startswith("-"))]
    kept: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in _MEMBER_OPTIONS:
            skip = True
        elif word.split("=", 1)[0] not in _MEMBER_OPTIONS and word not in ("-r", "--recursive"):
            kept.append(word)
    return kept
