"""What a project's ``package.json`` says about the package-manager lines of its docs.

A project that declares its package manager (``"packageManager": "pnpm@9"``) is worked on
with that one: a guide's ``npm install`` and ``npm run dev`` are then another project's
steps (a docs site cloned beside it) or a user's, never this one's set-up. And a root
script that only forwards to a workspace member (``"react": "npm run --workspace=pkg"``) is
a prefix: ``npm run react test`` runs the member's ``test``, so it is read as a test.
"""

from __future__ import annotations

import json

from serena_memory.agent.project_facts.files import Project

MANAGERS = ("npm", "pnpm", "yarn", "bun")
# how a runner is told which workspace member to run in, with the value that follows
_MEMBER_OPTIONS = frozenset({"--workspace", "-w", "--filter", "-F", "--dir", "-C", "--prefix",
                             "--cwd"})  # fmt: skip


class PackageScripts:
    """The root ``package.json``'s declared manager and its forwarding scripts."""

    def __init__(self, project: Project) -> None:
        data = _root_package(project)
        declared = data.get("packageManager")
        name = declared.split("@", 1)[0].strip() if isinstance(declared, str) else ""
        self.declared = name if name in MANAGERS else ""
        scripts = data.get("scripts")
        items = [
            (name, body)
            for name, body in (scripts.items() if isinstance(scripts, dict) else ())
            if isinstance(name, str) and isinstance(body, str)
        ]
        self.names = frozenset(name for name, _ in items)
        self.bodies = frozenset(" ".join(body.split()) for _, body in items)
        self.forwarding = frozenset(name for name, body in items if _forwards(body))

    def runs_script(self, line: str) -> bool:
        """A call of one of the scripts as it stands: ``npm run lint``, ``pnpm lint``,
        ``npm test``, ``nr lint`` (antfu's ni)."""
        words = line.split()
        if words[:2] in (["npm", "run"], ["pnpm", "run"], ["yarn", "run"], ["bun", "run"]):
            words = [words[0], *words[2:]]
        return len(words) == 2 and words[0] in (*MANAGERS, "nr") and words[1] in self.names

    def another_managers(self, line: str) -> bool:
        """A line of a package manager other than the declared one, run at the root (a
        member's ``npm -C packages/ui run dev`` is that member's own)."""
        words = line.split()
        return (
            bool(self.declared)
            and words[0] in MANAGERS
            and words[0] != self.declared
            and not any(_member_option(word) for word in words)
        )

    def forwarded(self, line: str) -> str | None:
        """``npm run react test`` as the command it forwards to (``npm run test``), or
        None for a line that goes through no forwarding script."""
        words = line.split()
        if len(words) < 3 or words[0] not in MANAGERS:
            return None
        at = 2 if words[1] == "run" else 1
        if len(words) <= at + 1 or words[at] not in self.forwarding:
            return None
        return " ".join([words[0], "run", *words[at + 1 :]])


def _member_option(word: str) -> bool:
    return word in _MEMBER_OPTIONS or word.split("=", 1)[0] in _MEMBER_OPTIONS


def _forwards(body: str) -> bool:
    """A script that is a manager told a workspace member and nothing else to run
    (``npm run --workspace=pkg``, ``pnpm --filter pkg``, ``yarn workspace pkg``): the
    script it runs is the word typed after its name."""
    words = body.split()
    if not words or words[0] not in MANAGERS:
        return False
    if words[1:2] == ["workspace"]:
        return len(words) == 3
    rest: list[str] = []
    member = skip = False
    for word in words[1:]:
        if skip:
            skip = False
        elif _member_option(word):
            member = True
            skip = "=" not in word
        else:
            rest.append(word)
    return member and rest in ([], ["run"])


def _root_package(project: Project) -> dict:
    text = project.text("package.json")
    try:
        data = json.loads(text) if text is not None else None
    except (ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}
