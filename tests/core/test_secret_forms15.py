"""The secret gate's fifteenth round: secrets as people paste them that the gate let
through (Redis' AUTH, a password led by ``%`` or ``-``, a password said to work, a
password quoted for a machine, a product's default login said to be still in use, a New
Relic insert key of both cases, a Beamer key, passwords joined into a memory's name), and
look-alikes that must stay accepted. Each secret was let through before. Values here are
made up, none is a real credential."""

from __future__ import annotations

import pytest

from serena_memory.core import secrets


@pytest.mark.parametrize(
    "text",
    [
        # Redis' AUTH command, with or without an ACL user
        "Cache on cache-2.corp.lan: `AUTH Quartz#8812quartz` first.",
        "redis AUTH Wm7$pLq2!zXr9Tk (session store)",
        "127.0.0.1:6379> AUTH app Lk3^vBn8#Qwz",
        # a password a generator started with `%` or `-`
        "docker login -u ci-bot -p %Tq82LmZpW0rXa7Kd registry.corp.dev",
        "`curl -u deploy:-Rk2v8PzQm*Lx4+Nf https://ci.corp.dev/api/ping`",
        "redis-cli -h cache.corp.dev -a %Vb7qLm2!Xz9Kw4Pe ping",
        # a password said to work, in English and in other languages
        "the password for the console Lantern#4471 works",
        "Of the passwords we tried only Cobalt!9920x works as the root password",
        "Als Passwort für das Grafana-Admin-Konto funktioniert mP7!qXz2LwKe9.",
        "Als Passwort für den NAS funktioniert jetzt Kq8!mZx2Lw.",
        "Comme mot de passe pour le VPN fonctionne Hq2#vLpw8Zk",
        "Como contraseña para el FTP funciona Rk9$mWq2xPz",
        "Als wachtwoord voor de NAS werkt Gv5#nQp2Lx",
        # a password quoted as a machine's or a service's
        "sudo password on the deploy box is `foxglove`.",
        "The Wi-Fi password for the lab is 'marigold'",
        # a product's default login said to be still in use
        "The QA Jenkins still runs with admin / admin, nobody changed it.",
        "RabbitMQ on mq-7 is still guest:guest and reachable from the VPN.",
        "Printer panel creds: Admin / canon (still default on floor 3).",
        "Oracle in the test rack still has SYSTEM/manager and the app uses it.",
        "Kibana: login elastic, password elastic — never changed the default.",
        "sftp.partner.io, user `export`, password same as the user name. Still used nightly.",
        "Tomcat on old-app-2: tomcat / t0mcat",
    ],
)
def test_a_secret_of_the_fifteenth_set_is_refused(text: str) -> None:
    assert secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [
        "Sending metrics again: the runner now holds NRII-9naHVck6p-d4ZRj2SxphvDTwrzqwo72n.",
        "- beamer: `b_k2j4h5g6f7d8s9a0q1w2e3r4t5y6u7i8o9p0l1k2j3h4`",
    ],
)
def test_a_provider_key_of_its_documented_shape_is_refused(text: str) -> None:
    assert secrets.scan(text)


@pytest.mark.parametrize(
    "name",
    [
        "ops/db_password_MaplePrairie7730",
        "infra/db_password_Cedar-Harbor2291",
        "setup/wifi_password_Ember_Falcon518",
        "staging_db_password_tXwk-pz71",
        "cache-auth-QRTV2281mxla!",
        "db/mysql-url-app_Meadow@5521river_db.internal",
    ],
)
def test_a_password_joined_into_a_name_is_refused(name: str) -> None:
    assert secrets.scan_name(name)


@pytest.mark.parametrize(
    "text",
    [
        # AUTH as a word, a placeholder or a variable
        "AUTH header required for the v2 endpoints",
        "AUTH <password>",
        "redis AUTH $REDIS_PASSWORD before the first command",
        # a sign that leads a variable, an encoded character or the next flag
        "docker login -u bot -p %REGISTRY_TOKEN% registry.corp.dev",
        "curl -u ops:%40team https://ci.corp.dev",
        "mysql -u root -p -e 'SHOW DATABASES'",
        # a password's word and "works" without a password
        "the password reset works again after the fix",
        "password login works now, SSO next week",
        "La contraseña de staging funciona: <your-password>",
        # a password for a place that is a default, a placeholder or a reference
        "The default password for the demo is `demo`",
        "the password for staging is `$STAGING_PW`",
        "The password of the keystore is `changeit`",
        "the password for the jenkins user is `admin`",
        # an account paired with what is no password, or a default no longer in use
        "The admin/settings page still loads slowly.",
        "root/src is still the source folder",
        "We still use admin:read scopes for the bot",
        "The files are still owned by root:root",
        "Grafana's default login is admin / admin; change it on first login.",
        "login admin, password <your-password> — still unchanged",
    ],
)
def test_a_lookalike_of_the_fifteenth_set_is_kept(text: str) -> None:
    assert not secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [
        "Set `NEW_RELIC_INSERT_KEY` to `NRII-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx`",
        "beamer: b_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "the b_k2j4h5g6f7d8s9a0q1w2e3r4t5y6u7i8o9p0l1k2j3h4 column of the export",
    ],
)
def test_a_provider_key_slot_is_kept(text: str) -> None:
    assert not secrets.scan(text)


@pytest.mark.parametrize(
    "name",
    [
        "db_password_Rotation_Plan2024",
        "password_ResetFlow12",
        "password-Jira-Ticket123",
        "password_HelmChart3",
        "password_gRPC-v2",
        "password_iOS17-build",
        "redis-auth-setup",
        "auth-flow-v2",
        "db-url-alice@acme.com",
    ],
)
def test_a_name_about_a_password_is_kept(name: str) -> None:
    assert not secrets.scan_name(name)
