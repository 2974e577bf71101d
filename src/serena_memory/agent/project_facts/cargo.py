"""Rust projects: cargo's everyday commands (what CI runs is preferred, being the
project's own form of them). Two are every Rust contributor's whatever CI says: ``cargo
fmt`` rewrites the files before a commit (CI only checks them), and ``cargo check`` type
checks the crate much quicker than a build (where no task of the project's does it)."""

from __future__ import annotations

from serena_memory.agent.project_facts.files import Project, table

MANIFEST = "Cargo.toml"
# the writing forms of rustfmt a contributor types (any other, such as CI's `cargo fmt
# --all --manifest-path ./Cargo.toml`, is one place's form of it)
_WRITING_FMT = frozenset({"cargo fmt", "cargo fmt --all", "cargo-fmt --all", "cargo fmt --"})
_RELEASE = frozenset({"--release", "-r"})


def crate_name(project: Project) -> str | None:
    """The crate the root manifest publishes (``cargo install NAME`` installs its release)."""
    name = table(project.toml(MANIFEST), "package").get("name")
    return name if isinstance(name, str) and project.is_file(MANIFEST) else None


def read_cargo(project: Project) -> None:
    text = project.text(MANIFEST)
    if text is None:
        return
    sheet = project.sheet
    workspace = "[workspace]" in text
    sheet.add_default("build", "cargo build", MANIFEST)
    if _builds_for_release_only(sheet.commands.get("build", [])):
        sheet.add("build", "cargo build", MANIFEST)
    sheet.add_default("test", "cargo test --workspace" if workspace else "cargo test", MANIFEST)
    sheet.add_default("lint", "cargo clippy", MANIFEST)
    if project.is_file("deny.toml"):  # cargo-deny's configuration: licenses, advisories, bans
        sheet.add_default("lint", "cargo deny check", "deny.toml")
    sheet.add_default("format", "cargo fmt --check", MANIFEST)
    if not any(c in _WRITING_FMT for c in sheet.commands.get("format", [])):
        sheet.add("format", "cargo fmt", MANIFEST)
    if not sheet.has("typecheck"):
        sheet.add("typecheck", "cargo check", MANIFEST)
    if project.is_file("src/main.rs") or "[[bin]]" in text:
        # a program is built optimized to be tried or timed as its users run it
        if not any(_RELEASE & set(c.split()) for c in sheet.commands.get("build", [])):
            sheet.add("build", "cargo build --release", MANIFEST)
        sheet.add_default("run", "cargo run", MANIFEST)
        if _builds_for_release_only(sheet.commands.get("run", []), "cargo run"):
            sheet.add("run", "cargo run", MANIFEST)  # CI's `cargo run --release -- ...`
    if workspace:
        sheet.notes.append("`Cargo.toml` declares a workspace (several crates).")


def _builds_for_release_only(builds: list[str], command: str = "cargo build") -> bool:
    """Whether every ``cargo build`` (``cargo run``) known is an optimized one (CI's ``cargo
    build --locked --release`` makes the binaries it ships): a contributor's everyday build
    is the plain debug one, slower to run but much quicker to compile."""
    cargo = [known.split() for known in builds if known.startswith(command)]
    return bool(cargo) and all(_RELEASE & set(words) for words in cargo)
