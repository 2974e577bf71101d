"""What other services call: Stripe's webhook and Postmark's bounce reports."""

import stripe
from flask import Blueprint, abort, request

from shop.services import mailer, webhooks

blueprint = Blueprint("hooks", __name__)


@blueprint.post("/stripe/webhook")
def stripe_webhook() -> tuple[str, int]:
    try:
        webhooks.receive(request.get_data(), request.headers.get("Stripe-Signature", ""))
    except (ValueError, stripe.SignatureVerificationError):
        abort(400)
    return "", 204


@blueprint.post("/postmark/bounce")
def postmark_bounce() -> tuple[str, int]:
    mailer.bounced(request.get_json(force=True))
    return "", 204
