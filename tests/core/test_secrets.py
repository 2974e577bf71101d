"""The secret gate: through every entry point (real processes, real servers, real git
remotes) a memory that would hold a secret is refused, its file and its history untouched;
a person may override; `check --secrets` finds those already there."""

from __future__ import annotations

import json
import random
import string
import subprocess
import sys
from pathlib import Path

import anyio
import httpx
import pytest
from conftest import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_support import over_stdio, refused
from test_sync import Machine

from serena_memory.core import secrets
from serena_memory.core.store import MemoryStore
from serena_memory.dashboard.server import DashboardServer
from serena_memory.history.restore import MemoryHistory
from serena_memory.wiring import build_store

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from proposing import propose_rename, propose_write
from secrets_set import labeled_set  # noqa: E402

# made here in GitHub's published format: 'ghp_' and 36 letters and digits; not a real token
TOKEN = "ghp_" + "".join(random.Random(7).choices(string.ascii_letters + string.digits, k=36))
SECRET_TEXT = f"# Deploy\n\nThe CI token is {TOKEN}\n"
CLEAN_TEXT = "# Deploy\n\nThe CI token is <github-token>, kept in the CI's secret store.\n"


def entries(project: Path) -> int:
    return len(MemoryHistory(build_store(project)).entries())


def test_the_chosen_scanner_meets_its_figures_on_the_labeled_set() -> None:
    samples = labeled_set()
    true = [s for s in samples if s.secret]
    look_alikes = [s for s in samples if not s.secret]
    assert len({s.kind for s in true}) >= 30 and len(true) >= 300 and len(look_alikes) >= 250
    assert {s.where for s in true} == {s.where for s in look_alikes} == {"text", "name"}

    def flagged(sample) -> bool:
        scan = secrets.scan_name if sample.where == "name" else secrets.scan
        return bool(scan(sample.text))

    recall = sum(map(flagged, true)) / len(true)
    false_positives = sum(map(flagged, look_alikes)) / len(look_alikes)
    assert recall >= 0.95 and false_positives <= 0.02


@settings(max_examples=60, deadline=None)
@given(st.binary(min_size=16, max_size=32), st.sampled_from(["commit", "uuid", "sha256"]))
def test_hashes_and_ids_in_prose_are_never_secrets(raw: bytes, kind: str) -> None:
    import hashlib
    import uuid

    value = {
        "commit": hashlib.sha1(raw).hexdigest(),
        "uuid": str(uuid.UUID(bytes=raw[:16])),
        "sha256": hashlib.sha256(raw).hexdigest(),
    }[kind]
    assert secrets.scan(f"Fixed in {value}; see `{value}` and id={value}.") == []


@settings(max_examples=60, deadline=None)
@given(st.text(string.ascii_letters + string.digits, min_size=36, max_size=36))
def test_a_github_token_is_found_whatever_its_letters(body: str) -> None:
    found = secrets.scan(f"notes\n\ntoken: ghp_{body}\n")
    if len(set(body)) > 3 and "your" not in body.lower() and "xxxx" not in body.lower():
        assert found and found[0].line == 3


def test_the_refusal_names_the_line_the_kind_and_asks_for_a_placeholder() -> None:
    text = secrets.refusal("deploy", secrets.scan(SECRET_TEXT), person=False)
    assert "line 3" in text and "GitHub Token" in text and "placeholder" in text
    assert "--allow-secret" not in text  # the agent has no override
    assert TOKEN not in text  # the secret is never repeated


@pytest.mark.parametrize(
    ("text", "placeholder"),
    [
        ("mysql -u root -pQv7!rT2mZx9 -h db.internal shop", "<password>"),
        ("The staging admin password is Orb1t^1cin", "<password>"),
        ("Log in to the build box as deploy / Tz8#kP2qLw", "<password>"),
        ("| host | user | password |\n|---|---|---|\n| db1 | app | Vb6$nQ1xRz |", "<password>"),
    ],
)
def test_the_placeholder_says_what_goes_there_not_where_it_was_found(
    text: str, placeholder: str
) -> None:
    """A walker was told to write `<password-on-a-command-line>` for a mysql -p value."""
    found = secrets.scan(text)
    assert found, text
    assert f"such as {placeholder} " in secrets.refusal("ops", found, person=False)


