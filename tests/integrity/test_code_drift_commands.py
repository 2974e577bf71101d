"""Names in memories' shell commands and in blocks a memory left open, each in a git
repository built here the way real projects changed: a script run from the root that
moved into `tests/`, one moved under `old/` before the memory was written, a script no
file ever was, the folder `ls` lists, a memory whose fences were never closed, and items
under a heading that says they are missing."""

from __future__ import annotations

from pathlib import Path

from test_code_drift import commit, findings, git, memory, repo, write

from serena_memory.integrity.code_drift.fenced import command_names

__all__ = ["repo"]  # the fixture, shared


def _told(found: list[dict]) -> dict[str, tuple[str, str | None]]:
    return {f["mention"]: (f["status"], f.get("new_path")) for f in found}


def test_files_a_command_runs_from_the_root_are_told_where_they_went(repo: Path) -> None:
    write(repo, "test_receipt_fix.py", "def test_receipt():\n    assert True\n" * 3)
    write(repo, "old/test_receipt_fix.py", "# an older copy\n" * 3)
    write(repo, "requirements.txt", "numpy\n")
    write(repo, "agents/pm.py", "x = 1\n" * 4)
    write(repo, "old/build.py", "print('build')\n" * 3)
    memory(
        repo,
        "commands",
        "```bash\npip install -r requirements.txt\npython test_receipt_fix.py\n"
        "python build.py\npython run_everything.py\nls agents/   # the agents (pm, qa)\n"
        "npm test -- Receipt.test.tsx\n```\n",
    )
    commit(repo)
    (repo / "tests").mkdir()
    (repo / "archive").mkdir()
    git(repo, "mv", "test_receipt_fix.py", "tests/test_receipt_fix.py")
    git(repo, "mv", "agents", "archive/agents")
    git(repo, "rm", "-q", "requirements.txt")
    commit(repo, "tidy the root")
    told = _told(findings(repo))
    # the root's file, not the copy under old/ that a suffix would find
    assert told["test_receipt_fix.py"] == ("moved", "tests/test_receipt_fix.py")
    assert told["requirements.txt"][0] == "missing"
    assert told["agents/"] == ("moved", "archive/agents/")
    # a script the command runs is a claim though no file ever had its name
    assert told["run_everything.py"][0] == "missing"
    assert "build.py" not in told  # a file of that name is there, as when written
    assert "Receipt.test.tsx" not in told  # a test runner's pattern, not a claim


def test_a_command_line_names_its_arguments_not_its_program_options_or_modules() -> None:
    assert list(command_names("uv run python main.py  # the server (port 5001)")) == [
        ("main.py", True)
    ]
    assert list(command_names("python -m pytest tests.py")) == [("tests.py", False)]
    assert list(command_names("pip freeze > requirements.txt")) == [("requirements.txt", False)]
    assert list(command_names("x = load('a.json')")) == []
    assert list(command_names("Run build.py first")) == []


