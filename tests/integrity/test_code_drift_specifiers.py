"""What a user walking the product on sindresorhus/ky and pallets/itsdangerous met, each in
a real git repository built here from those projects' facts: ky is TypeScript written as
ESM, so its imports name `source/utils/merge.ts` as `../utils/merge.js` (and `./merge.js`
beside it); itsdangerous's `want_bytes` lives in `src/itsdangerous/encoding.py`, imported
as `from itsdangerous.encoding import want_bytes`."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli_process
from test_code_drift import commit, findings, git, memory, repo, write

from serena_memory.integrity.code_drift.code_report import MOVED, CodeFinding
from serena_memory.integrity.code_drift.fixes import replacements
from serena_memory.integrity.code_drift.forms import UP, rewritten, script_candidates
from serena_memory.integrity.code_drift.mentions import PATH, SYMBOL

__all__ = ["repo"]  # the fixture, shared

OPTIONS = "# ky: options\n\n`source/index.ts` re-exports `mergeHeaders` from `./utils/merge.js`.\n"
MERGING = (
    "# ky: merging\n\n"
    "`source/core/Ky.ts` takes `mergeHeaders` from `../utils/merge.js`.\n"
    "`source/utils/options.ts` does `import {deepMerge} from './merge.js'`.\n\n"
    "```ts\n"
    "import {mergeHeaders, mergeHooks} from '../utils/merge.js';\n"
    "```\n"
)
LOOSE = "# ky: headers\n\nHeaders are merged in `./utils/merge.js`.\n"


def _ky(repo: Path, rename: bool) -> None:
    """ky's merging helpers, imported with `.js` specifiers; renamed to `merging.ts`."""
    write(repo, "package.json", '{"name": "ky", "type": "module"}\n')
    write(repo, "tsconfig.json", '{"compilerOptions": {"module": "node16"}}\n')
    write(repo, "source/index.ts", "export {mergeHeaders} from './utils/merge.js';\n")
    write(
        repo,
        "source/core/Ky.ts",
        "import {mergeHeaders, mergeHooks} from '../utils/merge.js';\n\nexport class Ky {}\n",
    )
    write(
        repo,
        "source/utils/merge.ts",
        "export const mergeHeaders = (a: Headers, b: Headers) => a;\n"
        "export const mergeHooks = (a: object, b: object) => a;\n"
        "export const deepMerge = (...sources: object[]) => sources[0];\n",
    )
    write(repo, "source/utils/options.ts", "import {deepMerge} from './merge.js';\n")
    memory(repo, "options", OPTIONS)
    memory(repo, "merging", MERGING)
    memory(repo, "headers", LOOSE)
    commit(repo, "start")
    if not rename:
        return
    git(repo, "mv", "source/utils/merge.ts", "source/utils/merging.ts")
    write(repo, "source/index.ts", "export {mergeHeaders} from './utils/merging.js';\n")
    write(
        repo,
        "source/core/Ky.ts",
        "import {mergeHeaders, mergeHooks} from '../utils/merging.js';\n\nexport class Ky {}\n",
    )
    write(repo, "source/utils/options.ts", "import {deepMerge} from './merging.js';\n")
    commit(repo, "rename merge.ts to merging.ts")


def test_a_js_specifier_may_name_the_typescript_file_of_its_stem() -> None:
    assert script_candidates("utils/merge.js")[:3] == [
        "utils/merge.js",
        "utils/merge.ts",
        "utils/merge.tsx",
    ]
    assert script_candidates("a.mjs") == ["a.mjs", "a.mts"]
    assert script_candidates("a.cjs") == ["a.cjs", "a.cts"]
    assert script_candidates("a.py") == ["a.py"]


def test_a_moved_typescript_file_is_written_back_with_the_extension_its_import_wrote() -> None:
    old, new = "source/utils/merge.ts", "source/utils/merging.ts"
    assert rewritten("../utils/merge.js", UP, "utils/merge.js", old, new) == "../utils/merging.js"
    assert rewritten("./merge.mjs", "relative", "merge.mjs", "a/merge.mts", "a/b.mts") == "./b.mjs"


def test_a_name_written_from_a_file_is_never_fixed_by_its_path_from_the_root() -> None:
    moved = CodeFinding(
        "m", 3, "../utils/merge.js", PATH, MOVED, "utils/merge.js",
        new_path="source/utils/merging.ts", form=UP,
    )  # fmt: skip
    assert replacements([moved]) == []  # no `../source/utils/merging.ts`: told, not fixed


def test_a_js_specifier_of_a_typescript_file_there_is_no_finding(repo: Path) -> None:
    _ky(repo, rename=False)
    told = [f for f in findings(repo) if f["kind"] == PATH]
    assert told == []  # not "never in the git history: a plan or a typo?"


