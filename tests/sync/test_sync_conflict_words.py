"""A sync conflict reads right on both machines: on the one whose sync kept its own text
and on the one whose edit was set aside (two machines with their own host names, the real
command line and real git)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from test_sync import BASE, Machine

UNSHARE = shutil.which("unshare")


def _can_name_hosts() -> bool:
    if UNSHARE is None:
        return False
    probe = subprocess.run([UNSHARE, "-u", "hostname", "probe"], capture_output=True)
    return probe.returncode == 0


pytestmark = [
    pytest.mark.skipif(shutil.which("git") is None, reason="sync needs the git command line"),
    pytest.mark.skipif(not _can_name_hosts(), reason="needs unshare -u (root) for host names"),
    pytest.mark.slow,  # syncs end to end over real git remotes
]


class NamedMachine(Machine):
    """A machine with a host name of its own (a UTS namespace per command)."""

    def __init__(self, root: Path, remote: Path, host: str) -> None:
        super().__init__(root, remote)
        self.prefix = [UNSHARE, "-u", "sh", "-c", f'hostname {host} && exec "$@"', "sh"]


def test_each_machine_is_told_whose_text_is_where(tmp_path: Path) -> None:
    remote = tmp_path / "shared.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    laptop = NamedMachine(tmp_path / "laptop", remote, "laptop")
    workstation = NamedMachine(tmp_path / "workstation", remote, "workstation")
    laptop.write("global/conventions", BASE)
    laptop.sync()
    workstation.sync()
    mine = BASE.replace("three", "three, says the laptop")
    laptop.write("global/conventions", mine)
    workstation.write("global/conventions", BASE.replace("three", "three, says the workstation"))
    workstation.sync()
    laptop.sync()  # the laptop's sync finds the clash: its own text stays
    words = laptop.run("memories", "conflicts").stdout
    assert "in the memory: this machine's text" in words
    workstation.sync()  # the workstation's text was set aside: it learns so here
    listed = workstation.run("memories", "conflicts").stdout
    assert "in the memory: laptop's text, set aside: this machine's text" in listed
    assert "--keep set-aside" in listed
    shown = workstation.run("memories", "conflicts", "--show", "global/conventions").stdout
    assert shown.startswith("--- global/conventions @ in the memory: laptop's text\n")
    assert "+++ global/conventions @ set aside: this machine's text\n" in shown
    # the workstation keeps its own text with the words it was shown
    done = workstation.run("memories", "resolve", "global/conventions", "--keep", "set-aside")
    assert "set aside" in done.stdout
    assert "says the workstation" in workstation.text("global/conventions")
