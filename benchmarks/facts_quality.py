"""How true the onboarding fact sheet is on real repositories, against hand labels.

The labels (``facts_labels.json``) name, for each repository at one commit, the commands its
contributors run, by kind (setup, test, lint, format, typecheck, build, run; each with its
acceptable spellings), and the commands that must not be offered as everyday ones (release,
publish, deploy, version bumps, security scans; plus ``forbidden_everywhere``: CI plumbing
such as ``echo``, ``git checkout`` or ``twine upload`` in any repository). The labels were
made by reading each repository's contributor docs, task runner files and CI workflows.

For every repository this script builds the fact sheet (``detect_facts``) and reports:

- recall of the labeled test, lint, format and type-check commands (goal >= 0.85), and of
  every labeled command (goal >= 0.75): a labeled command counts as found when the sheet
  offers one of its spellings, in any kind;
- non-everyday commands offered (goal: at most one per four repositories);
- the commands offered and the sheet's length in characters.

``--baseline REF`` runs the fact detection of the commit REF of this repository side by side
(its ``agent/project_facts.py`` or ``agent/project_facts/`` package, loaded under another
name), so before and after come from the same run on the same trees.

Getting the repositories: the trees live in a cache folder (``--cache``, one folder per
repository named ``owner+name``). A missing tree is made from a bare mirror of the repository
(``--mirrors``: ``MIRRORS/owner+name/repo``, as a ``git clone --mirror`` or a fetched
snapshot leaves it) with ``git archive COMMIT``; with ``--clone`` a missing mirror is first
cloned from https://github.com/owner/name.

Usage: python benchmarks/facts_quality.py [--set labeled|held_out|all] [--cache DIR]
       [--mirrors DIR] [--clone] [--baseline REF] [--verbose]
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

LABELS = Path(__file__).with_name("facts_labels.json")
REPO_ROOT = Path(__file__).resolve().parents[1]
CORE_KINDS = ("test", "lint", "format", "typecheck")

# `uv run` options that take a value (the value is dropped with the option)
_UV_VALUE_OPTIONS = {"--group", "--only-group", "--with", "--python", "-p", "--directory",
                     "--extra", "--package", "--env-file"}  # fmt: skip
_WRAPPERS = (("poetry", "run"), ("pdm", "run"), ("pipenv", "run"), ("hatch", "run"))


def _drop_uv_run(words: list[str]) -> list[str]:
    if words[:2] != ["uv", "run"]:
        return words
    rest = words[2:]
    while rest and rest[0].startswith("-"):
        option = rest.pop(0)
        if option in _UV_VALUE_OPTIONS and rest:
            rest.pop(0)
    return rest or words


def _canonical(words: list[str]) -> list[str]:
    """Spellings of one command that mean the same thing, made one."""
    words = [w.strip("'\"") for w in words]
    if words and words[0].startswith("./"):
        words[0] = words[0][2:]
    if words[:1] == ["bash"] or words[:1] == ["sh"]:
        words = words[1:] or words
    if len(words) > 2 and words[0] in ("python", "python3") and words[1] == "-m":
        words = words[2:]
    if words[:1] == ["prek"]:
        words = ["pre-commit", *words[1:]]
    if words[:2] in (["tox", "run"], ["tox", "r"]):
        words = ["tox", *words[2:]]
    if words[:1] == ["nox"]:
        words = ["-s" if w == "--session" else w for w in words]
    if words[:2] == ["pre-commit", "run"]:
        words = ["--all-files" if w == "-a" else w for w in words]
    if len(words) > 2 and words[0] in ("npm", "pnpm", "yarn") and words[1] == "run":
        words = _without_run(words)
    if len(words) > 1 and words[-1] == ".":
        words = words[:-1]
    return words


def _without_run(words: list[str]) -> list[str]:
    """``pnpm run lint`` is ``pnpm lint``; npm keeps ``run`` but for test and start."""
    if words[0] != "npm" or words[2] in ("test", "start"):
        return [words[0], *words[2:]]
    return words


def norm(command: str) -> str:
    """A command as a comparable string: one spacing, no runner prefix, one spelling."""
    words = _drop_uv_run(command.split())
    if len(words) > 2 and tuple(words[:2]) in _WRAPPERS and words[:2] != ["hatch", "run"]:
        words = words[2:]
    return " ".join(_canonical(words))


def matches(offered: str, accepted: str) -> bool:
    """The same command, possibly with more options (``cargo test --workspace``)."""
    if offered == accepted:
        return True
    if not offered.startswith(accepted + " ") or " " not in accepted:
        return False
    return all(word.startswith("-") for word in offered[len(accepted) + 1 :].split()[:1])


def is_forbidden(offered: str, forbidden: list[str]) -> bool:
    return any(offered == f or offered.startswith(f + " ") for f in forbidden)


def offered_commands(data: dict[str, Any]) -> list[str]:
    """Every command the sheet offers, whatever its kind (and the old sheet's CI list)."""
    found: list[str] = []
    for commands in data.get("commands", {}).values():
        found.extend(commands)
    found.extend(data.get("ci_commands", []))
    return found


def score_repo(label: dict[str, Any], data: dict[str, Any], text: str, every: list[str]) -> dict:
    offered = offered_commands(data)
    normal = [norm(c) for c in offered]
    forbidden = [norm(f) for f in label["forbidden"]] + every
    result: dict[str, Any] = {"core": [0, 0], "all": [0, 0], "missed": [], "bad": []}
    for kind, items in label["commands"].items():
        for spellings in items:
            hit = any(matches(o, norm(s)) for o in normal for s in spellings)
            for key in ("all", "core") if kind in CORE_KINDS else ("all",):
                result[key][0] += hit
                result[key][1] += 1
            if not hit:
                result["missed"].append(f"{kind}: {spellings[0]}")
    result["bad"] = [c for c, n in zip(offered, normal, strict=True) if is_forbidden(n, forbidden)]
    result["offered"] = len(offered)
    result["chars"] = len(text)
    return result


# -- the repositories ------------------------------------------------------------------------
def tree(label: dict[str, Any], cache: Path, mirrors: Path, clone: bool) -> Path:
    """The repository's files at the labeled commit, made once in the cache."""
    slug = label["name"].replace("/", "+")
    root = cache / slug
    if root.is_dir():
        return root
    mirror = mirrors / slug / "repo"
    if not mirror.exists():
        if not clone:
            sys.exit(f"{label['name']}: no tree in {cache} and no mirror in {mirrors}; "
                     "fetch it, or pass --clone to clone it from GitHub.")  # fmt: skip
        url = f"https://github.com/{label['name']}"
        subprocess.run(["git", "clone", "-q", "--mirror", url, str(mirror)], check=True)
    archive = subprocess.run(
        ["git", "--git-dir", str(mirror), "archive", label["commit"]],
        capture_output=True,
        check=True,
    ).stdout
    root.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(root, filter="data")
    return root


# -- the detectors ---------------------------------------------------------------------------
Detector = Callable[[Path], Any]


def current_detector() -> Detector:
    from serena_memory.agent.project_facts import detect_facts

    return detect_facts


def baseline_detector(ref: str, work: Path) -> Detector:
    """``detect_facts`` as it was at ``ref``, imported under the name ``baseline_facts``."""
    listing = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "ls-tree", "-r", "--name-only", ref,
         "src/serena_memory/agent/"],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    package = work / "baseline_facts"
    files = [p for p in listing if "/project_facts/" in p and p.endswith(".py")]
    if files:
        for path in files:
            target = package / Path(path).name
            package.mkdir(exist_ok=True)
            target.write_bytes(_git_show(ref, path))
        init = package / "__init__.py"
    else:
        init = work / "baseline_facts.py"
        init.write_bytes(_git_show(ref, "src/serena_memory/agent/project_facts.py"))
    text = init.read_text(encoding="utf-8")
    init.write_text(text.replace("serena_memory.agent.project_facts", "baseline_facts"))
    for path in package.glob("*.py") if files else []:
        body = path.read_text(encoding="utf-8")
        path.write_text(body.replace("serena_memory.agent.project_facts", "baseline_facts"))
    sys.path.insert(0, str(work))
    spec = importlib.util.find_spec("baseline_facts")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["baseline_facts"] = module
    spec.loader.exec_module(module)
    return module.detect_facts  # type: ignore[no-any-return]


