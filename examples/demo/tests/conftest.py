"""A real PostgreSQL database per test session (migrated once), each test in a transaction
rolled back at its end. Stripe runs in its test mode, never mocked."""

import os
import uuid
from collections.abc import Iterator

import pytest
from alembic import command
from alembic.config import Config
from flask import Flask
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine, make_url

from shop import create_app
from shop.db import ALEMBIC_INI, session

SERVER = os.environ.get("TEST_DATABASE_URL", "postgresql+psycopg://localhost/postgres")


@pytest.fixture(scope="session")
def database() -> Iterator[str]:
    name = f"shop_test_{uuid.uuid4().hex[:8]}"
    server = create_engine(SERVER, isolation_level="AUTOCOMMIT")
    with server.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    yield make_url(SERVER).set(database=name).render_as_string(hide_password=False)
    with server.connect() as conn:
        conn.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
    server.dispose()


@pytest.fixture(scope="session")
def app(database: str) -> Iterator[Flask]:
    app = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "test",
            "DATABASE_URL": database,
            "STRIPE_SECRET_KEY": os.environ.get("STRIPE_SECRET_KEY"),  # a test-mode key
        }
    )
    with app.app_context():
        command.upgrade(Config(str(ALEMBIC_INI)), "head")
        yield app


@pytest.fixture(scope="session")
def engine(app: Flask) -> Engine:
    return session.get_bind().engine


@pytest.fixture(autouse=True)
def transaction(engine: Engine) -> Iterator[None]:
    """Commits inside a test become savepoints of a transaction that is rolled back."""
    with engine.connect() as connection:
        outer = connection.begin()
        session.remove()
        session.configure(bind=connection, join_transaction_mode="create_savepoint")
        yield
        session.remove()
        outer.rollback()
