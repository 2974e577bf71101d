"""Credentials given to a command or a request (for core/secrets.py): a password or token on
a command line, given to the command or the flag that takes it, and a credential in an
``Authorization`` header. A shell word is a literal, so a value here is judged as one; a
variable, a placeholder or a word in capitals saying what goes there (``PASSWORD``) is none.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from serena_memory.core.secret_naming import secret_name
from serena_memory.core.secret_public import public_token
from serena_memory.core.secret_values import (
    PUBLISHED_KEYS,
    WORDS,
    entropy,
    is_placeholder,
    literal_secret,
    literal_value,
    not_a_value,
    strong_password,
)

# credentials on a command line, each with the command that takes them (so `-p 8080` or
# `mkdir -p` is no password); the value is quoted or runs to a space
_ARG = r"('[^'\n]+'|\"[^\"\n]+\"|[^\s'\"]+)"
# Redis' AUTH's value: a password's shape (a digit or a symbol among letters), never the
# next word of a sentence (AUTH header, AUTH required)
_AUTH_ARG = r"('[^'\n]+'|\"[^\"\n]+\"|(?:[^\s'\"`]*[\d!#$%^&*~?@+][^\s'\"`]*))(?:$|[\s`'\".,;)])"
# a command that stores what it reads as a secret
_STORES_SECRET = r"\b(?:secrets?\s+(?:put|set|add|create)|env\s+add)\b"
_COMMAND_LINES = (
    # docker/podman/helm/... login, then -p or --password and the value
    rf"\blogin\b[^\n|;&]*?\s(?:-p|--password)(?:\s+|=){_ARG}",
    rf"\bsshpass\s+-p\s*{_ARG}",
    # vault login TOKEN (a legacy token, s.VALUE, has no prefix a shape finds)
    rf"\bvault\s+login\s+(?:-[\w-]+(?:=\S+)?\s+)*{_ARG}",
    # Oracle's sqlplus, export, import, rman... USER/PASSWORD@DATABASE
    r"\b(?:sqlplus|expdp|impdp|exp|imp|rman|sqlldr)\s+(?:-\w+\s+)*['\"]?[\w.$#-]+/([^\s@/'\"]+)@",
    # PowerShell's plain text made a SecureString: ConvertTo-SecureString 'VALUE' -AsPlainText
    r"(?i:\bConvertTo-SecureString)\s+(?:-String\s+)?('[^'\n]+'|\"[^\"\n]+\")",
    # a secret's setter given a literal, in any language: ds.setPassword("VALUE"),
    # client.set_api_key('VALUE'), cfg.SetToken("VALUE")
    r"(?i:\bset_?(?:password|passwd|secret|client_?secret|token|api_?key|access_?key|auth_?token))"
    r"\s*\(\s*('[^'\n]+'|\"[^\"\n]+\")",
    # MinIO's client: mc alias set NAME URL ACCESS_KEY SECRET_KEY (mc config host add ...)
    rf"\bmc\s+(?:alias\s+set|config\s+host\s+add)\s+\S+\s+\S+\s+\S+\s+{_ARG}",
    # a CI's secret set by a command: gh secret set NAME --body VALUE (the command says
    # the value is a secret, whatever its name)
    # (the value joined to -b, as a shell takes it: -b'VALUE')
    rf"\bsecrets?\s+set\s+[\w.-]+\s+(?:--[\w-]+\s+\S+\s+)*(?:--body|-b)(?:\s+|=)?{_ARG}",
    # mysql -pVALUE (a password joined to -p; `-p` alone asks for it)
    rf"\b(?:mysql\w*|mariadb\w*)\b[^\n|;&]*?\s-p{_ARG}",
    rf"\bredis-cli\b[^\n|;&]*?\s(?:-a|--pass)\s+{_ARG}",
    # Redis' AUTH command (in capitals, as its docs and a session write it), with or
    # without an ACL user: AUTH VALUE, AUTH USER VALUE (the value judged as a password)
    rf"(?:^|[\s`>;(])AUTH\s+(?:[\w.@-]{{1,64}}\s+)?{_AUTH_ARG}",
    rf"\b(?:sqlcmd|bcp|osql)\b[^\n|;&]*?\s-P\s*{_ARG}",
    # ldapsearch, ldapmodify... -w BIND_PASSWORD; Vertica's vsql -w PASSWORD
    rf"\b(?:ldap\w+|vsql)\b[^\n|;&]*?\s-w\s*{_ARG}",
    # a value written into a file its name says holds a secret: echo VALUE > ~/.vault_pass
    r"\b(?:echo|printf)\s+(?:-n\s+)?('[^'\s]+'|\"[^\"\s]+\"|[^\s'\"|>]+)\s*>>?\s*"
    r"[\w~./-]*(?:pass|secret|token|cred|key)[\w.-]*(?:\s|$|&)",
    # rabbitmqctl add_user USER VALUE, htpasswd -b [FILE] USER VALUE, ssh-keygen -P VALUE
    rf"\brabbitmqctl\s+(?:add_user|change_password)\s+\S+\s+{_ARG}",
    rf"\bhtpasswd\s+(?:-\w+\s+)*-\w*b\w*\s+(?:-\w+\s+)*(?:\S+\s+)?\S+\s+{_ARG}",
    rf"\bssh-keygen\b[^\n|;&]*?\s-[PN]\s*{_ARG}",
    # keytool -storepass VALUE, zip -P VALUE, 7z -pVALUE, psexec -p VALUE, net use
    # /user:USER VALUE, sudo -S <<< VALUE
    rf"\bkeytool\b[^\n|;&]*?\s-(?:src|dest)?(?:store|key)pass\s+{_ARG}",
    rf"\bzip\b[^\n|;&]*?\s-P\s+{_ARG}",
    rf"\b7za?\b[^\n|;&]*?\s-p{_ARG}",
    rf"\bpsexec\b[^\n|;&]*?\s-p\s+{_ARG}",
    rf"\bnet\s+use\b[^\n|;&]*?\s/user:\S+\s+{_ARG}",
    rf"\bnet\s+use\s+(?:[A-Za-z]:\s+)?\\\\\S+\s+{_ARG}\s+/user:",
    # MongoDB's shell -p VALUE, ApacheBench -A USER:VALUE
    rf"\bmongo(?:sh)?\b[^\n|;&]*?\s(?:-p|--password)\s+{_ARG}",
    rf"\bab\b[^\n|;&]*?\s-A\s+[^\s:'\"]+:{_ARG}",
    # Windows' flags: xfreerdp /p:VALUE, schtasks /rp VALUE; net user USER VALUE /add;
    # rdesktop -p VALUE
    # (not MSBuild's /p:Name=Value, a property)
    r"(?:^|\s)/(?:p|pass|password|pwd):('[^'\n]+'|\"[^\"\n]+\"|[^\s'\"=]+)(?:\s|$)",
    rf"\bschtasks\b[^\n|;&]*?\s/rp\s+{_ARG}",
    rf"\bnet\s+user\s+\S+\s+{_ARG}\s+/(?:add|domain|active)",
    rf"\brdesktop\b[^\n|;&]*?\s-p\s+{_ARG}",
    # SQL: MySQL's IDENTIFIED BY 'VALUE', SQL Server's WITH PASSWORD = N'VALUE'
    r"(?i)\bidentified\s+(?:with\s+\w+\s+)?by\s+N?'([^'\n]+)'",
    r"(?i)\bidentified\s+(?:with\s+\w+\s+)?by\s+N?\"([^\"\n]+)\"",
    r"(?i)\bwith\s+password\s*=\s*N?'([^'\n]+)'",
    rf"\bsudo\s+-S\b[^\n|;&]*?<<<\s*{_ARG}",
    # a password piped to sudo, which reads it from its input: echo VALUE | sudo -S ...
    rf"\becho\s+(?:-n\s+)?{_ARG}\s*\|\s*sudo\s+(?:-\w+\s+)*-S\b",
    # Poetry's repository login and token: poetry config http-basic.REPO USER VALUE
    rf"\bpoetry\s+config\s+(?:http-basic\.\S+\s+\S+|pypi-token\.\S+)\s+{_ARG}",
    # echo VALUE | docker login ... --password-stdin; a value piped or given as a here-string
    # to a command that stores a secret: wrangler secret put, vercel env add, gh secret set
    rf"\becho\s+(?:-n\s+)?{_ARG}\s*\|[^\n]*(?:--password-stdin|{_STORES_SECRET})",
    rf"{_STORES_SECRET}[^\n|;&]*<<<\s*{_ARG}",
    # smbclient -U 'DOMAIN\\user%password'
    r"\s-U\s*['\"]?[^\s%'\"]+%([^\s'\"]+)",
    # a user flag then a password flag, as MQTT, FTP and database clients take them:
    # mosquitto_pub -u USER -P VALUE (the user named first: `-P` alone may be a port)
    rf"\s(?:-u|--username)[ =]\S+\s+(?:-[A-Za-z]\s+\S+\s+)?-[pP]\s+{_ARG}",
    # IPMI's clients take the BMC's password after -P (ipmitool -U USER -P VALUE); OpenSSL's
    # enc takes a passphrase after -k (its key in hex after -K); unzip takes one after -P,
    # PuTTY's plink and pscp after -pw, Net-SNMP's v3 tools their passphrases after -A, -X
    rf"\bipmi(?:tool|util)\b[^\n|;&]*?\s-P\s+{_ARG}",
    rf"\bopenssl\s+(?:enc|aes[\w-]*|des[\w-]*|bf[\w-]*|camellia[\w-]*)\b[^\n|;&]*?\s-[kK]\s+{_ARG}",
    rf"\bunzip\b[^\n|;&]*?\s-P\s+{_ARG}",
    rf"\b(?:plink|pscp|psftp|putty)\b[^\n|;&]*?\s-pw\s+{_ARG}",
    rf"\bsnmp\w+\b[^\n|;&]*?\s-[AX]\s+{_ARG}",
    # openssl -passin pass:VALUE
    r"\s-pass(?:in|out)?\s+pass:([^\s'\"]+)",
    # curl -u USER:VALUE, httpie -a USER:VALUE, bundle config HOST USER:VALUE, lftp -u
    # USER,VALUE; the value may be quoted on its own (curl -u ci:'VALUE')
    r"(?:\s(?:-u|--user|-a|--auth)[ =]?|\bbundle config\s+(?:set\s+)?(?:--\w+\s+)?"
    rf"[\w.-]+\.[a-z]{{2,}}\s+)['\"]?[^\s:,'\"@$<]+[:,]{_ARG}",
)
# a line can hold a rule's credential only if it holds one of these (in lower case): a
# flag (-p covers mysql, sqlcmd, sshpass, ssh-keygen -P and openssl -passin), or a command
# that takes a password without one
COMMAND_WORDS = (
    *("--", "-p", "-u", "-a ", "-w", "%", "login", "rabbitmqctl", "htpasswd", "bundle config"),
    *("/user:", "<<<", "keytool", "mc alias", "mc config", "sqlplus"),
    *("exp ", "expdp", "imp ", "impdp", "rman", "sqlldr"),
    *("secret set", "secrets set", "secret put", "secrets put", "env add", "secret add"),
    *("/p:", "/pass", "/pwd:", "/rp", "net user", "identified", "with password"),
    *("sudo -s", "poetry config", "-k ", "-x ", "auth "),
    *("echo ", "printf "),
    *("convertto-securestring", "setpassword", "set_password", "setsecret", "set_secret"),
    *("settoken", "set_token", "setapikey", "set_api_key", "setclientsecret", "set_client_secret"),
    *("setaccesskey", "set_access_key", "setauthtoken", "set_auth_token"),
)
# a long flag and its value (`--account-key VALUE`, `--password=VALUE`, `--dest-creds
# user:VALUE`): a secret when the flag's name is a secret's (core/secret_values.py); one
# space only, as a command is typed (a help text sets its flags' descriptions apart)
_FLAG = r"(?:^|[\s(])--([A-Za-z][\w-]{0,60})(?: |=)('[^'\n]+'|\"[^\"\n]+\"|[^\s'\"-]\S*)"
# a flag's value that is a list of settings, not the secret: --secret id=npmrc,src=FILE
_SETTINGS = re.compile(r"^[a-z][a-z_-]{0,30}=[^=]")


# a credential in a header: after Bearer or Basic, or after `Authorization:` and any
# scheme (Token, ApiKey, Bot...) or none
_HEADER_CREDENTIAL = (
    r"(?i)(?:\b(?:bearer|basic)\s+|\bauthorization[\"']?\s*[:=]\s*[\"']?"
    r"(?:[a-z][\w-]{0,30}\s+)?)([A-Za-z0-9._~+/-]{20,}=*)"
)


@cache
def _patterns() -> tuple[Any, Any]:
    """The command-line rules and the flags' as one RE2 pattern (the flags' two groups
    last), and the header's: time linear in the line's length."""
    from serena_memory.core.secret_tokens import linear

    commands = linear("|".join(f"(?:{pattern})" for pattern in (*_COMMAND_LINES, _FLAG)))
    return commands, linear(_HEADER_CREDENTIAL)


def _given(value: str) -> bool:
    """Whether a value given on a command line is a literal credential, not a variable, a
    placeholder, an option or what goes there in capitals (``-p PASSWORD``)."""
    value = value.strip("'\"`").rstrip(",.;:)`")
    return (
        len(value) >= 6
        and not re.fullmatch(r"[A-Z][A-Z_]*", value)
        and not is_placeholder(value)
        and not value.startswith(("$", "<"))
        and (not value.startswith(("%", "-")) or _led_by_sign(value))
        and not WORDS.fullmatch(value)
        and not not_a_value(value, quoted=True)
        and not _SETTINGS.match(value)
    )


# what a value led by `%` or `-` is when no password: a Windows variable (%APPDATA%), a
# character URL-encoded (%40), a flag (-e, --force, -Dname=value)
_SIGN_NOT_PASSWORD = re.compile(r"%\w+%.*|%[0-9A-Fa-f]{2}.*|--.*|-[A-Za-z][\w-]*(?:=.*)?")


def _led_by_sign(value: str) -> bool:
    """Whether a value led by ``%`` or ``-`` is a password that starts with the sign (a
    generator draws them too: ``-eLgo9n5CJj9...``, ``%WigWLO47dMo...``), not a variable, an
    encoded character nor the next flag: drawn at random, with a password's symbol or
    both cases and digits after the sign."""
    from serena_memory.core.secret_drawn import random_looking

    if _SIGN_NOT_PASSWORD.fullmatch(value) and not _SIGN_SYMBOL.search(value[1:]):
        return False
    return strong_password(value, quoted=True) and random_looking(value[1:])


_SIGN_SYMBOL = re.compile(r"[!#$%^&*~?@+]")


def command_line(line: str) -> bool:
    """A password or token given on a command line: to the command that takes it
    (``mysql -pVALUE``, ``curl -u user:VALUE``) or to a flag naming a secret."""
    for match in _patterns()[0].finditer(line):
        *commands, flag, value = match.groups()
        if flag is not None and _flag_secret(flag, value):
            return True
        given = next((group for group in commands if group is not None), None)
        if given is not None and _given(given):
            return True
    return False


def _flag_secret(flag: str, value: str) -> bool:
    """Whether a flag's value is a secret: the flag names one (``--account-key``,
    ``--dest-creds``) and the value is a literal password or a secret value, not a key's
    id (``--recv-keys 8E01AEAD2F125B58``, quoted in prose: ``--recv-keys 8E01...58`.``)."""
    bare = value.strip("'\"`").rstrip(",.;:)").strip("'\"`")
    return (
        secret_name(flag)
        and _given(value)
        and (strong_password(bare, quoted=True) or literal_value(flag, bare, quoted=True))
    )


