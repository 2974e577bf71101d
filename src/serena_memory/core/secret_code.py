"""A literal wrapped in code that only converts it (for core/secrets.py): Go's
``[]byte("VALUE")``, Node's ``Buffer.from("VALUE")``, .NET's
``Encoding.UTF8.GetBytes("VALUE")``, Rust's ``String::from("VALUE")``, Python's
``SecretStr("VALUE")``. The conversion changes the value's type, not the value: a key given
so is as much a literal as one given in quotes, so the line is read without it.
"""

from __future__ import annotations

import re

# a conversion's call, up to the quote that opens its literal
_CONVERSION = re.compile(
    r"(?:\[\]byte|Buffer\.from|(?:Encoding\.\w{1,12}\.)?GetBytes|String::from|bytes|bytearray"
    r"|SecretStr|SecretString|Secret::new|Uint8Array\.from|new TextEncoder\(\)\.encode"
    r"|\w{1,12}\.NewString|strings\.NewReader"
    # a decoding of the literal (base64 or hex): its text is the key
    r"|Base64\.getDecoder\(\)\.decode|base64\.b64decode|hex\.DecodeString|Convert\.FromBase64String)"
    r"\(\s{0,4}([\"'`])"
)


def unwrapped(line: str) -> str:
    """``line`` with each conversion's call around a literal taken away (its quotes kept)."""
    if "(" not in line:
        return line
    return _CONVERSION.sub(r"\1", line)
