"""A conformance check of an Open Knowledge Format (OKF v0.2) bundle, written from the
specification (GoogleCloudPlatform/knowledge-catalog, okf/SPEC.md, §3, §4, §5, §7, §8,
§9, §11), independent of the exporter it checks:

- every ``.md`` file but ``index.md`` and ``log.md`` is a concept: a YAML front matter
  block (a mapping) with a non-empty ``type`` (§4.1, §11);
- ``generated.by`` and every ``verified[].by`` is an actor (``<producer>/<version>``,
  ``human:<id>``, ``process:<id>``), each ``at`` an ISO 8601 time (§5.2, §7);
- ``index.md`` has no front matter (the root's may hold ``okf_version`` only) and its
  body is headed sections of list entries ``[Title](url)`` with an optional ``- text``
  (§8);
- ``log.md`` has ``YYYY-MM-DD`` date headings, newest first, each over list entries (§9);
- with ``links``: every link to a path (``/x.md`` from the root, or relative) leads to a
  file or folder of the bundle (the spec tolerates broken links; our exports have none).

Run it on a folder: ``python tests/helpers/okf_conformance.py BUNDLE [--links]`` prints
the problems and exits 1 when there is any.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
import sys
from pathlib import Path
from typing import Any

import yaml

RESERVED = ("index.md", "log.md")
_LINK = re.compile(r"(?<!!)\[([^\]\n]*)\]\(<?([^)\s>]+)>?\)")
_ENTRY = re.compile(r"^[*-] \[[^\]\n]+\]\([^)\s]+\)( - .+)?$")
_ACTOR = re.compile(r"^(human:\S+|process:\S+|[^\s:/]+/\S+)$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def front_matter(text: str) -> tuple[Any, str] | None:
    """(the parsed block, the body); None when the file opens with no closed block."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n") != "---":
        return None
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r\n") == "---":
            try:
                return yaml.safe_load("".join(lines[1:i])), "".join(lines[i + 1 :])
            except yaml.YAMLError:
                return "unparseable", ""
    return None


def _iso_time(value: object) -> bool:
    if isinstance(value, dt.datetime | dt.date):
        return True
    try:
        dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _check_trust(rel: str, keys: dict[str, Any]) -> list[str]:
    problems = []
    generated = keys.get("generated")
    if generated is not None:
        by = generated.get("by") if isinstance(generated, dict) else None
        if not isinstance(by, str) or not _ACTOR.match(by):
            problems.append(f"{rel}: generated.by {by!r} is no actor")
        if isinstance(generated, dict) and "at" in generated and not _iso_time(generated["at"]):
            problems.append(f"{rel}: generated.at is no ISO 8601 time")
    verified = keys.get("verified")
    if verified is not None:
        for item in [verified] if isinstance(verified, dict) else verified:
            by = item.get("by") if isinstance(item, dict) else None
            if not isinstance(by, str) or not _ACTOR.match(by) or not _iso_time(item.get("at")):
                problems.append(f"{rel}: verified entry {item!r} needs an actor and a time")
    return problems


def check_concept(rel: str, text: str) -> list[str]:
    found = front_matter(text)
    if found is None:
        return [f"{rel}: no front matter block"]
    keys, _ = found
    if not isinstance(keys, dict):
        return [f"{rel}: the front matter is no YAML mapping"]
    if not str(keys.get("type") or "").strip():
        return [f"{rel}: no type"]
    return _check_trust(rel, keys)


def check_index(rel: str, text: str) -> list[str]:
    problems = []
    found = front_matter(text)
    body = text
    if found is not None:
        keys, body = found
        if rel != "index.md" or not isinstance(keys, dict) or set(keys) - {"okf_version"}:
            problems.append(f"{rel}: front matter in an index (only the root's okf_version)")
    heading = False
    for line in body.splitlines():
        if not line.strip():
            continue
        if line.startswith("#"):
            heading = True
        elif not heading or not _ENTRY.match(line):
            problems.append(f"{rel}: {line[:60]!r} is neither a heading nor an entry")
    return problems


def check_log(rel: str, text: str) -> list[str]:
    problems = []
    found = front_matter(text)
    body = found[1] if found is not None else text
    dates: list[str] = []
    for line in body.splitlines():
        if line.startswith("## "):
            day = line[3:].strip()
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", day):
                problems.append(f"{rel}: the heading {day!r} is no YYYY-MM-DD date")
            dates.append(day)
        elif line.startswith(("* ", "- ")) and not dates:
            problems.append(f"{rel}: an entry before any date heading")
    if dates != sorted(dates, reverse=True):
        problems.append(f"{rel}: date headings are not newest first")
    return problems


def _links(rel: str, text: str, root: Path) -> list[tuple[str, str]]:
    """The links of a file to paths that lead to nothing in the bundle: (label, target)."""
    broken = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        if fenced:
            continue
        plain = re.sub(r"`[^`]*`", "", line)
        for label, target in _LINK.findall(plain):
            path = target.split("#", 1)[0]
            if not path or re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", path):
                continue
            base = "" if path.startswith("/") else posixpath.dirname(rel)
            joined = posixpath.normpath(posixpath.join(base, path.lstrip("/")))
            if joined.startswith("..") or not (root / joined).exists():
                broken.append((label, target))
    return broken


def broken_links(root: Path) -> tuple[list[str], list[str]]:
    """Links to paths that lead to nothing in the bundle: (those an export of ours wrote,
    ``[mem:NAME](...)`` and the index and log entries; those written in the memories'
    own text, which may name files of the repository the bundle does not hold)."""
    ours, theirs = [], []
    for path in sorted(root.rglob("*.md")):
        rel = path.relative_to(root).as_posix()
        for label, target in _links(rel, path.read_text(encoding="utf-8"), root):
            told = f"{rel}: the link {target!r} leads to nothing in the bundle"
            reserved = path.name in RESERVED
            (ours if reserved or label.startswith("mem:") else theirs).append(told)
    return ours, theirs


def check_bundle(root: Path, *, links: bool = True) -> tuple[int, list[str]]:
    """(the number of concepts, the problems found: none when the bundle conforms)."""
    concepts, problems = 0, []
    for path in sorted(root.rglob("*.md")):
        rel = path.relative_to(root).as_posix()
        if any(part.startswith(".") for part in rel.split("/")):
            continue
        text = path.read_text(encoding="utf-8")
        if path.name == "index.md":
            problems += check_index(rel, text)
        elif path.name == "log.md":
            problems += check_log(rel, text)
        else:
            concepts += 1
            problems += check_concept(rel, text)
        if links:
            problems += [
                f"{rel}: the link {t!r} leads to nothing in the bundle"
                for _, t in _links(rel, text, root)
            ]
    return concepts, problems


if __name__ == "__main__":
    count, found = check_bundle(Path(sys.argv[1]), links="--links" in sys.argv)
    for problem in found:
        print(problem)
    print(f"{count} concepts; {'conformant' if not found else f'{len(found)} problems'}")
    sys.exit(1 if found else 0)
