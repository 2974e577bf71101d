"""How much of what contributors run the onboarding fact sheet offers, on real repositories
labeled by someone who never saw this project's code (``../shared/realworld/
command-facts.tar.gz``, or a folder in the same format).

Each repository comes as ``files/`` (its docs, task runners, CI and package files),
``tree.txt`` (every tracked path) and ``labels.json`` (per kind, the commands contributors
run, each with its acceptable spellings; ``not_dev``: release, publish and CI plumbing).
The tree is rebuilt in a temporary folder: empty files for the paths not in ``files/``, and
a file whose content starts with ``#!`` made executable.

The counting rule is the data set's: a labeled command is offered when one of its spellings
appears as a code span of the sheet's Markdown, whitespace and case folded, ``bash
scripts/x``, ``./scripts/x`` and ``scripts/x`` being one; a placeholder of a label
(``pytest <test_file>``) stands for any one argument that is not an option. Printed per
repository and overall: recall of every labeled command (goal >= 0.75), of the test,
lint, format and type check ones (goal >= 0.85), the ``not_dev`` commands offered (goal:
at most one per four repositories) and the sheet's length in characters.

``--baseline REF`` scores the detection of commit REF of this repository too, in the same
run on the same trees (see ``facts_quality.baseline_detector``).

Usage: python benchmarks/facts_realworld.py [SOURCE] [--baseline REF] [--verbose]
       SOURCE: the tarball or an extracted folder (default ../shared/realworld/...)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tarfile
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SOURCE = REPO_ROOT.parent / "shared" / "realworld" / "command-facts.tar.gz"
CORE_KINDS = ("test", "lint", "format", "typecheck")
_CODE_SPAN = re.compile(r"`([^`\n]+)`")


# -- the data set ----------------------------------------------------------------------------
def extract(source: Path, into: Path) -> Path:
    """The folder holding the repositories' folders (the tarball extracted into ``into``)."""
    if source.is_dir():
        return source
    with tarfile.open(source) as tar:
        tar.extractall(into, filter="data")
    return into


def labeled_folders(top: Path) -> Iterator[Path]:
    """Every folder under ``top`` holding a ``labels.json`` and a ``tree.txt``, sorted."""
    for labels in sorted(top.rglob("labels.json")):
        if (labels.parent / "tree.txt").is_file():
            yield labels.parent


def build_tree(folder: Path, root: Path) -> Path:
    """The repository as it was: ``files/`` copied (symlinks kept), every other path of
    ``tree.txt`` an empty file, files starting with ``#!`` executable."""
    files = folder / "files"
    if files.is_dir():
        shutil.copytree(files, root, symlinks=True)
    root.mkdir(parents=True, exist_ok=True)
    for line in (folder / "tree.txt").read_text(encoding="utf-8").splitlines():
        rel = line.strip()
        if not rel or rel.startswith("/") or ".." in Path(rel).parts:
            continue
        path = root / rel
        if path.is_symlink() or path.exists():
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            with path.open("rb") as handle:
                if handle.read(2) == b"#!":
                    path.chmod(path.stat().st_mode | 0o111)
    return root


# -- the counting rule -----------------------------------------------------------------------
def fold(command: str) -> str:
    """One spelling: whitespace and case folded, ``bash scripts/x`` and ``./scripts/x`` are
    ``scripts/x``."""
    words = command.lower().split()
    if len(words) > 1 and words[0] in ("bash", "sh"):
        words = words[1:]
    if words and words[0].startswith("./"):
        words[0] = words[0][2:]
    return " ".join(words)


def code_spans(markdown: str) -> set[str]:
    return {fold(span) for span in _CODE_SPAN.findall(markdown)}


_PLACEHOLDER = re.compile(r"<[a-z0-9_ .-]+>")


def offered(spelling: str, spans: set[str]) -> bool:
    """Whether ``spelling`` is one of ``spans``; a placeholder in it (``pytest <test_file>``,
    ``tox -e py<version>``) stands for any one argument that is not an option, so the
    single-test form the sheet gives with a real file counts."""
    folded = fold(spelling)
    if _PLACEHOLDER.search(folded) is None:
        return folded in spans
    parts = _PLACEHOLDER.split(folded)
    pattern = re.compile(r"[^\s-]\S*".join(re.escape(part) for part in parts))
    return any(pattern.fullmatch(span) for span in spans)