def test_a_js_specifier_of_a_moved_typescript_file_is_told_and_fixed_keeping_js(
    repo: Path,
) -> None:
    _ky(repo, rename=True)
    told = [f for f in findings(repo) if f["kind"] == PATH]
    got = {(f["memory"], f["line"], f["mention"]): f for f in told}
    expected = {
        ("options", 3, "./utils/merge.js"): "./utils/merging.js",
        ("headers", 3, "./utils/merge.js"): "./utils/merging.js",  # the same string, alike
        ("merging", 3, "../utils/merge.js"): "../utils/merging.js",
        ("merging", 4, "./merge.js"): "./merging.js",
        ("merging", 7, "../utils/merge.js"): "../utils/merging.js",
    }
    assert set(got) == set(expected)
    for key, new_mention in expected.items():
        assert got[key]["status"] == "moved", key
        assert got[key]["new_path"] == "source/utils/merging.ts", key
        assert got[key]["new_mention"] == new_mention, key
    fixed = run_cli_process("memories", "fix-code-references", str(repo), "--json")
    assert fixed.returncode == 0, fixed.stderr
    done = {(f["memory"], f["line"], f["mention"]) for f in json.loads(fixed.stdout)["fixed"]}
    assert done == set(expected)  # what the fix changes is what the check tells
    memories = repo / ".serena/memories"
    assert "from `./utils/merging.js`." in (memories / "options.md").read_text(encoding="utf-8")
    assert "in `./utils/merging.js`." in (memories / "headers.md").read_text(encoding="utf-8")
    merging = (memories / "merging.md").read_text(encoding="utf-8")
    assert "`mergeHeaders` from `../utils/merging.js`." in merging
    assert "`import {deepMerge} from './merging.js'`" in merging
    assert "import {mergeHeaders, mergeHooks} from '../utils/merging.js';" in merging
    assert [f for f in findings(repo) if f["kind"] == PATH] == []


def test_the_fix_changes_only_what_the_check_tells(repo: Path) -> None:
    _ky(repo, rename=True)
    told = {
        (f["memory"], f["line"], f["mention"])
        for f in findings(repo)
        if f["status"] == "moved" or f.get("new_name")
    }
    before = {p.name: p.read_text(encoding="utf-8") for p in (repo / ".serena/memories").iterdir()}
    fixed = run_cli_process("memories", "fix-code-references", str(repo), "--json")
    assert fixed.returncode == 0, fixed.stderr
    done = {(f["memory"], f["line"], f["mention"]) for f in json.loads(fixed.stdout)["fixed"]}
    assert done == told
    for name, text in before.items():
        after = (repo / ".serena/memories" / name).read_text(encoding="utf-8").split("\n")
        changed = {
            n for n, (a, b) in enumerate(zip(text.split("\n"), after, strict=True), 1) if a != b
        }
        assert changed <= {line for m, line, _ in done if f"{m}.md" == name}, name


BYTES = (
    "# itsdangerous: bytes\n\n"
    "```python\n"
    "from itsdangerous.encoding import want_bytes\n"
    "```\n\n"
    "Inline: `from itsdangerous.encoding import want_bytes`.\n"
)


def _itsdangerous(repo: Path) -> None:
    """itsdangerous's encoding module renamed `b64`, its `want_bytes` `ensure_bytes`."""
    write(repo, "pyproject.toml", '[project]\nname = "itsdangerous"\n')
    write(repo, "src/itsdangerous/__init__.py", "from .signer import Signer as Signer\n")
    body = (
        "def {name}(s, encoding='utf-8', errors='strict'):\n"
        "    if isinstance(s, str):\n"
        "        s = s.encode(encoding, errors)\n"
        "    return s\n\n\n"
        "def base64_encode(string):\n"
        "    string = {name}(string)\n"
        "    return string\n"
    )
    write(repo, "src/itsdangerous/encoding.py", body.format(name="want_bytes"))
    write(
        repo,
        "src/itsdangerous/signer.py",
        "from .encoding import want_bytes\n\n\nclass Signer:\n    def sign(self, v):\n"
        "        return want_bytes(v)\n",
    )
    memory(repo, "bytes", BYTES)
    commit(repo, "start")
    git(repo, "mv", "src/itsdangerous/encoding.py", "src/itsdangerous/b64.py")
    write(repo, "src/itsdangerous/b64.py", body.format(name="ensure_bytes"))
    write(
        repo,
        "src/itsdangerous/signer.py",
        "from .b64 import ensure_bytes\n\n\nclass Signer:\n    def sign(self, v):\n"
        "        return ensure_bytes(v)\n",
    )
    commit(repo, "rename encoding to b64, want_bytes to ensure_bytes")


def test_the_names_a_fenced_import_takes_from_a_moved_module_are_told_and_fixed(
    repo: Path,
) -> None:
    _itsdangerous(repo)
    found = findings(repo)
    renamed = {(f["line"], f["mention"]): f for f in found if f["kind"] == SYMBOL}
    assert renamed[(4, "want_bytes")]["new_name"] == "ensure_bytes"  # the fenced block's
    assert renamed[(7, "want_bytes")]["new_name"] == "ensure_bytes"  # the inline span's
    fixed = run_cli_process("memories", "fix-code-references", str(repo))
    assert fixed.returncode == 0, fixed.stderr
    text = (repo / ".serena/memories/bytes.md").read_text(encoding="utf-8")
    assert "```python\nfrom itsdangerous.b64 import ensure_bytes\n```" in text
    assert "Inline: `from itsdangerous.b64 import ensure_bytes`." in text
    assert findings(repo) == []


def test_a_fenced_import_of_another_library_names_no_symbol(repo: Path) -> None:
    write(repo, "pyproject.toml", '[project]\nname = "app"\n')
    write(repo, "app/main.py", "from os.path import join\n")
    memory(repo, "paths", "# paths\n\n```python\nfrom os.path import joined_up\n```\n")
    commit(repo, "start")
    assert findings(repo) == []