# a password given in code as a pair: requests' auth=("user", "VALUE"), HTTPBasicAuth("user",
# "VALUE"), BasicAuth("user", "VALUE")
_AUTH_PAIR = re.compile(
    r"(?:\bauth\s*=\s*\(|BasicAuth\()\s*[\"'][^\"'\n]{1,80}[\"']\s*,\s*[\"']([^\"'\n]{6,200})[\"']"
)


def auth_pair(line: str) -> bool:
    """A literal password in a user and password pair given to an HTTP client."""
    return any(
        strong_password(match.group(1), quoted=True) or literal_secret(match.group(1), quoted=True)
        for match in _AUTH_PAIR.finditer(line)
    )


def header_credential(line: str) -> bool:
    """A credential after ``Bearer``, ``Basic`` or ``Authorization:``: long and varied, not
    a placeholder nor a word."""
    for match in _patterns()[1].finditer(line):
        value = match.group(1)
        published = value.endswith(tuple(PUBLISHED_KEYS))  # (jwt.io's sample, signed)
        # (a JWT no one can use: jwt.io's sample claims, an anon key, unsigned)
        published = published or (value.startswith("eyJ") and public_token("JSON Web Token", value))
        if is_placeholder(value) or _placeholder_login(value) or published:
            continue
        if entropy(value) >= 3.5 and not WORDS.fullmatch(value):
            return True
    return False


