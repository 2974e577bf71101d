"""The TypeScript file an import names by the file it compiles to: ESM TypeScript imports
``source/utils/merge.ts`` as ``./utils/merge.js`` (``.mjs`` for ``.mts``, ``.cjs`` for
``.cts``, ``.js`` for ``.tsx`` too), so such a specifier names the ``.ts`` file of its stem
when no ``.js`` file is there, and its fix keeps the ``.js`` it was written with (pure).
"""

from __future__ import annotations

SOURCES = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
"""The extension an import writes -> the TypeScript files that compile to it."""


def _written_extension(path: str) -> str | None:
    last = path.rsplit("/", 1)[-1]
    dot = last.rfind(".")
    ext = last[dot:] if dot > 0 else ""
    return ext if ext in SOURCES else None


def sources_of(target: str) -> list[str]:
    """The TypeScript files a path written with a compiled extension may name
    (``utils/merge.js`` -> ``utils/merge.ts``, ``utils/merge.tsx``); none for another."""
    ext = _written_extension(target)
    if ext is None:
        return []
    stem = target[: -len(ext)]
    return [stem + source for source in SOURCES[ext]]


def as_written(path: str, written: str) -> str:
    """``path`` (a TypeScript file) with the extension it compiles to that ``written`` (a
    specifier, ``utils/merge.js``) writes: ``source/utils/merging.ts`` ->
    ``source/utils/merging.js``; ``path`` itself when it is no such source."""
    ext = _written_extension(written)
    if ext is None:
        return path
    for source in SOURCES[ext]:
        if path.endswith(source) and not written.endswith(source):
            return path[: -len(source)] + ext
    return path
