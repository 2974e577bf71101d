"""Secrets said in other languages than English (for core/secrets.py): a line that names a
password, a token or a user in German, French, Spanish, Portuguese, Russian, Chinese,
Japanese and a few more is read with those words in English, and its full-width
punctuation as ASCII, so the rules that find a password said in a sentence find it there.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

# the words for a password, a token, a key, a user and a login, apart by commas (matched
# in any case; the CJK ones have no case), each with its English word
_WORDS = {
    "password": (
        "passwort,kennwort,mot de passe,contraseña,contrasena,senha,пароль,密码,密碼,口令,"
        "パスワード,비밀번호,wachtwoord,lösenord,hasło,haslo,heslo,salasana,jelszó,şifre,şifresi,parola,parolası,"
        "mật khẩu,kata sandi,κωδικός,סיסמה,كلمة المرور,كلمة السر,पासवर्ड,รหัสผ่าน,adgangskode,"
        "passord,parool,slaptažodis,parole,geslo,lozinka,лозинка,парола,lösenordet,"
        "adgangskoden,passordet,wachtwoorden,"
        # the same with an article or in short: Hebrew's הסיסמה, Arabic's كلمة مرور, Korean's
        # 비번, Indonesian's sandi, Swedish's and Danish's definite forms
        "הסיסמה,סיסמא,הסיסמא,كلمة مرور,كلمة سر,비번,암호,sandi,lösenordet,kodeordet,kodeord"
    ),
    "token": "jeton,токен,令牌,トークン,토큰",
    # an access token and an API key said with the English word inside (Italian, Spanish,
    # Portuguese, French, German)
    "access token": (
        "token di accesso,token d'accesso,token de acceso,token de acesso,jeton d'accès,"
        "jeton d’accès,zugriffstoken,zugangstoken"
    ),
    "api key": (
        "chiave api,chiave dell'api,clave api,clave de api,chave api,chave de api,clé api,clé d'api"
    ),
    "secret key": "密钥,秘钥,秘密鍵,ключ,schlüssel,clé secrète,chave secreta,clave secreta",
    "key": (
        "clave,chave,chiave,clé,klucz,sleutel,nyckel,nøgle,nøkkel,avain,kulcs,anahtar,klíč,キー,키"
    ),
    "user": (
        "benutzer,benutzername,utilisateur,usuario,usuário,utente,пользователь,用户,用戶,"
        "ユーザー,사용자,utilizador,uživatel,użytkownik,kullanıcı,người dùng,pengguna,χρήστης,"
        "gebruiker,användare,bruger,bruker,käyttäjä,felhasználó"
    ),
    "login": "логин,登录,ログイン,anmeldung,identifiant",
}
# "is" as these languages say it, read only after a password's or a token's word
# (Polish "to", Czech and Croatian "je", Finnish "on")
_IS = r"ist|lautet|est|es|é|è|era|était|это|是|为|為|は|là|adalah|είναι|jest|är|er|to|je|on"
_IS += r"|היא|הוא|هي|هو|ialah|yaitu"  # (Hebrew, Arabic, Indonesian)
_FULL_WIDTH = str.maketrans(
    {"：": ": ", "（": " (", "）": ") ", "，": ", ", "。": ". ", "「": "`", "」": "`"}
)


def _alternation(words: str) -> str:
    """The words as one alternation, the longest first; a word in an alphabet that puts
    spaces between words only whole (``parola`` is not in ``parolaccia``)."""
    return "|".join(
        re.escape(word) if word[0] >= "\u3000" else rf"(?<![^\W\d_]){re.escape(word)}(?![^\W\d_])"
        for word in sorted(words.split(","), key=len, reverse=True)
    )


_WORD = re.compile(
    "(?i)" + "|".join(f"(?P<w{i}>{_alternation(words)})" for i, words in enumerate(_WORDS.values()))
)
_ENGLISH = tuple(_WORDS)
_ALL_WORDS = tuple(word for words in _WORDS.values() for word in words.split(","))
# "now" and "still" as these languages put them after their "is" ("est désormais VALUE",
# "ist jetzt VALUE"): read as part of the "is", as English's "is now VALUE" is
_NOW = (
    r"désormais|maintenant|toujours|encore|jetzt|nun|immer noch|noch|ahora|todavía|aún|"
    r"agora|ainda|adesso|ora|ancora|teraz|nadal|nu|nog|fortfarande|stadig|теперь|сейчас|"
    r"всё ещё|все ещё|sekarang|masih|şimdi|hâlâ"
)
_CONNECTOR = re.compile(rf"(?i)(?<![^\W\d_])(?:{_IS})(?![^\W\d_])(?:[ \t]+(?:{_NOW})(?![^\W\d_]))?")


# an English secret's word, then another language's "is": "El token de GitHub es VALUE",
# "La password del server è VALUE" (the word borrowed, the sentence not English; the word
# may end a name: "o CLOUDFLARE_API_TOKEN de produção é VALUE")
_SAID_ABROAD = (
    r"(?i)(?:^|[^a-z])(?:token|password|api[ _-]?key|secret)\b[^\n]{0,40}?\s"
    r"(?:es|é|è|ist|lautet|est|era|était|jest|är|adalah)\s"
)


def names_abroad(text: str) -> bool:
    """Whether ``text`` holds one of the words for a secret or a user in another language,
    or an English one said in another (one pass under RE2, quicker than the pattern's:
    most texts hold none)."""
    if _any_word().search(text) is not None:
        return True
    return any(map(text.__contains__, _ABROAD_IS)) and _said_abroad().search(text) is not None


# the other languages' "is" as a sentence holds it (most texts hold none: the pattern is
# not run)
_ABROAD_IS = tuple(f" {word} " for word in ("es", "é", "è", "ist", "lautet", "est", "era"))
_ABROAD_IS += (" était ", " jest ", " är ", " adalah ")


@cache
def _any_word() -> Any:
    from serena_memory.core.secret_tokens import linear

    return linear("(?i)" + "|".join(re.escape(word) for word in _ALL_WORDS))


@cache
def _said_abroad() -> Any:
    from serena_memory.core.secret_tokens import linear

    return linear(_SAID_ABROAD)


def in_english(line: str) -> str:
    """``line`` with the words that name a secret or a user in English and its full-width
    punctuation in ASCII; a line without such a word is returned as it is."""
    if not names_abroad(line):
        return line
    translated = _WORD.sub(_english, line)
    if translated == line and _said_abroad().search(line) is None:
        return line
    translated = _CONNECTOR.sub(" is ", translated.translate(_FULL_WIDTH))
    return re.sub(r"[ \t]{2,}", " ", translated)


def _english(match: re.Match[str]) -> str:
    index = int(str(match.lastgroup)[1:])
    return f" {_ENGLISH[index]} "
