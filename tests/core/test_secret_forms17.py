"""The secret gate's seventeenth round, false alarms first: key material kept encrypted
(any format) without its passphrase, a key's id or SID or a public key alone, a value
that names where a secret is kept (a credential loader's file, a provider's lookup, a
password manager), a published development key or sample token, a placeholder in any
templating syntax and a key said to ship to every visitor are accepted; then secrets said
in other languages, given to a command's or a setter's password argument, or joined into
a memory's name are refused. Values are made up."""

from __future__ import annotations

import base64

import pytest

from serena_memory.core import secrets

_BODY = (
    "MIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQIq7Vx2LmPz9sCAggA\n"
    "MAwGCCqGSIb3DQIJBQAwFAYIKoZIhvcNAwcECL3mTz8QpWn4BIIEyHf2kLq9XmZr\n"
    "Vb7Jc4dNp1sQwT8yUa6Ge3KoLh5MiRx2EzCv9BnFt0Dj4Ws7YqPg1Hu8Ia5Xe3Zl\n"
)
_ENCRYPTED_PKCS8 = (
    "-----BEGIN ENCRYPTED PRIVATE KEY-----\n" + _BODY + "-----END ENCRYPTED PRIVATE KEY-----"
)
_ENCRYPTED_PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n"
    "DEK-Info: AES-256-CBC,4F1C2B9A7D3E5F60718293A4B5C6D7E8\n\n"
    + _BODY
    + "-----END RSA PRIVATE KEY-----"
)
_PUTTY_ENCRYPTED = (
    "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: aes256-cbc\nComment: ops@bastion\n"
    "Key-Derivation: Argon2id\nPublic-Lines: 2\n"
    "AAAAC3NzaC1lZDI1NTE5AAAAIKq7Vx2LmPz9sCAggAMAwGCCqGSIb3DQ\nIJBQAwFAYI\n"
    "Private-Lines: 1\nVb7Jc4dNp1sQwT8yUa6Ge3KoLh5MiRx2EzCv9BnFt0Dj4Ws7YqPg1Hu8\n"
    "Private-MAC: 5d1c0e7a9b3f2e4d6c8a0b1f3e5d7c9a1b3d5f7e9c0a2b4d6f8e0a1c3e5b7d9f"
)


def _openssh(cipher: bytes) -> str:
    """An OpenSSH key whose body names ``cipher`` (made up past its header)."""
    raw = b"openssh-key-v1\0" + len(cipher).to_bytes(4, "big") + cipher + b"\0\0\0\4bcrypt"
    body = base64.b64encode(raw + bytes(range(7, 100, 3))).decode()
    return (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + "\n".join(body[i : i + 70] for i in range(0, len(body), 70))
        + "\n-----END OPENSSH PRIVATE KEY-----"
    )


@pytest.mark.parametrize(
    "text",
    [
        # key material kept encrypted, its passphrase not given
        _ENCRYPTED_PKCS8,
        _ENCRYPTED_PEM,
        _PUTTY_ENCRYPTED,
        _openssh(b"aes256-ctr"),
        # a credential loader's file, a provider's lookup, a build's filter token
        "[Service]\nLoadCredential=stripe_api_key:/etc/credstore/stripe_api_key\n"
        "Environment=STRIPE_API_KEY_FILE=%d/stripe_api_key",
        "admin_password = $__file{/run/secrets/grafana_admin}",
        "bind_password = '$__vault{ldap:bind_password}'",
        "app.jwt.secret=@jwt.signing.secret@",
        "Cache keys: `session:{user_id}:{device}`, `token:revoked:{jti}`",
        "WEBHOOK=https://chat.googleapis.com/v1/spaces/SPACE/messages?key=KEY&token=TOKEN",
        # a password manager as the place, a key's file by its name
        "| Jenkins | https://ci.corp.dev | deploy | 1Password: Infra/Jenkins |",
        "signing key: AuthKey_Q7XK2M9P4L.p8 is in the release bucket",
        # a key's SID or a public key alone
        "TWILIO_API_KEY_SID=SK5e0d1c2b3a49f8e7d6c5b4a3928170ff  # the secret is only in Vault",
        "node key: nodekey:7a1f3e9c2b5d8e0f4a6c1b3d5e7f9a0c2e4b6d8f0a1c3e5b7d9f1a3c5e7b9d1f",
        # a published development key, jwt.io's sample claims whatever the signature
        "DEPLOYER_KEY=0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
        "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0"
        "NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.Zm9vYmFyYmF6cXV4cXV1eHh4eXl5"
        "enp6MTIzNDU2Nzg5' http://localhost:8080/me",
        "otpauth://totp/Example:alice@google.com?secret=JBSWY3DPEHPK3PXP&issuer=Example",
        # a browser's key said to reach every visitor, a docs sample
        "RUDDERSTACK_WRITE_KEY_WEB=Xk29LmQp7RtVb3NcWz8YhJd4  # web snippet, visible in page source",
        "https://hooks.zapier.com/hooks/catch/123456/abcdef/  (sample from Zapier docs)",
    ],
)
def test_a_lookalike_of_the_seventeenth_round_is_accepted(text: str) -> None:
    assert not secrets.scan(text)
    if "\n" not in text:
        assert not secrets.scan_name(text)


