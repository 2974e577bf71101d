"""The shop: a Flask app (``flask --app shop run --debug``)."""

from typing import Any

from flask import Flask

from shop import config, db, log


def create_app(overrides: dict[str, Any] | None = None) -> Flask:
    """The app, configured from the environment (``overrides``: the tests' settings)."""
    app = Flask(__name__)
    app.config.update(config.from_environment())
    app.config.update(overrides or {})
    if not app.config["SECRET_KEY"]:
        raise RuntimeError("set SECRET_KEY: it signs the session cookies")
    log.init_app(app)
    db.init_app(app)
    from shop.views import api, auth, hooks, store

    for module in (api, auth, hooks, store):
        app.register_blueprint(module.blueprint)
    return app
