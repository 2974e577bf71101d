"""Settings, all from the environment: nothing secret is in the repository."""

import os
from datetime import timedelta
from typing import Any


def from_environment() -> dict[str, Any]:
    env = os.environ.get
    return {
        "SECRET_KEY": env("SECRET_KEY"),  # signs the session cookie: no server-side store
        "PERMANENT_SESSION_LIFETIME": timedelta(days=14),
        "SESSION_REFRESH_EACH_REQUEST": True,  # sliding: every request extends it
        "SESSION_COOKIE_SECURE": env("FLASK_DEBUG") != "1",
        "SESSION_COOKIE_SAMESITE": "Lax",
        "DATABASE_URL": env("DATABASE_URL", "postgresql+psycopg://localhost/shop"),
        "REDIS_URL": env("REDIS_URL", "redis://localhost:6379/0"),
        "STRIPE_SECRET_KEY": env("STRIPE_SECRET_KEY"),
        "STRIPE_PUBLISHABLE_KEY": env("STRIPE_PUBLISHABLE_KEY"),
        "STRIPE_WEBHOOK_SECRET": env("STRIPE_WEBHOOK_SECRET"),
        "POSTMARK_TOKEN": env("POSTMARK_TOKEN"),
        "MAIL_FROM": env("MAIL_FROM", "shop@example.com"),
        "BUCKET": env("BUCKET", "shop-dev"),
        "S3_ENDPOINT": env("S3_ENDPOINT"),
        "CDN_URL": env("CDN_URL", "https://cdn.example.com"),
    }


class CeleryConfig:
    broker_url = os.environ.get("REDIS_URL", "redis://localhost:6379/0")
    task_acks_late = True  # a task lost with its worker runs again
    task_default_queue = "shop"