@pytest.mark.parametrize(
    "text",
    [
        # encrypted key material with its passphrase beside it, a key in the clear
        _ENCRYPTED_PKCS8 + "\npassphrase: Tundra-marble58%",
        _openssh(b"none"),
        # a password said in other languages
        "Inloggning Grafana: ops / lösenord Falcon_4821.Ty",
        "Lösenordet till Jenkins i test är Harbor7716.Kel (användare deploy).",
        "Grafana 접속 정보: 아이디 ops, 비번 Velvet-Otter-58-river",
        "Login Jenkins UI: ops / sandi Ombak_5520~Lr",
        "הסיסמה למשתמש ops בשרת היא Qm7Lx2Vr9Tk4Wp8Zc3",
        "كلمة مرور لوحة الإدارة: 8Tq4Lm2Xv+Pw9Rz",
        # a password given to a command's or a setter's argument
        "mysqladmin -u root -p'vT8kLq2mX_r9Zw=4Fp' -h db.corp.lan status",
        "sqlplus 'system/Qx7$Lm2Vr9Kp@//ora.corp.lan:1521/ORCL'",
        "$pw = ConvertTo-SecureString 'Tq8*Lm2Vx#9Rk' -AsPlainText -Force",
        'pool.setPassword("Vk8mLq2Xz9Rt4Wp7Nc3Jh6Bf");',
        "client.set_api_key('Zr8Tq2Lm7Vx4Kp9Wc3Nh6Jb')",
        # a public IP is no public key
        "docker run -e POSTGRES_PASSWORD='Birch.meadow42#' -p 5432:5432 postgres  # (public IP)",
    ],
)
def test_a_secret_of_the_seventeenth_round_is_refused(text: str) -> None:
    assert secrets.scan(text)
    if "\n" not in text:
        assert secrets.scan_name(text)


@pytest.mark.parametrize(
    "name",
    [
        "wifi-lab-harbor-maple-Quartz-37-ember",
        "creds/jenkins-svc_deploy-Tomavirelu7K",
        "prod/mysql:app:Harbor2025!@db-main",
        "mfa-seed-KRSXG5CTMVRXEZLUKN2XAZLSNFZQ",
        "secrets/hmac-signing-4f1c2b9a7d3e5f60718293a4b5c6d7e84f1c2b9a7d3e5f60718293a4b5c6d7e8",
    ],
)
def test_a_login_joined_into_a_name_is_refused(name: str) -> None:
    assert secrets.scan_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "wifi-office-guest-network-setup",
        "mfa/totp-enrollment-steps",
        "creds/where-grafana-admin-lives",
        "secrets/vault-paths-cheatsheet",
    ],
)
def test_a_name_about_logins_is_accepted(name: str) -> None:
    assert not secrets.scan_name(name)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Le mot de passe de l'admin Grafana est désormais Pelican7!Orage", True),
        ("Le mot de passe de l'admin Grafana est maintenant Pelican7!Orage", True),
        ("Das Passwort des Admins ist jetzt Pelican7!Orage", True),
        ("La contraseña del panel es ahora Pelican7!Orage", True),
        ("Le mot de passe est désormais stocké dans Vault", False),
        ("Das Passwort ist jetzt im Tresor unter infra/grafana", False),
    ],
)
def test_now_after_another_languages_is_reads_as_in_english(text: str, secret: bool) -> None:
    """A fresh user's French "est désormais VALUE" was written where "is now VALUE" was not."""
    assert bool(secrets.scan(text)) is secret


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (
            "Alerts post to https://hooks.slack.com/services/T0ABCDEFG/B0ABCDEFG/"
            "AbCdEfGhIjKlMnOpQrStUvWx here.",
            "Slack webhook URL",
        ),
        (
            'aws_secret_access_key = "q8Hf2LmZr7Tn0VbXk3JwP9sYc4GdE1aUo6NiRtW5"',
            "AWS secret access key",
        ),
    ],
)
def test_a_refusal_names_the_secret_as_a_person_knows_it(text: str, kind: str) -> None:
    """detect-secrets calls a webhook's address a "Slack Token" and a secret access key an
    "AWS Access Key"; the refusal's placeholder is made from the name, so a person would
    put `<slack-token>` where a webhook URL goes."""
    assert [f.kind for f in secrets.scan(text)] == [kind]


def test_a_refusal_names_every_line_that_holds_a_secret_with_its_placeholder() -> None:
    """It named the first line and "(and 1 more line(s))": a person replaced line 5, wrote
    again, and was refused for line 6 with another placeholder."""
    text = (
        "[default]\n\nregion = eu-west-1\noutput = json\n"
        "aws_access_key_id = AKIA4QZX7RTY2MNB8WPL\n"
        'aws_secret_access_key = "q8Hf2LmZr7Tn0VbXk3JwP9sYc4GdE1aUo6NiRtW5"\n'
    )
    found = secrets.scan(text)
    assert [f.line for f in found] == [5, 6]
    said = secrets.refusal("ops/aws", found, person=True)
    assert "line 5 (AWS Access Key), line 6 (AWS secret access key)" in said
    assert "(<aws-access-key>, <aws-secret-access-key>)" in said
    assert "if they are not secrets" in said