def score(labels: dict[str, Any], markdown: str) -> dict[str, Any]:
    spans = code_spans(markdown)
    result: dict[str, Any] = {"all": [0, 0], "core": [0, 0], "missed": [], "not_dev": []}
    for kind, items in labels.get("commands", {}).items():
        for spellings in items:
            hit = any(offered(s, spans) for s in spellings)
            for key in ("all", "core") if kind in CORE_KINDS else ("all",):
                result[key][0] += hit
                result[key][1] += 1
            if not hit:
                result["missed"].append(f"{kind}: {spellings[0]}")
    result["not_dev"] = [c for c in labels.get("not_dev", []) if fold(c) in spans]
    result["chars"] = len(markdown)
    return result


# -- the run ---------------------------------------------------------------------------------
Detector = Callable[[Path], Any]


def evaluate(detect: Detector, repos: list[tuple[str, dict, Path]]) -> dict[str, Any]:
    per_repo: dict[str, Any] = {}
    totals: dict[str, Any] = {"all": [0, 0], "core": [0, 0], "not_dev": 0, "chars": 0}
    for name, labels, root in repos:
        markdown = detect(root).to_markdown()
        result = score(labels, markdown)
        result["sheet"] = markdown
        per_repo[name] = result
        for key in ("all", "core"):
            totals[key][0] += result[key][0]
            totals[key][1] += result[key][1]
        totals["not_dev"] += len(result["not_dev"])
        totals["chars"] += result["chars"]
    totals["repos"] = len(repos)
    return {"totals": totals, "per_repo": per_repo}


def load(source: Path, work: Path) -> list[tuple[str, dict, Path]]:
    """(name, labels, rebuilt tree) of every labeled repository of ``source``."""
    top = extract(source, work / "data")
    repos = []
    for folder in labeled_folders(top):
        labels = json.loads((folder / "labels.json").read_text(encoding="utf-8"))
        name = labels.get("repo") or folder.name
        repos.append((name, labels, build_tree(folder, work / "trees" / folder.name)))
    return repos


def current_detector() -> Detector:
    from serena_memory.agent.project_facts import detect_facts

    return detect_facts


def _share(pair: list[int]) -> str:
    return f"{pair[0] / max(pair[1], 1):.2f} ({pair[0]}/{pair[1]})"


def print_report(results: dict[str, dict[str, Any]], verbose: bool) -> None:
    names = list(results)
    repos = list(results[names[0]]["per_repo"])
    print(f"{'repository':28}" + "".join(f"  {n[:38]:>38}" for n in names))
    print(f"{'':28}" + "  all / core / not_dev / chars".rjust(40) * len(names))
    for repo in repos:
        cells = []
        for name in names:
            r = results[name]["per_repo"][repo]
            cells.append(
                f"{r['all'][0]}/{r['all'][1]}  {r['core'][0]}/{r['core'][1]}  "
                f"{len(r['not_dev'])}  {r['chars']}"
            )
        print(f"{repo[:28]:28}" + "".join(f"  {c:>38}" for c in cells))
    print()
    for name in names:
        t = results[name]["totals"]
        n = max(t["repos"], 1)
        print(f"== {name}: {t['repos']} repositories")
        print(f"  recall, all labeled commands (goal >= 0.75):      {_share(t['all'])}")
        print(f"  recall, test/lint/format/typecheck (goal >= 0.85): {_share(t['core'])}")
        print(f"  not_dev offered (goal <= 1 per 4 repositories):    {t['not_dev']} "
              f"({t['not_dev'] / n * 4:.2f} per 4)")  # fmt: skip
        print(f"  sheet characters per repository:                   {t['chars'] / n:.0f}")
    if verbose:
        for name in names:
            print(f"\n==== {name}")
            for repo, r in results[name]["per_repo"].items():
                print(f"\n-- {repo}")
                for miss in r["missed"]:
                    print(f"   missed  {miss}")
                for bad in r["not_dev"]:
                    print(f"   not_dev {bad}")
                if os.environ.get("FACTS_SHOW_SHEET"):
                    print(r["sheet"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source", nargs="?", default=DEFAULT_SOURCE, type=Path)
    parser.add_argument("--baseline", metavar="REF", help="also score the detection at REF")
    parser.add_argument("--verbose", action="store_true", help="list misses and not_dev")
    options = parser.parse_args()
    if not options.source.exists():
        sys.exit(f"{options.source} is missing; pass the tarball or folder of labeled repos.")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        repos = load(options.source, work)
        results = {}
        if options.baseline:
            sys.path.insert(0, str(Path(__file__).parent))
            from facts_quality import baseline_detector

            (work / "baseline").mkdir()
            detect = baseline_detector(options.baseline, work / "baseline")
            results[f"baseline {options.baseline}"] = evaluate(detect, repos)
        results["this tree"] = evaluate(current_detector(), repos)
        print_report(results, options.verbose)
    return 0


if __name__ == "__main__":
    sys.exit(main())
