"""The forms a file is named in besides its path, and how a fix keeps them: a Python
module in dotted form (``tests.types``, ``tests.types.TestClientFactory``), relative
(``..utils``), in an import (``from tests.types import X``) or imported by name from its
package (``from . import formatting``), and a path relative to the file that imports it
(``./testHelpers.js``, ``../lib/x.js``, ``./helpers`` without its extension). Such a name
is checked like the file it names: from the folders of the files its memory names, when
one of them places it (:func:`written_from`), else as any file of that name; when git saw
the file move, its fix is written in the same form: a relative import stays relative
(pure).
"""

from __future__ import annotations

import posixpath
import re

from serena_memory.integrity.code_drift.emitted import as_written, sources_of

MODULE = "module"
"""A Python module in dotted form; the mention's target is its parts ``/``-joined."""
RELATIVE = "relative"
"""A path written from a folder with ``./``: resolved from the root, else as a suffix."""
UP = "up"
"""A path written with ``../`` from the file that imports it: checked only when git
knew a file it names (else it may be another project's)."""

MEMBER = "member"
"""A module imported by name from its own package (``from . import formatting``): the
mention is the name, its target the name's file in that package."""

ALIAS = "alias"
"""A path through an alias the project's build defines (``@/pages/home`` with ``"@/*":
["./src/*"]`` in tsconfig.json): checked only when the alias is the project's."""

STEM = "stem"
"""A bare name a folder's listing places in it (``smtop`` under ``src/bin/``, a
component's name in a tree): a file of that stem there; told only when git knew one."""
GLOB = "glob"
"""A glob, ``.githooks/**``: the folder it starts from, found while a file below it ends
like the glob (:mod:`~serena_memory.integrity.code_drift.patterns`)."""

PYTHON_FILES = (".py", ".pyi", "/__init__.py", "/__init__.pyi", "/")
"""What a module's parts may name: a Python file or package, or a folder (a package of
Java or Kotlin: ``com.acme.repo`` is ``com/acme/repo/``)."""
CLASS_FILES = (".java", ".kt", ".scala", ".groovy")
"""What a class after a package's parts names (``com.acme.repo.UserRepo``)."""
SCRIPT_EXTENSIONS = (".js", ".ts", ".mjs", ".cjs", ".jsx", ".tsx", "/index.js", "/index.ts")
"""What an import without an extension (``./helpers``) may name."""

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
DOTTED_MODULE = re.compile(rf"^(\.*)({_IDENT}(?:\.{_IDENT})*)$")
"""A module as written: leading dots (relative) and its dotted parts."""
PROSE_MODULE = re.compile(
    rf"(?<![\w.])(?:from|import|imported\s+from|module|package)\s+"
    rf"(\.+{_IDENT}(?:\.{_IDENT})*|{_IDENT}(?:\.{_IDENT})+)(?![\w(])",
    re.IGNORECASE,
)
"""A module named in prose after the word that says so: ``imported from tests.types``."""


def module_target(written: str) -> str | None:
    """The ``/``-joined parts of the module a dotted name starts with: its first parts
    in lowercase, as modules are named (``tests.types.TestClientFactory`` ->
    ``tests/types``); None when it names none (one part without a leading dot, ``os``,
    is too often a word or a library)."""
    found = DOTTED_MODULE.match(written.strip())
    if found is None:
        return None
    dots, body = found.groups()
    parts = []
    for part in body.split("."):
        if part != part.lower():
            break
        parts.append(part)
    if len(parts) < (1 if dots else 2):
        return None
    return "/".join(parts)


