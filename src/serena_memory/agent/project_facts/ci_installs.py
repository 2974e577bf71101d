"""The installs of CI a contributor makes too, where CI's installs are otherwise left to CI
(most install what one job needs): the task runner set up with its CI plugin, and the
lock file's clean install.

``pip install tox tox-gh-actions`` installs tox, the project's runner, with the plugin that
picks the environments of the job's Python: the one way the project says how tox is
installed. ``npm ci`` installs exactly what ``package-lock.json`` pins, the reproducible
form of the ``npm install`` the sheet offers from the lock file.
"""

from __future__ import annotations

import re

from serena_memory.agent.project_facts.commands import unwrap, without_environment
from serena_memory.agent.project_facts.sheet import FactSheet

# tox's plugins that map CI's Python (GitHub's `setup-python`) to tox's environments
_TOX_CI_PLUGINS = frozenset({"tox-gh-actions", "tox-gh"})
_PIP_PROGRAMS = frozenset({"pip", "pip3", "uv"})
# a requirement's name, its quotes, extras and version aside: `'tox~=4.0'` is `tox`
_NAME = re.compile(r"^[\"']?([A-Za-z0-9][A-Za-z0-9._-]*)")
# npm's install of exactly what the lock file pins, in its plain form (CI's forms with
# `--force` or `--ignore-scripts` are its own)
_CLEAN_INSTALLS = frozenset({"npm ci", "npm clean-install"})


def installs_tox_for_ci(line: str) -> bool:
    """``pip install -U tox tox-gh-actions``, ``python -m pip install 'tox~=4.0'
    'tox-gh-actions~=3.0'``: tox installed with its CI plugin."""
    words = unwrap(without_environment(line))
    if words[:1] == ["uv"] and words[1:2] in (["pip"], ["tool"]):
        words = ["pip", *words[2:]]  # `uv pip install`, `uv tool install`
    if not words or words[0] not in _PIP_PROGRAMS or words[1:2] != ["install"]:
        return False
    names = set()
    for word in words[2:]:
        match = _NAME.match(word)
        if match and not word.startswith("-"):
            names.add(match.group(1).lower())
    return "tox" in names and bool(names & _TOX_CI_PLUGINS)


def is_contributors_install(sheet: FactSheet, line: str) -> bool:
    """CI's install a contributor makes too, though the sheet has a set-up already: tox
    with its CI plugin, or npm's clean install of the lock file the sheet installs from."""
    if installs_tox_for_ci(line):
        return True
    clean = " ".join(line.split()) in _CLEAN_INSTALLS
    return clean and sheet.sources.get("npm install") == "package.json"
