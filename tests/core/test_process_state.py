"""Process-wide state has one owner: each module asks ``PROCESS`` for its state, and no
module keeps a dictionary, set or list of its own that its functions change (what made a
test that wanted a fresh process reset a dozen modules, each its own way)."""

from __future__ import annotations

import ast
import threading
from pathlib import Path

from serena_memory.core import process
from serena_memory.core.process import Process

SOURCE = Path(process.__file__).resolve().parents[1]
MUTATORS = frozenset(
    {"append", "add", "update", "clear", "pop", "setdefault", "extend", "remove", "discard"}
    | {"popitem", "move_to_end", "insert"}
)


def _changed_module_names(tree: ast.Module) -> set[str]:
    """The module-level names a function of the module rebinds (``global``) or changes in
    place (a method that changes a container, an item assigned or deleted)."""
    names = {
        target.id
        for node in tree.body
        if isinstance(node, (ast.Assign, ast.AnnAssign))
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    }
    changed: set[str] = set()
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Global):
                changed.update(node.names)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.attr in MUTATORS
            ):
                changed.add(node.func.value.id)
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
                targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else []
                for target in [
                    *targets,
                    *([node.target] if isinstance(node, ast.AugAssign) else []),
                ]:
                    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                        changed.add(target.value.id)
    return changed & names


def test_no_module_keeps_state_of_its_own() -> None:
    found = {
        f"{path.relative_to(SOURCE)}:{name}"
        for path in sorted(SOURCE.rglob("*.py"))
        for name in _changed_module_names(ast.parse(path.read_text(encoding="utf-8")))
    }
    assert found == set(), "keep it in a class asked of PROCESS.owned: " + ", ".join(sorted(found))


class _Counter:
    def __init__(self) -> None:
        self.count = 0


def test_each_kind_has_one_instance_until_forgotten() -> None:
    owner = Process()
    first = owner.owned(_Counter)
    first.count += 1
    assert owner.owned(_Counter) is first and owner.owned(_Counter).count == 1
    assert owner.kinds() == [f"{__name__}._Counter"]
    owner.forget(_Counter)
    assert owner.owned(_Counter) is not first and owner.owned(_Counter).count == 0
    owner.forget()
    assert owner.kinds() == []


def test_threads_asking_at_once_share_one_instance() -> None:
    owner = Process()
    seen: list[_Counter] = []
    start = threading.Barrier(8)

    def ask() -> None:
        start.wait()
        seen.append(owner.owned(_Counter))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(found) for found in seen}) == 1
