"""Emails: Jinja templates in shop/templates/email/, each with an HTML and a plain-text
part, sent by a Celery task through Postmark. Bounces are logged."""

from typing import Any

import requests
from flask import current_app, render_template

from shop import tasks
from shop.log import logger

SUBJECTS = {"order_paid": "Thank you for your order", "password_reset": "Your password reset"}


def send(to: str, template: str, context: dict[str, Any]) -> None:
    tasks.send_email.delay(to, template, context)


def deliver(to: str, template: str, context: dict[str, Any]) -> None:
    response = requests.post(
        "https://api.postmarkapp.com/email",
        headers={"X-Postmark-Server-Token": current_app.config["POSTMARK_TOKEN"]},
        json={
            "From": current_app.config["MAIL_FROM"],
            "To": to,
            "Subject": SUBJECTS[template],
            "HtmlBody": render_template(f"email/{template}.html", **context),
            "TextBody": render_template(f"email/{template}.txt", **context),
        },
        timeout=10,
    )
    response.raise_for_status()


def bounced(report: dict[str, Any]) -> None:
    """A bounce Postmark reports (its webhook, shop/views/hooks.py)."""
    fields = {"email": report.get("Email"), "type": report.get("Type")}
    logger.warning("email bounced", extra={"fields": fields})
