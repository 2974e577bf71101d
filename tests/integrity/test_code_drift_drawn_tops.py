"""Trees that name files the way front-end memories draw them, met in drift-13
(benchmarks/data): a component's name without its extension (``├── ChainSwitcher`` for
``ChainSwitcher.tsx``), and a tree drawn from a folder's name alone (``Web3/``) that lives
deep in the project; while a tree whose names are at the root is drawn from the project's
own name. Each checked on a real git repository."""

from __future__ import annotations

from pathlib import Path

from test_code_drift import commit, findings, git, memory, repo, write

__all__ = ["repo"]  # the fixture, shared


def _told(found: list[dict]) -> dict[str, tuple[str, str | None]]:
    return {f["mention"]: (f["status"], f.get("new_path")) for f in found}


_WEB3 = (
    "## Web3\n\n```\nWeb3/\n├── SimpleConnectButton  # connects\n"
    "├── ChainSwitcher        # switches chains\n└── HeaderWallet         # in the header\n```\n"
)


def test_a_components_name_in_a_tree_is_its_file_and_the_trees_top_its_folder(
    repo: Path,
) -> None:
    for name in ("SimpleConnectButton", "ChainSwitcher", "HeaderWallet"):
        write(repo, f"src/components/Web3/{name}.tsx", f"export const {name} = 1\n")
    write(repo, "src/components/Other/Web3Badge.tsx", "export const a = 1\n")
    memory(repo, "architecture", _WEB3)
    commit(repo)
    assert findings(repo) == []  # all there: nothing told
    git(repo, "rm", "-q", "-r", "src/components/Web3")
    commit(repo, "drop the wallet components")
    assert _told(findings(repo)) == {
        "Web3/": ("missing", None),
        "SimpleConnectButton": ("missing", None),
        "ChainSwitcher": ("missing", None),
        "HeaderWallet": ("missing", None),
    }


def test_a_component_moved_with_its_folder_is_told_where_it_went(repo: Path) -> None:
    for name in ("SimpleConnectButton", "ChainSwitcher", "HeaderWallet"):
        write(repo, f"src/components/Web3/{name}.tsx", f"export const {name} = '{name}'\n")
    memory(repo, "architecture", _WEB3)
    commit(repo)
    (repo / "src/wallet").mkdir(parents=True)
    git(repo, "mv", "src/components/Web3", "src/wallet/Web3")
    commit(repo, "move the wallet")
    told = _told(findings(repo))
    assert told["ChainSwitcher"] == ("moved", "src/wallet/Web3/ChainSwitcher.tsx")
    assert "Web3/" not in told  # a folder of that name is still there: the name finds it


def test_a_tree_drawn_from_the_projects_own_name_is_not_a_folder_deep_in_it(
    repo: Path,
) -> None:
    write(repo, "cmd/tool/main.go", "package main\n")
    write(repo, "vendor/tool/lib.go", "package tool\n")
    memory(repo, "layout", "```\ntool/\n├── cmd/\n│   └── tool/\n└── README.md\n```\n")
    commit(repo)
    git(repo, "rm", "-q", "-r", "vendor")
    commit(repo, "drop the vendored copy")
    # `tool/` is the project's name: its names are at the root, not in `vendor/tool/`
    assert findings(repo) == []


def test_a_bare_name_in_a_tree_no_file_ever_had_says_nothing(repo: Path) -> None:
    write(repo, "src/app/page.tsx", "export default 1\n")
    memory(
        repo, "layout", "```\nsrc/app/\n├── page.tsx\n├── Sidebar    # to come\n└── Footer\n```\n"
    )
    commit(repo)
    assert findings(repo) == []


def test_the_read_note_places_a_trees_top_as_the_check_does(repo: Path) -> None:
    from serena_memory.integrity.code_drift.read_note import memory_findings

    for name in ("SimpleConnectButton", "ChainSwitcher", "HeaderWallet"):
        write(repo, f"src/components/Web3/{name}.tsx", f"export const {name} = 1\n")
    memory(repo, "architecture", _WEB3)
    commit(repo)
    git(repo, "rm", "-q", "-r", "src/components/Web3")
    commit(repo, "drop the wallet components")
    written = str(repo / ".serena/memories/architecture.md")
    found = memory_findings(str(repo), "architecture", _WEB3, written=written)
    assert {f.mention: (f.status, f.target) for f in found}["Web3/"] == (
        "missing",
        "src/components/Web3/",
    )


def test_a_trees_top_the_root_had_only_before_the_memory_is_the_projects_name(
    repo: Path,
) -> None:
    write(repo, "letscheers/App/main.swift", "print(1)\n")
    commit(repo)
    (repo / "Projects").mkdir()
    git(repo, "mv", "letscheers/App", "Projects/App")
    commit(repo, "migrate to Tuist")
    memory(
        repo,
        "structure",
        "```\nletscheers/\n├── Projects/\n│   └── App/\n│       └── main.swift\n"
        "└── README.md\n```\n",
    )
    commit(repo)
    # the root's `letscheers/` went before the memory was written: the tree's top is the
    # project's name, its names are at the root
    assert findings(repo) == []
