"""Assignments inside a template's expression (for core/secrets.py): what a templating
language evaluates is code, never a literal. ``{{ required "apiToken" .Values.apiToken }}``
(Helm), ``{{resolve:secretsmanager:MySecret:SecretString:password}}`` (CloudFormation),
``{% set token = vault_token %}`` (Jinja), ``#{Octopus.Token}`` and ``<%= ENV['X'] %>``
(ERB) hold names and lookups; a shell's ``${NAME:?message}`` gives an error's message.
"""

from __future__ import annotations

# a template's expression opened and closed by these marks
_EXPRESSIONS = (("{{", "}}"), ("{%", "%}"), ("#{", "}"), ("<%", "%>"), ("[[", "]]"))


def inside_template(line: str, at: int, value: str) -> bool:
    """Whether the name at ``at`` on ``line`` stands inside a template's expression still
    open there, or is a shell parameter's name whose ``value`` is the message its
    expansion fails with (``${TOKEN:?must be set}``) or its alternate (``${X:+...}``)."""
    for opened, closed in _EXPRESSIONS:
        start = line.rfind(opened, max(0, at - 200), at)
        if start != -1 and line.find(closed, start + len(opened), at) == -1:
            return True
    return line[max(0, at - 2) : at] == "${" and value.lstrip("\"'`")[:1] in ("?", "+")
