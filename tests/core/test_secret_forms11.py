"""The secret gate's eleventh round: secrets as people paste them that the gate let through
(a product's default login for a host on a network), and look-alikes it refused. Each
secret was let through before. Values here are made up, none is a real credential."""

from __future__ import annotations

import pytest

from serena_memory.core import secrets
from serena_memory.core.secret_remote import remote_host


@pytest.mark.parametrize(
    "text",
    [
        "REDIS_URL=redis://admin:admin@cache.prod.tallyhq.net:6379/0",
        'psql "postgresql://postgres:postgres@db.staging.orbitcart.io/app"',
        "The ops Kibana at https://logs.ferngrove.co.uk takes `elastic` / `elastic123`.",
        "Broker mq-1.eu.pinewharf.com:5672 still accepts `guest:guest` from anywhere.",
    ],
)
def test_a_default_login_for_a_host_on_a_network_is_refused(text: str) -> None:
    assert secrets.scan(text)


@pytest.mark.parametrize(
    "text",
    [
        "DATABASE_URL=postgres://postgres:postgres@localhost:5432/app",
        "REDIS_URL=redis://admin:admin@redis:6379/0",
        "mongodb://root:root@mongo.svc.cluster.local:27017",
        "Grafana starts with `admin` / `admin` and asks for a new one on first login.",
        "In `docker-compose.yml` the broker keeps `guest:guest` for local runs.",
        "Try `admin`/`admin` on https://grafana.example.com (the docs' demo).",
    ],
)
def test_a_default_login_on_this_machine_or_in_docs_is_kept(text: str) -> None:
    assert not secrets.scan(text)


@pytest.mark.parametrize(
    ("host", "remote"),
    [
        ("pg.staging.brewline.app", True),
        ("ci.acme-corp.io", True),
        ("localhost", False),
        ("db", False),
        ("api.example.org", False),
        ("values-staging.yaml", False),
        ("web.test", False),
    ],
)
def test_a_remote_host_is_a_named_host_on_a_network(host: str, remote: bool) -> None:
    assert remote_host(host) is remote
