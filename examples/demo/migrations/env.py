"""Alembic's entry point: the app's database, the models' metadata."""

from alembic import context
from flask import has_app_context

from shop import create_app
from shop.db import session
from shop.models import Base


def run() -> None:
    with session.get_bind().connect() as connection:
        context.configure(connection=connection, target_metadata=Base.metadata)
        with context.begin_transaction():
            context.run_migrations()


if has_app_context():  # `flask --app shop db upgrade`, the tests
    run()
else:  # `alembic upgrade head`
    with create_app().app_context():
        run()
