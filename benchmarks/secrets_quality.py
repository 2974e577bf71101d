"""Which secret scanner: recall on the true secrets and false positives on the look-alikes
of the labeled set (secrets_set.py), each sample saved as one memory file (a name sample:
a file of that name, holding a plain line).

Candidates are run through their own command lines on one folder of memory files (what a
person would run), except ``serena`` (the scanner as the store runs it, in this process).
A candidate whose command is not installed is reported as such. The candidates need not be
in the project's environment: ``--bin DIR`` names the folder of their console scripts.

Usage: ``python benchmarks/secrets_quality.py [--bin DIR] [--only NAME ...]``
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from secrets_set import labeled_set

Flagged = set[str]  # names of the sample files a candidate reported


def _tool(bin_dir: Path | None, name: str) -> str | None:
    if bin_dir is not None and (bin_dir / name).exists():
        return str(bin_dir / name)
    return shutil.which(name)


def run_detect_secrets(folder: Path, bin_dir: Path | None) -> Flagged | None:
    exe = _tool(bin_dir, "detect-secrets")
    if exe is None:
        return None
    out = subprocess.run(
        [exe, "scan", "--all-files", "."], cwd=folder, capture_output=True, text=True, check=True
    )
    return set(json.loads(out.stdout)["results"])


def run_credsweeper(folder: Path, bin_dir: Path | None) -> Flagged | None:
    exe = _tool(bin_dir, "credsweeper")
    if exe is None:
        return None
    report = folder.parent / "credsweeper.json"
    subprocess.run(
        [exe, "--path", str(folder), "--save-json", str(report)], capture_output=True, check=True
    )
    found = json.loads(report.read_text())
    return {Path(line["path"]).name for item in found for line in item["line_data_list"]}


def run_credsweeper_doc(folder: Path, bin_dir: Path | None) -> Flagged | None:
    exe = _tool(bin_dir, "credsweeper")
    if exe is None:
        return None
    report = folder.parent / "credsweeper-doc.json"
    subprocess.run(
        [exe, "--doc", "--path", str(folder), "--save-json", str(report)],
        capture_output=True,
        check=True,
    )
    found = json.loads(report.read_text())
    return {Path(line["path"]).name for item in found for line in item["line_data_list"]}


def run_trufflehog3(folder: Path, bin_dir: Path | None) -> Flagged | None:
    exe = _tool(bin_dir, "trufflehog3")
    if exe is None:
        return None
    report = folder.parent / "trufflehog3.json"
    subprocess.run(
        [exe, "--no-history", "-z", "-f", "JSON", "-o", str(report), str(folder)],
        capture_output=True,
        check=True,
    )
    return {Path(issue["path"]).name for issue in json.loads(report.read_text() or "[]")}


def run_whispers(folder: Path, bin_dir: Path | None) -> Flagged | None:
    exe = _tool(bin_dir, "whispers")
    if exe is None:
        return None
    out = subprocess.run([exe, str(folder)], capture_output=True, text=True)
    flagged = set()
    for line in out.stdout.splitlines():
        try:
            flagged.add(Path(json.loads(line)["file"]).name)
        except (ValueError, KeyError, TypeError):
            continue
    return flagged


def run_serena(folder: Path, bin_dir: Path | None) -> Flagged | None:
    from serena_memory.core import secrets

    flagged = set()
    scan_name = getattr(secrets, "scan_name", lambda name: [])  # names: scanned since 2.x
    for path in folder.rglob("*.md"):
        rel = path.relative_to(folder).as_posix()
        if secrets.scan(path.read_text()) or scan_name(rel.removesuffix(".md")):
            flagged.add(rel)
    return flagged


def run_serena_store(folder: Path, bin_dir: Path | None) -> Flagged | None:
    """Each sample written by `MemoryStore.write` as the agent writes (a name sample under
    its name, the others as memory ``m000``...): flagged when the write is refused."""
    from serena_memory.core.errors import MemoryStoreError
    from serena_memory.core.secrets import SecretFoundError
    from serena_memory.core.store import Context
    from serena_memory.wiring import build_store

    flagged = set()
    with tempfile.TemporaryDirectory(prefix="secrets-store-") as tmp:
        (Path(tmp) / "p").mkdir()
        store = build_store(Path(tmp) / "p", home=Path(tmp) / "h", context=Context.AGENT)
        for path in sorted(folder.rglob("*.md")):
            rel = path.relative_to(folder).as_posix()
            try:
                store.write(rel.removesuffix(".md"), path.read_text())
            except SecretFoundError:
                flagged.add(rel)
            except MemoryStoreError as exc:
                print(f"    {rel}: {exc}")
    return flagged


CANDIDATES: dict[str, Callable[[Path, Path | None], Flagged | None]] = {
    "detect-secrets": run_detect_secrets,
    "credsweeper": run_credsweeper,
    "credsweeper --doc": run_credsweeper_doc,
    "trufflehog3": run_trufflehog3,
    "whispers": run_whispers,
    "serena (detect-secrets as configured in core/secrets.py)": run_serena,
    "serena-store (MemoryStore.write, as the agent writes)": run_serena_store,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", type=Path, help="folder of the candidates' console scripts")
    parser.add_argument("--only", nargs="*", help="candidates to run (default: all)")
    parser.add_argument("--misses", action="store_true", help="print what each one got wrong")
    args = parser.parse_args()
    samples = labeled_set()
    with tempfile.TemporaryDirectory(prefix="secrets-quality-") as tmp:
        folder = Path(tmp) / "memories"
        folder.mkdir()
        label = {}
        for i, sample in enumerate(samples):
            if sample.where == "name":
                name = sample.text + ".md"
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                (folder / name).write_text("Notes kept under this name.\n")
            else:
                name = f"m{i:03d}.md"
                (folder / name).write_text(sample.text + "\n")
            label[name] = sample
        positives = sum(s.secret for s in samples)
        negatives = len(samples) - positives
        print(
            f"{positives} secrets of {len({s.kind for s in samples if s.secret})} kinds, "
            f"{negatives} look-alikes; {sum(s.where == 'name' for s in samples)} of them all "
            "memory names\n"
        )
        print(f"{'candidate':58} {'recall':>7} {'FP rate':>8} {'precision':>9} {'time':>7}")
        for name, run in CANDIDATES.items():
            if args.only and name.split()[0] not in args.only:
                continue
            start = time.perf_counter()
            try:
                flagged = run(folder, args.bin)
            except (subprocess.CalledProcessError, ImportError) as exc:
                print(f"{name:58} failed: {exc}")
                continue
            took = time.perf_counter() - start
            if flagged is None:
                print(f"{name:58} not installed")
                continue
            tp = sum(1 for f in flagged if f in label and label[f].secret)
            fp = sum(1 for f in flagged if f in label and not label[f].secret)
            precision = tp / (tp + fp) if tp + fp else 1.0
            print(
                f"{name:58} {tp / positives:7.3f} {fp / negatives:8.3f} {precision:9.3f} "
                f"{took:6.1f}s"
            )
            if args.misses:
                missed = Counter(s.kind for f, s in label.items() if s.secret and f not in flagged)
                wrong = Counter(s.kind for f, s in label.items() if not s.secret and f in flagged)
                print(f"    missed: {dict(missed)}\n    false positives: {dict(wrong)}")
                for f, s in label.items():
                    if not s.secret and f in flagged:
                        print(f"      FP: {s.text[:90]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
