"""A password said to work (for core/secrets.py): ``the password VALUE works``, ``VALUE
works as the admin password``, ``Als Passwort für Keycloak funktioniert VALUE``.

A note that a password works is a note that it opens something today: it was tried. The
sentence says it in words the other rules do not read (no ``is``, no colon, no ``=``),
and in many languages (a line naming a password in another language reaches this rule
with that word in English: core/secret_languages.py; the verb is read here in each).
The value must still be shaped as a password a person set or drew (a word alone, as in
``the password reset works again``, is none).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from serena_memory.core.secret_values import human_password, is_placeholder, strong_password

# "works" in the languages core/secret_languages.py reads a password's word in
_WORKS = (
    r"works|worked|working|funktioniert|funktionierte|fonctionne|marche|funciona|funcionou"
    r"|funziona|werkt|działa|работает|сработал|fungerar|virker|fungerer|toimii|çalışıyor"
    r"|有效|可用|能用|使える|動作する|작동"
)
_PASSWORD = r"(?:password|passwd|passphrase|pw|pwd)"
# "now", "again", "still" after the verb, in the same languages
_NOW = (
    r"now|again|still|jetzt|wieder|noch|maintenant|encore|toujours|ahora|todavía|todavia"
    r"|ainda|agora|ancora|ora|nu|weer|nog|teraz|nadal|сейчас|снова|nyt|taas|artık|hâlâ"
)
_VALUE = r"[`'\"]?([^\s`'\"]{8,80})[`'\"]?"
# the password's word, a few words (whose it is), the verb, then the value: "Als password
# für Keycloak funktioniert VALUE"; the word, a few words, the value, the verb: "the
# password for the console VALUE works"; the value, the verb, the word: "VALUE works as
# the root password"
_SAID_TO_WORK = (
    rf"(?i)\b{_PASSWORD}\b[^\n.;]{{0,60}}?\s(?:{_WORKS})(?:\s+(?:{_NOW}))?"
    rf"(?:\s*[:=-]\s*|\s+){_VALUE}"
    rf"|\b{_PASSWORD}\b[^\n.;]{{0,40}}?\s{_VALUE}\s+(?:still\s+|now\s+)?(?:{_WORKS})\b"
    rf"|(?:^|\s){_VALUE}\s+(?:still\s+|now\s+)?(?:{_WORKS})\s+as\s+(?:the\s+|a\s+|its\s+)?"
    rf"(?:[\w-]+\s+)?{_PASSWORD}\b"
)
WORKS_WORDS = (
    *("work", "funktion", "fonctionne", "marche", "funcion", "funziona", "werkt", "działa"),
    *("работает", "сработал", "fungerar", "virker", "fungerer", "toimii", "çalışıyor"),
    *("有效", "可用", "能用", "使える", "動作", "작동"),
)


@cache
def _pattern() -> Any:
    from serena_memory.core.secret_tokens import linear

    return linear(_SAID_TO_WORK)


def password_works(line: str) -> bool:
    """Whether ``line`` says a password works and gives it: a strong password or one a
    person set, never a word, a placeholder or a reference."""
    for match in _pattern().finditer(line):
        value = next(group for group in match.groups() if group is not None)
        value = value.rstrip(".,;:)")
        if value.startswith(("$", "<", "{")) or is_placeholder(value):
            continue
        if strong_password(value) or human_password(value):
            return True
    return False