def _git_show(ref: str, path: str) -> bytes:
    return subprocess.run(
        ["git", "-C", str(REPO_ROOT), "show", f"{ref}:{path}"], capture_output=True, check=True
    ).stdout


# -- the report ------------------------------------------------------------------------------
def evaluate(detect: Detector, repos: list[tuple[dict, Path]], every: list[str]) -> dict:
    totals: dict[str, Any] = {"core": [0, 0], "all": [0, 0], "bad": 0, "offered": 0, "chars": 0}
    per_repo = {}
    for label, root in repos:
        sheet = detect(root)
        result = score_repo(label, sheet.to_dict(), sheet.to_markdown(), every)
        per_repo[label["name"]] = result
        for key in ("core", "all"):
            totals[key][0] += result[key][0]
            totals[key][1] += result[key][1]
        totals["bad"] += len(result["bad"])
        totals["offered"] += result["offered"]
        totals["chars"] += result["chars"]
    totals["repos"] = len(repos)
    return {"totals": totals, "per_repo": per_repo}


def _share(found: list[int]) -> str:
    return f"{found[0] / max(found[1], 1):.2f} ({found[0]}/{found[1]})"


def _figures(totals: dict[str, Any]) -> list[str]:
    n = totals["repos"]
    return [
        _share(totals["core"]),
        _share(totals["all"]),
        f"{totals['bad']} ({totals['bad'] / max(n, 1) * 4:.2f} per 4 repos)",
        f"{totals['offered'] / max(n, 1):.1f}",
        f"{totals['chars'] / max(n, 1):.0f}",
    ]