def test_cli_write_and_edit_refuse_then_a_person_overrides(project: Path) -> None:
    result = run_cli("memories", "write", "deploy", "--content", SECRET_TEXT, cwd=project)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "line 3" in result.stderr and "--allow-secret" in result.stderr
    assert not (project / ".serena" / "memories" / "deploy.md").exists()
    assert entries(project) == 0
    run_cli("memories", "write", "deploy", "--content", CLEAN_TEXT, cwd=project)
    before = entries(project)
    result = run_cli(
        "memories", "edit", "deploy", "--needle", "<github-token>", "--repl", TOKEN, cwd=project
    )
    assert result.returncode != 0 and "line 3" in result.stderr
    assert "memory 'deploy' was not changed" in result.stderr  # an edit, not a write
    assert (project / ".serena" / "memories" / "deploy.md").read_text() == CLEAN_TEXT
    assert entries(project) == before
    result = run_cli("memories", "rename", "deploy", f"ci/{TOKEN}", cwd=project)
    assert result.returncode != 0 and "the memory was not renamed" in result.stderr
    assert TOKEN not in result.stderr
    assert (project / ".serena" / "memories" / "deploy.md").read_text() == CLEAN_TEXT
    result = run_cli(
        "memories", "write", "deploy", "--content", SECRET_TEXT, "--allow-secret", cwd=project
    )
    assert result.returncode == 0, result.stderr
    assert (project / ".serena" / "memories" / "deploy.md").read_text() == SECRET_TEXT


def test_an_import_holding_a_secret_is_refused_whole_then_a_person_overrides(
    project: Path, tmp_path: Path
) -> None:
    source = tmp_path / "source"
    source.mkdir()
    (source / "CLAUDE.md").write_text(
        "# Deploying\n\n## Commands\n\nrun `make deploy`\n\n## Access\n\n" + SECRET_TEXT,
        encoding="utf-8",
    )
    result = run_cli("memories", "import", "claude-md", str(source), cwd=project)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "--allow-secret" in result.stderr
    assert not list((project / ".serena").rglob("*.md"))  # nothing written, not even the rest
    assert entries(project) == 0
    result = run_cli("memories", "import", "claude-md", str(source), "--allow-secret", cwd=project)
    assert result.returncode == 0, result.stderr
    assert TOKEN in "".join(p.read_text() for p in (project / ".serena").rglob("*.md"))


@pytest.mark.slow  # a real server process
def test_mcp_write_and_edit_refuse_the_agent_file_and_history_untouched(project: Path) -> None:
    build_store(project).write("deploy", CLEAN_TEXT)
    before = entries(project)

    async def go() -> None:
        async with over_stdio(["--project", str(project)]) as client:
            await refused(
                client,
                "write_memory",
                "line 3",
                "placeholder",
                memory_name="new",
                content=SECRET_TEXT,
            )
            await refused(
                client,
                "edit_memory",
                "line 3",
                memory_name="deploy",
                needle="<github-token>",
                mode="literal",
                repl=TOKEN,
            )

    anyio.run(go)
    memories = project / ".serena" / "memories"
    assert not (memories / "new.md").exists()
    assert (memories / "deploy.md").read_text() == CLEAN_TEXT
    assert entries(project) == before


def test_dashboard_save_asks_for_confirmation_then_saves(project: Path, serena_home: Path) -> None:
    server = DashboardServer(project, home=serena_home, port=0)
    server.start()
    try:
        headers = {"Origin": server.base_url, "X-Serena-Token": server.token}
        with httpx.Client(base_url=server.base_url, headers=headers) as client:
            answer = client.post("/api/memory", json={"name": "deploy", "content": SECRET_TEXT})
            assert answer.status_code == 422
            assert answer.json()["secret"] is True and answer.json()["line"] == 3
            assert not (project / ".serena" / "memories" / "deploy.md").exists()
            assert entries(project) == 0
            answer = client.post(
                "/api/memory",
                json={"name": "deploy", "content": SECRET_TEXT, "allow_secret": True},
            )
            assert answer.status_code == 201
    finally:
        server.stop()
    assert (project / ".serena" / "memories" / "deploy.md").read_text() == SECRET_TEXT