def test_blocks_a_memory_left_open_end_where_its_prose_goes_on(repo: Path) -> None:
    write(repo, "README.md", "# app\n")
    write(repo, "backend/src/App.kt", "fun main() {}\n")
    write(repo, "backend/src/expense/Expense.kt", "class Expense\n")
    write(repo, "pages/home.vue", "<template/>\n")
    memory(
        repo,
        "structure",
        "## Root\n```\napp/\n└── README.md\n\n## Backend\n```\nbackend/\n└── src/\n"
        "    ├── expense/\n    │   └── Expense.kt\n    └── App.kt\n\n## Status\n\n"
        "#### Missing (Critical):\n- `pages/expenses.vue` ❌\n- `pages/home.vue` is done\n\n"
        "```bash\nls\n```\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "-r", "backend/src/expense")
    commit(repo, "drop the expense module")
    told = _told(findings(repo))
    # the second tree is a tree, though the first block was never closed
    assert told["expense/"][0] == "missing"
    assert told["Expense.kt"][0] == "missing"
    assert "pages/expenses.vue" not in told  # the memory says it is missing


def test_a_folder_deleted_then_added_again_under_an_archive_moved_there(repo: Path) -> None:
    write(repo, "docs/req/old.md", "# the old requirements\n")
    write(repo, "docs/arch/a.md", "# a\n" * 3)
    write(repo, "docs/arch/b.md", "# b\n" * 3)
    memory(repo, "docs", "- `docs/req/`: requirements\n- `docs/arch/`: architecture\n")
    commit(repo)
    git(repo, "rm", "-q", "docs/req/old.md")
    write(repo, "docs/req/new.md", "# the requirements, rewritten\n" * 2)
    (repo / "docs/arch/system").mkdir()
    git(repo, "mv", "docs/arch/a.md", "docs/arch/system/a.md")
    git(repo, "mv", "docs/arch/b.md", "docs/arch/system/b.md")
    commit(repo, "rewrite the requirements, group the architecture")
    names = ("req/new.md", "arch/system/a.md", "arch/system/b.md")
    kept = {p: (repo / "docs" / p).read_text() for p in names}
    git(repo, "rm", "-q", "-r", "docs")
    commit(repo, "restructure the docs")
    for path, text in kept.items():  # the same contents, added back in a later commit
        write(repo, "docs-archive/" + path, text)
    commit(repo, "archive the old docs")
    told = _told(findings(repo))
    assert told["docs/req/"] == ("moved", "docs-archive/req/")
    assert told["docs/arch/"] == ("moved", "docs-archive/arch/")


def test_a_trees_names_under_the_projects_own_name_are_at_the_root(repo: Path) -> None:
    write(repo, "docs/guide.md", "# guide\n")
    write(repo, "email/send.py", "def send():\n    pass\n")
    write(repo, ".gitignore", "node_modules/\n")
    memory(
        repo,
        "layout",
        "```\nMYAPP/\n├── .venv/             # the environment\n├── docs/\n"
        "├── email/            # mail\n├── langgraph_core/   # graphs\n└── README.md\n```\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "-r", "email")
    write(repo, ".gitignore", "node_modules/\nemail/\n")
    commit(repo, "drop the mail, ignore it")
    told = _told(findings(repo))
    assert told["langgraph_core/"][0] == "missing"  # never there: the tree says it is
    assert told["email/"][0] == "missing"  # tracked then, deleted and ignored since
    assert ".venv/" not in told and "docs/" not in told


def test_a_module_python_imports_from_in_a_command_is_checked(repo: Path) -> None:
    write(repo, "src/pysearch/__init__.py", "")
    write(repo, "src/pysearch/api.py", "class PySearch:\n    pass\n")
    memory(
        repo,
        "usage",
        '```bash\npython -c "from pysearch.api import PySearch; from fastapi.x import App"\n```\n',
    )
    commit(repo)
    git(repo, "rm", "-q", "src/pysearch/api.py")
    commit(repo, "drop the api")
    told = _told(findings(repo))
    assert told["pysearch.api"][0] == "missing"
    assert "fastapi.x" not in told  # a library's: git never knew it


def test_a_name_only_archived_copies_have_is_not_found_in_them(repo: Path) -> None:
    write(repo, "archive/epic-1/run_framework.py", "print('old')\n")
    write(repo, "archive/old/run_framework.py", "print('older')\n")
    write(repo, "tools/lint.py", "x = 1\n")
    memory(
        repo,
        "commands",
        "```bash\npython run_framework.py\npython lint.py\n```\n"
        "Copies are kept in `archive/old/run_framework.py`.\n",
    )
    commit(repo)
    found = findings(repo)
    told = {(f["line"], f["mention"]): f["status"] for f in found}
    assert told[(2, "run_framework.py")] == "missing"
    assert (4, "archive/old/run_framework.py") not in told  # written into the archive
    assert (3, "lint.py") not in told  # found outside an archive


def test_a_julia_script_run_with_an_option_and_julia_packages_written_like_files(
    repo: Path,
) -> None:
    write(repo, "src_julia/main.jl", 'include("Simulation.jl")\n')
    write(repo, "src_julia/Simulation.jl", "module Simulation end\n")
    write(repo, "src_julia/Agents.jl", "module Agents end\n")
    memory(
        repo,
        "commands",
        "- **Flux.jl**: neural networks; **HDF5.jl** for logs; solved with ForwardDiff.jl\n"
        "- `Simulation.jl` holds the loop.\n\n"
        "```bash\ncd src_julia && julia --project=. main.jl\n```\n"
        '```julia\ninclude("Agents.jl")  # in the REPL\n```\n',
    )
    commit(repo)
    git(repo, "rm", "-q", "-r", "src_julia")
    commit(repo, "rewrite in src/")
    told = _told(findings(repo))
    assert told["main.jl"][0] == "missing"  # the script julia runs, after its option
    assert told["Simulation.jl"][0] == "missing"  # a package's form, but git knew the file
    assert not {"Flux.jl", "HDF5.jl", "ForwardDiff.jl"} & set(told)  # packages, no files
    assert told["Agents.jl"][0] == "missing"  # the file Julia includes
    assert list(command_names("julia --project=. main.jl")) == [("main.jl", False)]
    assert list(command_names("FOO=1 python x.py")) == []  # an assignment first


def test_a_block_left_open_to_the_end_is_read_and_the_prose_after_it_too(repo: Path) -> None:
    for name in ("lib/action/comment.sh", "lib/action/binary.sh", "lib/plan/parser.go"):
        write(repo, name, "# code\n")
    memory(
        repo,
        "structure",
        "## Root\n```\nstrata/\n├── lib/\n│   ├── action/   # shell modules\n"
        "│   └── plan/     # plan parsing\n└── main.go\n\n## Components\n\n"
        "### GitHub Action (lib/action/)\n- Modular shell scripts\n",
    )
    memory(repo, "commands", "## Run\n```bash\npython tools/gen.py\n")  # open to the end
    write(repo, "tools/gen.py", "print(1)\n")
    commit(repo)
    git(repo, "rm", "-q", "-r", "lib/action", "tools")
    commit(repo, "simplify the action")
    told = _told(findings(repo))
    assert told["action/"][0] == "missing"  # in the tree the memory never closed
    assert told["lib/action/"][0] == "missing"  # in the prose after it
    assert told["tools/gen.py"][0] == "missing"  # a block with no prose after it
    assert "plan/" not in told


def test_a_script_with_a_folder_an_interpreter_runs_is_a_claim_git_never_knew(
    repo: Path,
) -> None:
    write(repo, "scripts/security_audit.py", "print('audit')\n" * 3)
    write(repo, "scripts/generate_keys.py", "print('keys')\n" * 3)
    memory(
        repo,
        "deploy",
        "```bash\ngit clone <repository-url>\ncd data-agent-v4\n"
        "python scripts/generate_keys.py --save\n```\n\n"
        "```bash\npython scripts/security_audit.py\npython scripts/smoke_test.py\n"
        "python -m tools/not_a_script.py\ncat notes/never_written.md\n```\n",
    )
    commit(repo)
    git(repo, "rm", "-q", "scripts/generate_keys.py")
    commit(repo, "drop the key script")
    told = _told(findings(repo))
    # the command says the script is there: a claim though git never knew it
    assert told["scripts/smoke_test.py"][0] == "missing"
    assert "scripts/security_audit.py" not in told
    # a file a command only reads stays weak: told only when git knew it
    assert "notes/never_written.md" not in told
    # `cd` into the project just cloned is its root, not a folder of it
    assert told["scripts/generate_keys.py"][0] == "missing"


def test_a_compose_file_given_to_f_and_a_test_file_pytest_runs_are_claims(repo: Path) -> None:
    write(repo, "docker-compose.yml", "services: {}\n")
    write(repo, "tests/test_health.py", "def test_ok():\n    assert True\n")
    memory(
        repo,
        "deploy",
        "```bash\ndocker-compose -f docker-compose.yml up -d\n"
        "docker-compose -f docker-compose.prod.yml up -d\n"
        "pytest tests/test_health.py -v\npytest tests/api/test_auth.py -v\n"
        "tail -f logs/app.log\n```\n",
    )
    commit(repo)
    told = _told(findings(repo))
    # the command says the file is there: claims though git never knew them
    assert told["docker-compose.prod.yml"][0] == "missing"
    assert told["tests/api/test_auth.py"][0] == "missing"
    assert "docker-compose.yml" not in told
    assert "tests/test_health.py" not in told
    assert "logs/app.log" not in told  # a file a command only reads: weak
    assert list(command_names("tail -f app.log")) == []


def test_a_script_a_command_span_runs_is_a_claim_git_never_knew(repo: Path) -> None:
    write(repo, "scripts/check_ports.py", "print('ports')\n" * 3)
    memory(
        repo,
        "faq",
        "1. **端口冲突**: 使用 `python scripts/check_ports.py` 检查端口占用\n"
        "2. **配置验证**: 使用 `python scripts/validate_config.py` 验证配置\n"
        "3. Read `cat docs/never_written.md` for more\n",
    )
    commit(repo)
    told = _told(findings(repo))
    assert told["scripts/validate_config.py"][0] == "missing"
    assert "scripts/check_ports.py" not in told
    assert "docs/never_written.md" not in told  # a file a command only reads: weak
