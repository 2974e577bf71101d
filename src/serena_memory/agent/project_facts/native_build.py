"""C and C++ build systems' usual commands: Autotools (``autoreconf -i``, ``./configure``,
``make``, ``make check``) and CMake (``cmake -B build``, ``cmake --build build``,
``ctest --test-dir build``), offered for a kind the project's own tasks left empty."""

from __future__ import annotations

from serena_memory.agent.project_facts.files import Project

AUTOCONF = ("configure.ac", "configure.in")
# a project's own script that runs autoreconf with the right options
_BOOTSTRAPS = ("autogen.sh", "bootstrap", "bootstrap.sh")
CMAKE = "CMakeLists.txt"
_CHECK_TARGETS = frozenset({"check", "distcheck"})


def read_native_build(project: Project) -> None:
    read_autotools(project)
    read_cmake(project)


def read_autotools(project: Project) -> None:
    """A tree with ``configure.ac`` is set up by generating ``configure`` (unless it is
    checked in) and running it; automake's ``make check`` runs the tests."""
    config = project.first(*AUTOCONF)
    if config is None:
        return
    sheet = project.sheet
    _checks_are_tests(project)
    if not project.is_file("configure"):
        script = project.first(*_BOOTSTRAPS)
        sheet.add_default("setup", f"./{script}" if script else "autoreconf -i", config)
    sheet.add_default("setup", "./configure", config)
    sheet.add_default("build", "make", config)
    sheet.add_default("test", "make check", config)


def _checks_are_tests(project: Project) -> None:
    """In an automake tree ``make check`` is the test suite, whatever its name suggests
    elsewhere (a Python Makefile's ``check`` lints): move it from lint to test."""
    sheet = project.sheet
    lint = sheet.commands.get("lint", [])
    for command in list(lint):
        words = command.split()
        if words[0] == "make" and _CHECK_TARGETS & set(words[1:]):
            lint.remove(command)
            tests = sheet.commands.setdefault("test", [])
            if command not in tests:
                tests.append(command)


def read_cmake(project: Project) -> None:
    """CMake configures into a build folder, builds there and runs CTest's tests there."""
    if not project.is_file(CMAKE) or project.is_file("Makefile"):
        return
    sheet = project.sheet
    if not sheet.has("build"):
        sheet.add_default("build", "cmake -B build", CMAKE)
        sheet.add("build", "cmake --build build", CMAKE)
    if not sheet.has("test") and "enable_testing" in (project.text(CMAKE) or ""):
        sheet.add_default("test", "ctest --test-dir build", CMAKE)