def module_candidates(
    target: str, relative: bool, written: str = ""
) -> list[tuple[str, list[str]]]:
    """(prefix, files) for each prefix of a module's parts, longest first: the files
    that would hold it (``tests/types`` -> ``tests/types.py``, ``tests/types/__init__.py``,
    ...), and first the file of the class ``written`` names after them
    (``com.acme.repo.UserRepo`` -> ``com/acme/repo/UserRepo.kt``, ...). An absolute
    module is at least two parts long."""
    parts = target.split("/")
    shortest = 1 if relative else 2
    found = [
        ("/".join(parts[:n]), ["/".join(parts[:n]) + ext for ext in PYTHON_FILES])
        for n in range(len(parts), shortest - 1, -1)
    ]
    after = written.lstrip(".").split(".")[len(parts) : len(parts) + 1]
    if after and after[0][:1].isupper() and not relative:
        found.insert(0, (target, [f"{target}/{after[0]}{ext}" for ext in CLASS_FILES]))
    return found


def script_candidates(target: str) -> list[str]:
    """The files a relative import may name (itself first): with no extension, a script
    of any kind; with one a TypeScript file compiles to, that file (``./merge.js`` ->
    ``merge.ts``: :mod:`~serena_memory.integrity.code_drift.emitted`)."""
    last = target.rsplit("/", 1)[-1]
    if "." in last.lstrip(".") or target.endswith("/"):
        return [target, *sources_of(target)]
    return [target] + [target + ext for ext in SCRIPT_EXTENSIONS]


def _module_path(path: str) -> str:
    """A Python file's module, ``/``-joined (``pkg/a/__init__.py`` -> ``pkg/a``)."""
    for ext in ("/__init__.py", "/__init__.pyi", ".py", ".pyi"):
        if path.endswith(ext):
            return path[: -len(ext)]
    return path.rstrip("/")


def rewritten(written: str, form: str, prefix: str, old: str, new: str) -> str | None:
    """``written`` (a mention of form ``form``, ``prefix``: the ``/``-joined module
    parts or the path it names from its folder) pointed at ``new``, git's path now of the
    file it named at ``old``, in the form it was written in (None: it can't be)."""
    if form == MODULE:
        return _module_rewritten(written, prefix, old, new)
    if form == MEMBER:
        return _member_rewritten(old, new)
    return _path_rewritten(written, prefix, old, new)


def _member_rewritten(old: str, new: str) -> str | None:
    """The name a module imported from its package (``from . import formatting``) has
    now, when it stayed a Python module of that package (else it can't be written so)."""
    old_module, new_module = _module_path(old), _module_path(new)
    same = posixpath.dirname(old_module) == posixpath.dirname(new_module)
    return posixpath.basename(new_module) if same and new.endswith((".py", ".pyi")) else None


def climbs(written: str, form: str) -> int | None:
    """How many folders up from the file it is written in a relative name starts
    (``./x`` and ``from . import x``: 0; ``../x`` and ``..utils``: 1); None for a name
    not written from a file."""
    if form in (RELATIVE, MEMBER):
        return 0
    if form == UP:
        ups = 0
        while written.startswith("../", ups * 3):
            ups += 1
        return ups
    if form == MODULE and written.startswith("."):
        return len(written) - len(written.lstrip(".")) - 1
    return None


def written_from(base: str, ups: int, file: str) -> str | None:
    """``file`` (a path as a relative name gives it, from its folder) from the file in
    the folder ``base`` that writes it, ``ups`` folders up first (None: above the root)."""
    parts = [p for p in base.split("/") if p]
    if ups > len(parts):
        return None
    return "/".join([*parts[: len(parts) - ups], file])


def _module_rewritten(written: str, prefix: str, old: str, new: str) -> str | None:
    dotted = prefix.replace("/", ".")
    at = written.find(dotted)
    old_module, new_module = _module_path(old), _module_path(new)
    if at < 0 or not old_module.endswith(prefix) or not new.endswith((".py", ".pyi")):
        return None
    base = old_module[: len(old_module) - len(prefix)]
    dots = len(written[:at]) - len(written[:at].rstrip("."))
    if dots:
        rel = posixpath.relpath(new_module, base.rstrip("/") or ".")
        ups = 0
        while rel.startswith("../"):
            rel, ups = rel[3:], ups + 1
        name = "." * ups + rel.replace("/", ".")
        return written[: at - dots] + "." * dots + name + written[at + len(dotted) :]
    base = _import_root(base, prefix, new_module)
    if not new_module.startswith(base):
        return None  # out of the folder it was imported from (`src/`): no dotted form
    name = new_module[len(base) :].replace("/", ".")
    return written[:at] + name + written[at + len(dotted) :]