def test_restore_of_a_version_holding_a_secret_is_refused_unless_overridden(
    project: Path,
) -> None:
    run_cli("memories", "write", "deploy", "--content", SECRET_TEXT, "--allow-secret", cwd=project)
    run_cli("memories", "write", "deploy", "--content", CLEAN_TEXT, cwd=project)
    before = entries(project)
    result = run_cli("memories", "restore", "deploy", cwd=project)
    assert result.returncode != 0 and "line 3" in result.stderr
    assert (project / ".serena" / "memories" / "deploy.md").read_text() == CLEAN_TEXT
    assert entries(project) == before
    result = run_cli("memories", "restore", "deploy", "--allow-secret", cwd=project)
    assert result.returncode == 0, result.stderr
    assert (project / ".serena" / "memories" / "deploy.md").read_text() == SECRET_TEXT


@pytest.mark.slow  # a sync over a real git remote
def test_a_sync_holds_back_a_remote_whose_text_holds_a_secret_and_says_so(
    tmp_path: Path,
) -> None:
    remote = tmp_path / "shared" / "memories.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    laptop, workstation = Machine(tmp_path / "a", remote), Machine(tmp_path / "b", remote)
    laptop.write("global/deploy", CLEAN_TEXT)
    laptop.sync()
    workstation.sync()
    assert workstation.text("global/deploy") == CLEAN_TEXT
    laptop.run("memories", "write", "global/deploy", "--content", SECRET_TEXT, "--allow-secret")
    laptop.write("global/other", "# Other\n\nnothing secret\n")
    laptop.sync()
    result = workstation.sync(check=False)
    assert result.returncode == 1 and "Nothing was merged from" in result.stdout
    assert "global/deploy (entry " in result.stdout and "line 3: GitHub Token" in result.stdout
    assert TOKEN not in result.stdout
    assert workstation.text("global/deploy") == CLEAN_TEXT
    # the remote's entries are merged whole or not at all: the rest waits for the purge
    assert not workstation.path("global/other").exists()
    found = workstation.run("memories", "check", "--secrets", "--json", check=False)
    data = json.loads(found.stdout)
    assert data["memories"] == [] and data["history"] == []


def test_check_secrets_reports_memories_and_history_with_the_purge(project: Path) -> None:
    result = run_cli("memories", "check", "--secrets", cwd=project)
    assert result.returncode == 0 and "No secrets found" in result.stdout
    run_cli("memories", "write", "deploy", "--content", SECRET_TEXT, "--allow-secret", cwd=project)
    run_cli("memories", "write", "deploy", "--content", CLEAN_TEXT, cwd=project)
    (project / ".serena" / "memories" / "env.md").write_text(f"GITHUB={TOKEN}\n")  # an editor
    result = run_cli("memories", "check", "--secrets", "--json", cwd=project)
    assert result.returncode == 1
    data = json.loads(result.stdout)
    assert [(s["memory"], s["line"]) for s in data["memories"]] == [("env", 1)]
    assert ("deploy", 3) in [(s["memory"], s["line"]) for s in data["history"]]
    assert all(Path(p).is_dir() for p in data["history_repositories"])
    text = run_cli("memories", "check", "--secrets", cwd=project).stdout
    assert "rotate it" in text and "docs/secrets.md" in text and TOKEN not in text


# made here (seeded), never real: a password as generators make them, a Stripe live key
STRONG = ["hX7#kq2$Lm9pWz4Qr", "Wq8$zK2!pL9#mN4", "r;0i68xW}ghcG&9jUJ", "a(Zk29)[fjQm]{3L}<pX>"]
STRIPE = "sk_live_" + "".join(random.Random(11).choices(string.ascii_letters, k=24))
GH = "ghp_" + "".join(random.Random(12).choices(string.ascii_letters + string.digits, k=36))


def agent_store(project: Path, serena_home: Path) -> MemoryStore:
    from serena_memory.core.store import Context

    return build_store(project, home=serena_home, context=Context.AGENT)


def refused_write(store: MemoryStore, name: str, text: str) -> str:
    try:
        store.write(name, text)
    except secrets.SecretFoundError as exc:
        return str(exc)
    raise AssertionError(f"written: {name!r} {text!r}")


