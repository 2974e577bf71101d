"""The secret gate on the fourteenth set's look-alikes (core/secret_lookalikes.py): a token
cut short with a mark that says so, a template's slot or a framework's lookup of a
variable, a test's value spelt in words; each written through the store as a memory's text
and, where a name can hold it, as a memory's name, beside a secret of the same form that is
still refused. Values here are made up, none is a real credential."""

from __future__ import annotations

from pathlib import Path

import pytest

from serena_memory.core import secrets
from serena_memory.core.store import MemoryStore

# made up: drawn characters in a provider's shape and alone
DRAWN = "Xq7Lx2Mv9Np4Rt8Wz1Yb3Hc6Jd0Fg5Sk2Qm7Xr"
GITLAB = "glpat-Xq7Lx2Mv9Np4Rt8Wz1Yb"
PULUMI = "pul-3f9a1c7e5b2d8f4a6c0e9b1d7f3a5c8e2b4d6f0a"


def store(tmp_path: Path) -> MemoryStore:
    (tmp_path / "p").mkdir(parents=True, exist_ok=True)
    return MemoryStore(tmp_path / "p", home=tmp_path / "h")


def written(tmp_path: Path, texts: list[str]) -> None:
    """Each text is written as a memory and read back."""
    memories = store(tmp_path)
    for number, text in enumerate(texts):
        memories.write(f"notes/kept-{number}", f"# Notes\n\n{text}\n")
        assert memories.read(f"notes/kept-{number}").strip().endswith(text.strip())


def refused(tmp_path: Path, texts: list[str]) -> None:
    memories = store(tmp_path)
    for number, text in enumerate(texts):
        with pytest.raises(secrets.SecretFoundError):
            memories.write(f"notes/refused-{number}", f"# Notes\n\n{text}\n")


def named(tmp_path: Path, names: list[str]) -> None:
    """Each line is a memory's name, written and read back."""
    memories = store(tmp_path)
    for name in names:
        memories.write(f"notes/{name}", "# Notes\n\nkept\n")
        assert "kept" in memories.read(f"notes/{name}")


def refused_names(tmp_path: Path, names: list[str]) -> None:
    memories = store(tmp_path)
    for name in names:
        with pytest.raises(secrets.SecretFoundError):
            memories.write(f"notes/{name}", "# Notes\n\nkept\n")


def test_a_token_cut_short_with_a_mark_is_kept_and_a_whole_one_refused(tmp_path: Path) -> None:
    written(
        tmp_path,
        [
            "PULUMI_ACCESS_TOKEN: pul-3f9a1c7[truncated]",
            "GITLAB_TOKEN: glpat-Xq7L[truncated]",
            "<?php\n$config['mapbox_key'] = 'sk.eyJ1Xq[...]';",
            'DEPLOY_TOKEN="Xq7Lx2Mv9N(snipped)"',
            'DEPLOY_TOKEN="Xq7Lx2Mv9N[..]"',
        ],
    )
    refused(
        tmp_path / "r",
        [
            f"PULUMI_ACCESS_TOKEN: {PULUMI}",
            f"GITLAB_TOKEN: {GITLAB}",
            f"<?php\n$config['mapbox_key'] = '{DRAWN}';",
            # a whole value with a mark after it: what followed was cut, not the value
            f'DEPLOY_TOKEN="{DRAWN}[truncated]"',
        ],
    )


def test_a_token_cut_short_in_a_memory_name_is_kept(tmp_path: Path) -> None:
    named(tmp_path, ["GITLAB_TOKEN=glpat-Xq7L[truncated]", "AIRTABLE_PAT=patXq7Lx2Mv[truncated]"])
    refused_names(tmp_path / "r", [f"GITLAB_TOKEN={GITLAB}", f"AIRTABLE_PAT=pat{DRAWN}"])


def test_a_template_slot_for_a_value_is_kept_and_a_value_refused(tmp_path: Path) -> None:
    written(
        tmp_path,
        [
            "# .env.example\nGITLAB_TRIGGER_TOKEN=__GITLAB_TRIGGER_TOKEN__\nLOG_LEVEL=debug",
            'fly:\n  token: "__FLY_API_TOKEN__"',
            "DB_PASSWORD=@@db_password@@",
            "API_TOKEN=@API_TOKEN@",
        ],
    )
    refused(
        tmp_path / "r",
        [
            f"# .env.example\nGITLAB_TRIGGER_TOKEN={DRAWN}\nLOG_LEVEL=debug",
            f'fly:\n  token: "{DRAWN}"',
            # drawn characters between the marks are a value, not a name
            f"API_TOKEN=__{DRAWN}__",
        ],
    )


def test_a_template_slot_in_a_memory_name_is_kept(tmp_path: Path) -> None:
    named(tmp_path, ["GOOGLE_MAPS_SERVER_KEY=__GOOGLE_MAPS_SERVER_KEY__"])
    refused_names(tmp_path / "r", [f"GOOGLE_MAPS_SERVER_KEY={DRAWN}"])


def test_a_lookup_of_a_variable_by_its_name_is_kept_and_a_value_refused(tmp_path: Path) -> None:
    written(
        tmp_path,
        [
            'api_key: "%env(YC_API_KEY)%"',
            "parameters:\n  app.token: '%env(resolve:GITLAB_TOKEN)%'",
            'my $token = "$ENV{HEROKU_API_KEY}";',
            "API_TOKEN=env:API_TOKEN",
        ],
    )
    refused(
        tmp_path / "r",
        [
            f'api_key: "{DRAWN}"',
            f"parameters:\n  app.token: '{DRAWN}'",
            f'my $token = "{DRAWN}";',
        ],
    )


def test_a_lookup_of_a_variable_in_a_memory_name_is_kept(tmp_path: Path) -> None:
    named(tmp_path, ["api_key=%env(PERPLEXITY_API_KEY)%"])
    refused_names(tmp_path / "r", [f"api_key={DRAWN}"])


def test_a_test_value_spelt_in_words_is_kept_and_a_passphrase_refused(tmp_path: Path) -> None:
    written(
        tmp_path,
        [
            '$env:STRIPE_RESTRICTED_KEY = "test-stripe-token-0000"\n.\\scripts\\sync.ps1',
            "[google]\nuser = deploy\ntoken = test-google-token-0000\nverify_ssl = true",
            'object Secrets {\n    const val MAPBOX_SECRET_TOKEN = "mock-mapbox-secret-key-1"\n}',
            "API_TOKEN=mock-token-1234",
        ],
    )
    refused(
        tmp_path / "r",
        [
            # words a generator drew, with its number: a passphrase in use
            '$env:STRIPE_RESTRICTED_KEY = "copper-juniper-velvet-0417"',
            "[google]\nuser = deploy\ntoken = maple-nimbus-orbit-63\nverify_ssl = true",
            # a test's word beside drawn characters: a value, whatever it is called
            f'const val MAPBOX_SECRET_TOKEN = "test-token-{DRAWN}"',
        ],
    )


def test_a_test_value_spelt_in_words_in_a_memory_name_is_kept(tmp_path: Path) -> None:
    named(tmp_path, ["STRIPE_KEY=test-stripe-token-0000"])
    refused_names(tmp_path / "r", ["STRIPE_KEY=copper-juniper-velvet-0417"])
