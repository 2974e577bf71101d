"""The secret gate's ninth round: secrets as people paste them that the gate let through
(a password said in Polish, Czech, Finnish or Turkish with that language's "is" or its
inflected word), and look-alikes it refused. Each secret was let through before. Values
here are made up, none is a real credential."""

from __future__ import annotations

import pytest

from serena_memory.core import secrets


@pytest.mark.parametrize(
    "text",
    [
        "Hasło do konta serwisowego w LDAP to lantern493#",
        "Heslo k FTP dodavatele je orchard551#",
        "Salasana tuotantokannan käyttäjälle app on Harbor7!2019",
        "Jenkins yönetici şifresi Pebble#2020q olarak değiştirildi.",
    ],
)
def test_a_password_said_in_another_language_is_refused(text: str) -> None:
    assert secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [
        "Hasło do konta serwisowego w LDAP to jest w sejfie",
        "Salasana on tallessa Vaultissa, kysy Annalta",
    ],
)
def test_a_sentence_about_a_password_in_another_language_is_kept(text: str) -> None:
    assert not secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [
        'smtp.login("alerts@example.org", "harbor417!")',
        'auth := smtp.PlainAuth("", "noreply@example.org", "Lantern2016#", "smtp.example.org")',
        'var c = DriverManager.getConnection("jdbc:postgresql://db/l", "ledger", "Qu1nc3#pear");',
        "$pdo = new PDO('mysql:host=db;dbname=crm', 'crm', 'walnut618@');",
        'var cred = new NetworkCredential("svc_reports", "Otter9meadow!", "CORP");',
        'let c = Client::builder().basic_auth("ingest", Some("7$tone$9-db")).build()?;',
    ],
)
def test_a_password_given_to_a_login_call_in_code_is_refused(text: str) -> None:
    assert secrets.scan(f"```\n{text}\n```")


@pytest.mark.parametrize(
    "text",
    [
        'smtp.login("alerts@example.org", os.environ["SMTP_PASSWORD"])',
        'var c = DriverManager.getConnection(url, "ledger", "${DB_PASSWORD}");',
        'conn = connect("db-01.internal", "orders", "readonly")',
    ],
)
def test_a_login_call_without_a_literal_password_is_kept(text: str) -> None:
    assert not secrets.scan(f"```\n{text}\n```")


@pytest.mark.parametrize(
    "text",
    [
        "The export from payroll is encrypted with Falcon#1983",
        "Grafana admin user -> Walrus2021#",
        "For the partner SFTP use login `acme_drop` with Pepper2017#",
        "Wi-Fi for the lab AP (staff SSID, not guest): Orchid7#2020b",
    ],
)
def test_a_short_password_said_in_prose_is_refused(text: str) -> None:
    assert secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [
        "The backups are encrypted with AES-256-GCM",
        "Grafana admin user -> see the vault entry",
        "For the partner SFTP use login `acme_drop` with the key in 1Password",
        "Wi-Fi for the lab AP (staff SSID, not guest): lab-staff-5G",
    ],
)
def test_prose_about_a_password_without_one_is_kept(text: str) -> None:
    assert not secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [
        "From the vendor guide: `Server=myServerAddress;User Id=myUsername;Password=myPassword;`",
        'API_TOKEN = "tok-9f3Kq2Lx7Vb-do-not-use"',
    ],
)
def test_a_guide_s_or_a_fixture_s_value_is_kept(text: str) -> None:
    assert not secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [
        "expdp system/otter-lagoon-7@ORCLPDB1 schemas=SALES dumpfile=sales.dmp",
        "Oracle export: `exp scott/maple-comet-31@PRODDB file=hr.dmp owner=HR`",
        r"net use Z: \\files02\share QuartzBadger71 /user:CORP\svc_copy",
        "mongosh 'mongodb://db.lab.local:27017/admin' -u root -p 'Falcon#2004'",
        "ab -n 200 -c 10 -A loadtest:h3ron-prod https://staging.example.org/api/health",
    ],
)
def test_a_password_on_a_command_line_is_refused(text: str) -> None:
    assert secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [
        "expdp system@ORCLPDB1 schemas=SALES dumpfile=sales.dmp (it asks for the password)",
        r"net use Z: \\files02\share /user:CORP\svc_copy",
        "mongosh 'mongodb://db.lab.local:27017/admin' -u root -p",
        "ab -n 200 -c 10 https://staging.example.org/api/health",
    ],
)
def test_a_command_line_without_a_password_is_kept(text: str) -> None:
    assert not secrets.scan(text)


_DECODE = "$ kubectl get secret cache -o jsonpath='{.data.password}' | base64 -d"


def test_a_decoded_kubernetes_secret_printed_below_its_command_is_refused() -> None:
    assert secrets.scan(f"```\n{_DECODE}\nq7W#rLp2-Vx9sTz=4k\n```")


def test_a_decoded_kubernetes_secret_s_error_or_placeholder_is_kept() -> None:
    assert not secrets.scan(f"```\n{_DECODE}\nError from server (NotFound)\n```")
    assert not secrets.scan(f"```\n{_DECODE}\n<your-password>\n```")
