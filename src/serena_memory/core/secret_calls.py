"""A password given to a call in code (for core/secrets.py): a function whose name says it
logs in, authenticates or opens a connection (``smtp.login``, ``smtp.PlainAuth``,
``DriverManager.getConnection``, ``new PDO``, ``new NetworkCredential``, ``basic_auth``)
called with string literals, one of them after the first a user's password. The first
literal is a host, a DSN or a user, never the password, so it is not judged."""

from __future__ import annotations

import re

from serena_memory.core.secret_values import human_password

# the words a line must hold (in lower case) before its calls are read: a call's name's
# end and its parenthesis (most lines of code call none)
CALL_WORDS = ("login(", "auth(", "connect", "credential(", "pdo(")
# a call: a dotted name then its opening parenthesis (the name judged apart, not here)
_CALL = re.compile(r"\b([A-Za-z_][\w.:]{0,80})\s*\(")
# a name says it logs in or connects when it holds one of these (any case, any joiner)
_NAME_WORDS = re.compile(r"(?i)login|logon|signin|sign_in|auth|connect|credential|^(?:new\s+)?pdo$")
# a string literal, in double or single quotes, in the text after the call
_LITERAL = re.compile(r"\"([^\"\n]{0,200})\"|'([^'\n]{0,200})'")
# a literal that is a DSN, a URL or a setting, not a password
_NOT_A_PASSWORD = re.compile(r"://|=|\s|^\$\{|^%\(|^\{")


def call_password(line: str) -> bool:
    """Whether ``line`` calls a login's or a connection's function with a password among
    its string literals after the first."""
    for call in _CALL.finditer(line):
        name = call.group(1).rsplit(".", 1)[-1].rsplit(":", 1)[-1]
        if _NAME_WORDS.search(name) is None:
            continue
        literals = [a or b for a, b in _LITERAL.findall(line[call.end() : call.end() + 300])]
        if any(
            human_password(value) and _NOT_A_PASSWORD.search(value) is None
            for value in literals[1:]
        ):
            return True
    return False