def test_a_strong_password_holding_symbols_is_refused_and_references_still_pass(
    project: Path, serena_home: Path
) -> None:
    store = agent_store(project, serena_home)
    for i, password in enumerate(STRONG):
        for form in ("DB_PASSWORD={p}", "Password={p};", "password: {p}", '"db_password": "{p}"'):
            said = refused_write(store, f"env{i}", "# Env\n\n" + form.format(p=password) + "\n")
            assert "line 3" in said and password not in said
    for line in (
        "DB_PASSWORD=${DB_PASSWORD}",
        "export GITHUB_GH=$(gh auth token)",
        "DB_PASSWORD=<your-password>",
        "token: {{ secret }}",
        "password: ${{ secrets.DB_PASSWORD }}",
        "api_key = os.environ['PAYMENTS_API_KEY']",
        "password: Optional[str] = None",
        "token = get_token(user)",
        "PASSWORD=$DB_PASSWORD",
        "password_hash: $2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW",
    ):
        store.write("refs", f"# Refs\n\n{line}\n")
    assert not list(project.rglob("env*.md"))


def test_a_real_token_beside_your_sample_or_example_is_still_refused(
    project: Path, serena_home: Path
) -> None:
    store = agent_store(project, serena_home)
    for text in (
        f"git clone https://x-access-token:{GH}@github.com/yourcompany/app.git",
        "DATABASE_URL=postgres://app:Zk29fjQm3LpX@db.samples-prod.internal:5432/app",
        f"pip install git+https://{GH}@github.com/example-org/private-lib.git",
        "redis://:Zk29fjQm3LpXa7@cache.your-team.dev:6379/0",
    ):
        said = refused_write(store, "clone", f"# Clone\n\n{text}\n")
        assert "line 3" in said and GH not in said and "Zk29fjQm3LpX" not in said
    for text in (  # the value itself is the placeholder
        "git clone https://x-access-token:${GITHUB_GH}@github.com/yourcompany/app.git",
        "postgres://user:password@localhost:5432/dev",
        "mongodb+srv://<username>:<password>@cluster0.example.mongodb.net/test",
        "GITHUB_GH=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    ):
        store.write("clone", f"# Clone\n\n{text}\n")


def test_the_suggested_placeholder_says_what_goes_there(project: Path, serena_home: Path) -> None:
    store = agent_store(project, serena_home)
    said = refused_write(store, "db", "DATABASE_URL=postgres://app:Zk29fjQm3LpX@db/app\n")
    assert "password in a URL" in said and "such as <password> and" in said
    said = refused_write(store, "db", f"DB_PASSWORD={STRONG[0]}\n")
    assert "value assigned to DB_PASSWORD" in said and "such as <db-password> and" in said
    said = refused_write(store, "db", f"The CI token is {GH}\n")
    assert "such as <github-token> and" in said


def test_a_token_in_a_name_is_refused_on_every_write_path_and_never_repeated(
    project: Path, serena_home: Path, tmp_path: Path
) -> None:
    from serena_memory.core.store import Context

    person = build_store(project, home=serena_home, context=Context.HUMAN)
    agent = agent_store(project, serena_home)
    person.write("cfg", "# Config\n")
    attempts = {
        "write": lambda: agent.write(f"creds/{GH}", "# CI\n"),
        "rename": lambda: agent.rename("cfg", STRIPE),
        "import": lambda: person.create_many({f"imported/{GH}": "# CI\n"}, "Import"),
        "restore": lambda: person.apply_versions({f"back/{STRIPE}": b"# CI\n"}, "Restore"),
        "dashboard": lambda: person.write_if_unchanged(f"new/{GH}", "# CI\n", None),
        "propose write": lambda: propose_write(agent, f"p/{GH}", "# CI\n"),
        "propose rename": lambda: propose_rename(agent, "cfg", f"p/{STRIPE}"),
    }
    for path, attempt in attempts.items():
        try:
            attempt()
        except secrets.SecretFoundError as exc:
            said = str(exc)
        else:
            raise AssertionError(f"{path}: a token became a memory's name")
        assert "its name holds what looks like a secret" in said, (path, said)
        assert GH not in said and STRIPE not in said
    memories = project / ".serena" / "memories"
    assert sorted(p.name for p in memories.rglob("*.md")) == ["cfg.md"]
    assert entries(project) == 1


@pytest.mark.slow  # a real server process
def test_the_agent_can_not_name_a_memory_after_a_token_over_mcp(project: Path) -> None:
    build_store(project).write("cfg", CLEAN_TEXT)

    async def go() -> None:
        async with over_stdio(["--project", str(project)]) as client:
            said = await refused(
                client, "write_memory", "its name", memory_name=f"creds/{GH}", content="# CI"
            )
            assert GH not in said
            said = await refused(
                client, "rename_memory", "its name", old_name="cfg", new_name=STRIPE
            )
            assert STRIPE not in said

    anyio.run(go)
    assert sorted(p.name for p in (project / ".serena" / "memories").rglob("*.md")) == ["cfg.md"]


def test_check_secrets_finds_a_token_in_a_name_and_shows_it_masked(project: Path) -> None:
    result = run_cli(
        "memories", "write", f"creds/{GH}", "--content", "# CI\n", "--allow-secret", cwd=project
    )
    assert result.returncode == 0, result.stderr
    result = run_cli("memories", "check", "--secrets", cwd=project)
    assert result.returncode == 1 and "creds/<github-token>:name: GitHub Token" in result.stdout
    assert GH not in result.stdout
    data = json.loads(run_cli("memories", "check", "--secrets", "--json", cwd=project).stdout)
    assert {(s["memory"], s["line"]) for s in data["memories"]} == {("creds/<github-token>", 0)}


@settings(max_examples=20, deadline=None)
@given(st.integers(min_value=0, max_value=60_000))
def test_a_token_anywhere_in_a_very_long_line_is_found(at: int) -> None:
    # a long line is scanned in overlapping parts, so a token across a part's end is found
    line = "x=" * (at // 2) + GH + " y" * 30_000
    assert [f.line for f in secrets.scan(f"notes\n{line}\n")] == [2]


_IDENT = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{2,20}", fullmatch=True)


@settings(max_examples=80, deadline=None)
@given(
    st.sampled_from(["DB_PASSWORD", "API_KEY", "client_secret", "authToken", "Password"]),
    st.sampled_from(
        ["${{{v}}}", "$({v} show prod)", "<{w}>", "{{{{ {v} }}}}", "${{{{ secrets.{v} }}}}"]
    ),
    _IDENT,
    st.from_regex(r"[a-z]{3,12}(-[a-z]{2,8}){0,3}", fullmatch=True),
    st.sampled_from(["{n}={r}", "export {n}={r}", '{n}: "{r}"', '"{n}": "{r}",', "{n} = '{r}'"]),
)
def test_a_reference_or_placeholder_in_any_pasted_form_is_no_secret(
    name: str, reference: str, variable: str, words: str, form: str
) -> None:
    value = reference.format(v=variable, w=words)
    assert secrets.scan(form.format(n=name, r=value)) == []


# issue 41, item 4: secrets as people paste them, each form missed before, and look-alikes
# refused before; values drawn here from a fixed seed in each form's shape (none is real)
_SEED = random.Random(414)
_ALNUM = string.ascii_letters + string.digits


def _drawn(alphabet: str, length: int) -> str:
    return "".join(_SEED.choice(alphabet) for _ in range(length))


def _password() -> str:
    return _drawn(string.ascii_letters, 6) + _SEED.choice("*^~!") + _drawn(_ALNUM, 5) + "42"


PASTED = [
    # a flag that names a secret, with a space or `=`
    f"az storage blob upload --account-key {_drawn(_ALNUM + '+/', 86)}== -c x -f a.zip",
    "mysqlsh --uri app@db-stg:3306 --password='Maple.Cinder78' --sql",
    f"skopeo copy --src-creds ci:{_password()} docker://a.io/x docker://b.io/x",
    # a tool's own flag for a password: ldapsearch -w
    f"ldapsearch -x -D 'cn=svc,dc=corp' -w '{_password()}' -b 'dc=corp' '(uid=jo)'",
    # an Authorization header with another scheme than Bearer or Basic
    f'curl -H "Authorization: Token {_drawn("0123456789abcdef", 40)}" https://api.corp.io/',
    f"curl -H 'Authorization: ApiKey {_drawn(_ALNUM, 56)}==' https://es.corp.io:9243/",
    # a shell that sets a variable without `=`
    f"set -x MAILER_SMTP_PASS '{_password()}'",
    # a name whose secret's word is followed by the role of what it opens
    f'DB_PASS_REPLICA="{_password()}"',
    # a quoted password of two words, which reads like an attribute
    'SMTP_PASSWORD: "Otter.Lantern64"',
    # a password said after "reset ... to", after "pw", as a login after login or creds
    f"Jo reset the master password to {_password()} - move it to the vault.",
    "The DB user is `report_ro`, pw `Cedar~Harbor58`.",
    "pgAdmin login is dba@corp.io / Spring2023! (yes, really)",
    f"Realm admin creds: admin:{_drawn(_ALNUM, 24)}",
    "Log in with admin / heron7-stage!",
    # a table: a cell `user / password`, a random value after a host and a user
    "| Broker | http://mq-1:15672 | ops / lumen-kelp-fjord-31 |",
    f"| SFTP | sftp.partner.io | corp_in | {_drawn(_ALNUM, 24)} |",
    # a hex value right after the word secret
    f"OAuth app: client id `1234.5678`, client secret `{_drawn('0123456789abcdef', 32)}`",
    # provider shapes: a Doppler token naming its config, a Mailgun key of the new format
    f"The CI reads Doppler with dp.st.prd.{_drawn(_ALNUM, 40)}",
    f"Mailgun: {_drawn('0123456789abcdef', 32)}-{_drawn('0123456789abcdef', 8)}-"
    f"{_drawn('0123456789abcdef', 8)}",
    # a secret said a few words after its word, after a colon, an arrow or a bold label
    f"The VPN shared secret is {_drawn(_ALNUM, 20)}",
    f"Jenkins password changed to {_password()} this morning",
    f"api key for the geocoder: {_drawn('0123456789abcdef', 32)}",
    f"password for the shared mailbox ops@corp.io → {_password()}",
    f"- **Password:** {_password()}",
    f"TOTP seed: {_drawn('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 32)}",
    # a short strong password under a password's name; a table of names and values
    '{"username": "svc", "password": "Autumn2020!"}',
    f"| Name | Value |\n|---|---|\n| API_KEY | {_drawn(_ALNUM, 32)} |",
    # commands that take a password as an argument, an HTTP client's auth pair
    f"rabbitmqctl add_user deploy {_password()}",
    f"htpasswd -b /etc/nginx/.htpasswd ops {_password()}",
    f"ssh-keygen -p -P '{_password()}' -N '' -f ~/.ssh/id_rsa",
    f"echo '{_password()}' | docker login registry.corp.io -u ci --password-stdin",
    f"requests.get(url, auth=('svc', '{_password()}'))",
    # a password named in quotes before it, after basic-auth, a URL's `key` parameter
    f"Password for the `backup` Samba share: {_password()}",
    f"Use `{_password()}` as the keystore password.",
    f"the staging basic-auth is qa:{_password()}",
    f"https://maps.corp.io/api/geocode?key={_drawn(_ALNUM, 39)}&q=coffee",
    # a name and its value apart by a space; a generated password after a label
    f'keyPassword "{_password()}"',
    f"secrets.txt:\napi_token {_drawn(_ALNUM, 40)}",
    f"MySQL root: {_password()}",
    f"Wifi: CorpGuest / {_password()}",
    # archive, keystore and Windows tools that take a password
    f"keytool -genkey -alias app -keystore app.jks -storepass {_password()}",
    f"zip -P {_password()} secrets.zip notes.txt",
    f"7z a -p{_password()} backup.7z /data",
    f"psexec \\\\host01 -u CORP\\admin -p {_password()} cmd",
    f"net use Z: \\\\fs01\\share /user:CORP\\svc {_password()}",
    f"sudo -S <<< '{_password()}' systemctl restart nginx",
    # a `#` pasted unencoded in a URL's password
    'pg_dump "postgresql://app:Uaoy#YYpKCUY87@db01:5432/shop" > shop.sql',
]

LET_THROUGH = [
    # providers' published examples: Stripe's documentation key, jwt.io's sample
    "Stripe's docs use `sk_test_4eC39HqLyjWDarjtT1zdp7dc` in their curl examples.",
    "jwt.io: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4g"
    "RG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    # an unsigned JWT (alg none, no signature): a test vector
    "Reject `eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJtYWxsb3J5In0.` with a 401.",
    # a secret's ARN names it; a Sealed Secret's ciphertext; a file the value is read from
    "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/shop/db-Q3xk9P",
    f"    password: AgB{_drawn(_ALNUM + '+/', 400)}==",
    "vault kv put secret/billing db_password=@db_password.txt",
    # what goes there, in capitals, in backticks; a build secret's settings, not its value
    "`mysql -pSECRET` takes no space after `-p`.",
    "docker build --secret id=npmrc,src=$HOME/.npmrc --build-arg NPM_TOKEN .",
    # a fixture's password spelled as the word itself
    'factory :user do\n  password { "Password123!" }\nend',
    # a browser's key under a public name, a jasypt or Vault ciphertext, a Mapbox public token
    f"NEXT_PUBLIC_FIREBASE_API_KEY=AIza{_drawn(_ALNUM + '_-', 35)}",
    f"password: ENC({_drawn(_ALNUM + '+/', 44)})",
    # a hash said of a secret, not the secret
    f"sha256 of the token: {_drawn('0123456789abcdef', 64)}",
]


@pytest.mark.parametrize("text", PASTED)
def test_a_secret_in_a_form_people_paste_is_refused(text: str) -> None:
    assert secrets.scan(text), text


@pytest.mark.parametrize("text", LET_THROUGH)
def test_a_published_example_or_a_secrets_reference_is_let_through(text: str) -> None:
    assert secrets.scan(text) == [], text


# a secret said its new ways beside a look-alike said the same way, which is none
SAID_BESIDE = [
    (f"The VPN shared secret is {_drawn(_ALNUM, 20)}", "secret version: 3b04c6b9c2bdba66 (an id)"),
    (f"api key: {_drawn(_ALNUM, 32)}", f"api_key: vault:v1:{_drawn(_ALNUM + '+/', 60)}=="),
    (
        f"The bot's token is {_drawn(_ALNUM, 40)}",
        "The token's jti is c0db4b1f-96d0-45a0-88e3-152501901b98",
    ),
    (
        f"api key for the geocoder: {_drawn('0123456789abcdef', 32)}",
        f"Mapbox public token for the map: pk.eyJ1Ijoi{_drawn(_ALNUM, 20)}.{_drawn(_ALNUM, 22)}",
    ),
    (f"Router admin pwd - {_password()}", "- task: SonarCloudPrepare@1"),
    (
        f"The realm's bot token, for the record: {_drawn(_ALNUM, 40)}",
        '"pypi-token": lambda: "pypi-AgEIcHlwaS5vcmc" + tail,',
    ),
    (
        f"az storage blob list --account-key {_drawn(_ALNUM, 86)}==",
        "  --rotate-token        streamable-http: replace the stored token",
    ),
]


@pytest.mark.parametrize(("secret", "look_alike"), SAID_BESIDE)
def test_a_secret_said_a_new_way_is_found_and_its_look_alike_is_not(
    secret: str, look_alike: str
) -> None:
    assert secrets.scan(secret) and secrets.scan(look_alike) == []


def test_a_long_run_of_blanks_after_a_secret_word_does_not_stall_the_scan():
    """'password' then thousands of spaces took minutes in one of detect-secrets'
    patterns; a write of such a memory must come back (here: in a child process with a
    deadline far above what it needs, so the test fails only when the scan stalls)."""
    import subprocess
    import sys

    code = (
        "from serena_memory.core import secrets\n"
        "print(secrets.scan('password' + ' ' * 4000 + 'x'))\n"
        "print(secrets.scan('token =' + '\\t' * 3000 + 'y'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout == "[]\n[]\n"


def test_an_ordinary_memory_is_scanned_without_loading_detect_secrets(tmp_path: Path) -> None:
    """detect-secrets (and the `requests` its plugins import) costs a write about 70 ms;
    a memory of ordinary words never needs it, and a token one of its detectors knows
    still loads it and is refused."""
    probe = (
        "import sys\n"
        "from serena_memory.core import secrets\n"
        "text = ('# Build\\nRun `pytest -q` before a commit; the API global settings live in "
        "config.yaml (AWS region eu-west-1, Twilio for SMS, GitLab CI).\\n')\n"
        "first = bool(secrets.scan(text))\n"
        "loaded = 'detect_secrets' in sys.modules\n"
        "key = 'twilio_sid: SK' + 'c0ffee12' * 4\n"
        "print(first, loaded, bool(secrets.scan(key)), 'detect_secrets' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert out.stdout.split() == ["False", "False", "True", "True"]