def _placeholder_login(value: str) -> bool:
    """Whether a Basic credential decodes to a placeholder login (``username:password``, as
    documentation shows the header)."""
    import base64
    import binascii

    try:
        decoded = base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    _, colon, password = decoded.partition(":")
    return bool(colon) and is_placeholder(password)


# the cookies a request sends or a response sets: `Cookie: theme=dark; session=VALUE`,
# `curl -b 'sid=VALUE'`
_COOKIES = re.compile(
    r"(?i)(?:\b(?:set-)?cookie[\"']?\s*:\s*|\s(?:-b|--cookie)\s+[\"']?)([^\n\"'`]{1,4000})"
)
_COOKIE = re.compile(r"([\w.%-]{1,80})=([^;,\s]{16,})")
# cookies that hold no login: analytics, consent, preferences, a CSRF token
_PLAIN_COOKIE = re.compile(
    r"(?i)csrf|xsrf|^_g[aci]|^_fb|^_hj|^ajs_|^amplitude|^mp_|^optimizely|^utm|consent|theme"
    r"|lang|locale|timezone|^tz$"
)


def cookie_credential(line: str) -> bool:
    """A cookie that holds a session, sent in a request or set by a response: a random
    value under any name but those of analytics, consent, preferences and CSRF tokens."""
    for cookies in _COOKIES.finditer(line):
        for name, value in _COOKIE.findall(cookies.group(1)):
            if _PLAIN_COOKIE.search(name) or is_placeholder(value):
                continue
            if entropy(value) >= 3.5 and literal_secret(value, quoted=True):
                return True
    return False


