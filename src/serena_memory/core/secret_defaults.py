"""A literal default given to a declared variable whose name is a secret's (for
core/secrets.py): Terraform's and OpenTofu's ``variable "db_password" {`` then, a few lines
below, ``default = "VALUE"``. The name and the value sit on different lines, so the
assignment rules, which read one line, never pair them; a variable marked ``sensitive``
still commits its default.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from serena_memory.core.secret_naming import secret_name
from serena_memory.core.secret_values import literal_value

# the block that declares the variable, and the default it is given
_DECLARED = re.compile(r"^\s*variable\s+\"([\w-]{1,80})\"\s*\{\s*$")
_DEFAULT = re.compile(r"^\s*default\s*=\s*\"([^\"\n]{1,200})\"\s*$")


def declared_default(above: Sequence[str], line: str) -> str | None:
    """The kind of a secret ``line`` gives as the default of the variable declared in one
    of the lines ``above`` it (nearest first, up to the block's start)."""
    default = _DEFAULT.match(line)
    if default is None:
        return None
    for previous in reversed(above):
        declared = _DECLARED.match(previous)
        if declared is not None:
            name = declared.group(1)
            if secret_name(name) and literal_value(name, default.group(1), quoted=True):
                return "value assigned to " + name
            return None
        if previous.rstrip().endswith("}"):
            return None  # another block closed: the default is not this variable's
    return None