ROWS = (
    "recall test/lint/format/typecheck (goal >= 0.85)",
    "recall of all labeled commands (goal >= 0.75)",
    "non-everyday commands offered (goal <= 1 per 4)",
    "commands offered per repository",
    "sheet characters per repository",
)


def print_table(results: dict[str, dict]) -> None:
    names = list(results)
    columns = {name: _figures(results[name]["totals"]) for name in names}
    width = max(len(r) for r in ROWS)
    print(f"{'':{width}}  " + "  ".join(f"{n:>24}" for n in names))
    for i, row in enumerate(ROWS):
        print(f"{row:{width}}  " + "  ".join(f"{columns[n][i]:>24}" for n in names))


def print_details(name: str, result: dict) -> None:
    print(f"\n== {name}")
    for repo, r in result["per_repo"].items():
        print(f"- {repo}: core {r['core'][0]}/{r['core'][1]}, all {r['all'][0]}/{r['all'][1]}, "
              f"{r['offered']} offered, {r['chars']} chars")  # fmt: skip
        for miss in r["missed"]:
            print(f"    missed  {miss}")
        for bad in r["bad"]:
            print(f"    offered {bad}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", default="labeled", choices=("labeled", "held_out", "all"))
    parser.add_argument("--cache", default=Path("/tmp/facts-repos"), type=Path)
    parser.add_argument("--mirrors", default=Path("/work/.mirror"), type=Path)
    parser.add_argument("--clone", action="store_true", help="clone missing mirrors from GitHub")
    parser.add_argument("--baseline", metavar="REF", help="also score the detection at REF")
    parser.add_argument("--verbose", action="store_true", help="list misses and bad commands")
    options = parser.parse_args()
    data = json.loads(LABELS.read_text(encoding="utf-8"))
    labels = [r for r in data["repositories"] if options.set in ("all", r["set"])]
    repos = [
        (label, tree(label, options.cache, options.mirrors, options.clone)) for label in labels
    ]
    every = data["forbidden_everywhere"]
    results = {}
    with tempfile.TemporaryDirectory() as work:
        if options.baseline:
            detect = baseline_detector(options.baseline, Path(work))
            results[f"baseline {options.baseline}"] = evaluate(detect, repos, every)
        results["this tree"] = evaluate(current_detector(), repos, every)
    print(f"{len(repos)} repositories ({options.set})\n")
    print_table(results)
    if options.verbose:
        for name, result in results.items():
            print_details(name, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