_UUID = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
# a session cookie given by its name anywhere, as a browser's tools copy it: the session
# cookies of servers and frameworks (Express, Java, PHP, ASP.NET, Laravel, Django, Rails,
# NextAuth) and any name ending in _session or _sess
_SESSION_COOKIE = re.compile(
    r"(?i)(?<![\w.-])(connect\.sid|jsessionid|phpsessid|asp\.net_sessionid|aspsessionid\w{0,12}"
    r"|(?:__secure-)?next-auth\.session-token|sessionid|session_id|session|sid|\w{1,40}_sess(?:ion)?)"
    r"=([^\s;,'\"`]{16,400})"
)


def session_cookie(line: str) -> bool:
    """A session cookie by its name with a random value (a signed Express session, a Java
    or PHP session's id): whoever holds it is logged in."""
    for match in _SESSION_COOKIE.finditer(line):
        value = match.group(2)
        if is_placeholder(value) or not_a_value(value, quoted=True) or _UUID.fullmatch(value):
            continue  # (a UUID: a page's or an embed's id, `?sid=UUID`, as often as a session)
        if match.group(1).lower() == "sid" and line[match.start() - 1 : match.start()] in "?&":
            continue  # a query's sid: a share's or a tracking id
        letters = sum(c.isalpha() for c in value)
        digits = sum(c.isdigit() for c in value)
        if letters >= 4 and digits >= 3 and len(set(value)) >= 10 and entropy(value) >= 3.3:
            return True
    return False


# a short flag that takes a token by convention (`-t` in codecov, influx, the Twilio CLI;
# `--api` in Algolia's), then a value in a token's shape
_TOKEN_FLAG = re.compile(r"(?:^|\s)(?:-t|--api|--api-token)[ =]['\"]?([A-Za-z0-9_+/=.-]{24,300})")
TOKEN_FLAG_WORDS = ("-t ", "-t=", "--api")
_UUID_OR_HEX = re.compile(
    r"[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}|[0-9a-f]{32}|[0-9a-f]{48,}", re.IGNORECASE
)


def token_flag(line: str) -> bool:
    """A token given to a short flag that takes one: a UUID, 32 hex digits or more (never
    a commit's 40), or a value drawn at random; a tag, a target or a name is none."""
    from serena_memory.core.secret_drawn import random_looking

    for match in _TOKEN_FLAG.finditer(line):
        value = match.group(1).rstrip(".,;")
        if is_placeholder(value) or re.fullmatch(r"[0-9a-f]{40}", value):
            continue
        if _UUID_OR_HEX.fullmatch(value) or random_looking(value):
            return True
    return False
