"""The database: SQLAlchemy 2 on PostgreSQL 16, one session per request or task, and the
``flask --app shop db upgrade`` command (Alembic)."""

from pathlib import Path

import click
from alembic import command
from alembic.config import Config
from flask import Flask
from sqlalchemy import create_engine
from sqlalchemy.orm import scoped_session, sessionmaker

session = scoped_session(sessionmaker())
ALEMBIC_INI = Path(__file__).resolve().parents[1] / "alembic.ini"


def init_app(app: Flask) -> None:
    session.configure(bind=create_engine(app.config["DATABASE_URL"]))
    app.teardown_appcontext(lambda _exc: session.remove())

    @app.cli.group()
    def db() -> None:
        """The database's schema."""

    @db.command()
    @click.argument("revision", default="head")
    def upgrade(revision: str) -> None:
        """Runs the migrations up to REVISION (default: the newest)."""
        command.upgrade(Config(str(ALEMBIC_INI)), revision)
