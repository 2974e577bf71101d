"""A default password for a host beyond this machine (for core/secrets.py).

A product's default login (``admin``/``admin``, ``guest:guest``, ``postgres:postgres``) is
no secret on a developer's own machine, and the gate lets it through there. Once the text
says the host that still takes it is a named host on a network (``pg.staging.acme.app``,
``mq.prod.fintrail.net``), it is a working login to that host: anyone reading the memory
can use it. A host that is local, a container's short name, or a documentation domain
(``example.com``, ``.test``, ``.invalid``) keeps the default harmless.
"""

from __future__ import annotations

import re

# the words a product's default login is made of, with digits only after them (admin123)
_DEFAULT_LOGIN = re.compile(
    r"(?i)(?:admin|administrator|root|guest|user|postgres|mysql|mariadb|redis|mongo|mongodb"
    r"|rabbitmq|rabbit|minio|minioadmin|oracle|sa|elastic|kibana|grafana|jenkins|tomcat"
    r"|manager|operator|pass|password|test|demo|default|qwerty|letmein|welcome)+\d{0,6}"
)
# a host name's label, and the last one's letters (a public suffix); a line is cut into
# its words on what no host name holds (no pattern with nested repeats runs on it)
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
_SUFFIX = re.compile(r"[a-z]{2,24}")
_NOT_IN_HOST = re.compile(r"[^A-Za-z0-9.-]+")
# domains that name no real host: local, reserved for examples or tests, in-cluster names
_NOT_REMOTE = re.compile(
    r"(?i)(?:^|\.)(?:localhost|local|localdomain|test|invalid|example|internal|lan|home|svc"
    r"|cluster|docker|corp\.example|example\.(?:com|org|net))(?:\.|$)"
)
# file names and code read as hosts: config.yaml, values-staging.yaml, os.environ
_NOT_A_HOST_END = re.compile(
    r"(?i)\.(?:ya?ml|json|toml|ini|cfg|conf|env|py|js|ts|go|rb|java|md|txt|sh|sql|xml|lock"
    r"|log|properties|tf|php|html|csv|environ|get|getenv|key|pem|crt|io\.js)$"
)


def remote_host(host: str) -> bool:
    """Whether ``host`` names a machine on a network: a name with a domain that is no
    local, example or in-cluster one (an IP address is left to the other rules)."""
    host = host.lower().strip(".-")
    labels = host.split(".")
    if len(labels) < 2 or _SUFFIX.fullmatch(labels[-1]) is None:
        return False
    if not all(_LABEL.fullmatch(label) for label in labels) or _NOT_A_HOST_END.search(host):
        return False
    return _NOT_REMOTE.search(host) is None


def names_remote_host(line: str) -> bool:
    """Whether ``line`` names a host on a network (in a URL, in code quotes, in prose)."""
    return any(remote_host(word) for word in _NOT_IN_HOST.split(line) if "." in word)


def default_login(value: str) -> bool:
    """Whether ``value`` is a product's default login word (``admin``, ``guest``,
    ``admin123``), which is harmless only where no remote host takes it."""
    return _DEFAULT_LOGIN.fullmatch(value) is not None


# a login in code quotes in prose: `admin` / `admin`, `admin`/`admin123`, `guest:guest`
_QUOTED_LOGIN = re.compile(
    r"`([\w.@-]{2,40})`\s?/\s?`([^`\s]{2,64})`|`([\w.-]{2,40}):([^`\s:@/]{2,64})`"
)
# the words a line must hold for a quoted login's pattern to find one
QUOTED_LOGIN_WORDS = ("`",)


def default_login_for_remote_host(line: str) -> bool:
    """A default login in code quotes (```admin`/`admin```, ```guest:guest```) on a line
    that names the host on a network that takes it."""
    for match in _QUOTED_LOGIN.finditer(line):
        user, password = match.group(1, 2) if match.group(1) else match.group(3, 4)
        if default_login(user) and default_login(password) and names_remote_host(line):
            return True
    return False