def _import_root(base: str, prefix: str, new_module: str) -> str:
    """The folder a module is imported from (``src/`` in a src layout): ``base``, the
    folders before the old path's module; when git's old path was matched by its end only
    (no folder before it), the folders before the module's first part in its new path
    (``humanize.filesize`` moved to ``src/humanize/sizes.py`` stays ``humanize.sizes``)."""
    if base:
        return base
    first = prefix.split("/", 1)[0] + "/"
    at = new_module.find("/" + first)
    return new_module[: at + 1] if at >= 0 and not new_module.startswith(first) else base


def _path_rewritten(written: str, prefix: str, old: str, new: str) -> str | None:
    old, new = as_written(old, prefix), as_written(new, prefix)  # `merge.ts` as `merge.js`
    at = written.find(prefix)
    if at < 0:
        return None
    named = old if old.endswith(prefix) else _named(old, prefix)
    if named is None:
        return None
    base = named[: len(named) - len(prefix)].rstrip("/") or "."
    rel = posixpath.relpath(new.rstrip("/"), base) + ("/" if new.endswith("/") else "")
    if "." not in prefix.rsplit("/", 1)[-1]:  # written without its extension: kept so
        for ext in SCRIPT_EXTENSIONS:
            if rel.endswith(ext) and old != named:
                rel = rel[: -len(ext)]
                break
    head = written[:at]
    if rel.startswith("../") and head.endswith("./") and not head.endswith("../"):
        head = head[:-2]
    return head + rel + written[at + len(prefix) :]


def _named(old: str, prefix: str) -> str | None:
    """``old`` as the path ``prefix`` named, its added extension cut off."""
    for ext in SCRIPT_EXTENSIONS:
        if old.endswith(prefix + ext):
            return old[: -len(ext)]
    return None


def replace_path(
    text: str, line: int, written: str, old: str, new: str, rewritten: str | None = None
) -> tuple[str, int]:
    """``text`` with the mention ``written`` (a path whose target is ``old``) on ``line``
    pointed at ``new``, keeping its ``./``, trailing ``/`` and line or anchor (or made
    ``rewritten``: a module or relative path in its own form); with the number of places
    changed (0: the line no longer has it)."""
    lines = text.split("\n")
    if not 0 < line <= len(lines):
        return text, 0
    stripped_old = old.rstrip("/")
    index = written.find(stripped_old)
    if rewritten is not None:
        updated = rewritten
    elif index < 0:
        return text, 0
    else:
        updated = written[:index] + new.rstrip("/") + written[index + len(stripped_old) :]
    pattern = re.compile(rf"(?<![\w./-]){re.escape(written)}(?![\w/-])")
    new_line, count = pattern.subn(lambda _m: updated, lines[line - 1])
    lines[line - 1] = new_line
    return "\n".join(lines), count


def within_same_folder(text: str, target: str, old: str, new: str) -> str | None:
    """The mention rewritten the way it was written when it left out the folders its file
    sits in (`utils/merge.ts` in a list of `source/`'s files): the new path without the
    same folders, when it is still inside them (None: the whole new path is written)."""
    written, full = target.rstrip("/"), old.rstrip("/")
    if "/" not in written or full == written or not full.endswith("/" + written):
        return None
    left_out = full[: -len(written)]
    if not new.startswith(left_out) or written not in text:
        return None
    return text.replace(written, new[len(left_out) :].rstrip("/"), 1)
