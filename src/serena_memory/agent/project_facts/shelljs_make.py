"""A ``Makefile.js``: ShellJS's make, whose targets are the functions assigned to
``target.NAME`` and are run with ``node Makefile NAME``. Their names are camelCase
(``checkRuleFiles``), so their words are read apart to tell what they do."""

from __future__ import annotations

import re

from serena_memory.agent.project_facts.commands import CAMEL
from serena_memory.agent.project_facts.files import Project
from serena_memory.agent.project_facts.names import offer_tasks

MAKEFILE_JS = "Makefile.js"
MAX_LINE = 300
_TARGET = re.compile(r"^target\.([A-Za-z]\w{0,60})\s*=")


def shelljs_targets(text: str) -> list[str]:
    """The targets a ``Makefile.js`` defines, in order."""
    found = (_TARGET.match(line) for line in text.splitlines() if len(line) <= MAX_LINE)
    return [match.group(1) for match in found if match]


def read_shelljs_make(project: Project) -> None:
    """Offer the targets by what their words say: ``checkRuleFiles`` lints."""
    text = project.text(MAKEFILE_JS)
    if text is None:
        return
    by_words = {CAMEL.sub("-", name): name for name in shelljs_targets(text)}
    offer_tasks(
        project.sheet, by_words, lambda words: f"node Makefile {by_words[words]}", MAKEFILE_JS
    )
