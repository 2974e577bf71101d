"""The warehouse's API: ``GET /api/warehouse/orders`` lists the paid orders to pack, the
warehouse then reports them packed and shipped (with the tracking number) and delivered.
Every request needs a token with the scope ``warehouse`` and fits in the rate limits."""

from typing import Any

from flask import Blueprint, abort, request

from shop.db import session
from shop.models import Order
from shop.services import fulfilment, permissions, rate_limits, tokens

blueprint = Blueprint("api", __name__, url_prefix="/api")


@blueprint.before_request
def authenticate() -> None:
    if not rate_limits.allow(f"ip:{request.remote_addr}", rate_limits.PER_IP_PER_MINUTE):
        abort(429)
    secret = request.headers.get("Authorization", "").removeprefix("Bearer ")
    token = tokens.authenticate(secret)
    if token is None:
        abort(401)
    if not rate_limits.allow(f"token:{token.prefix}", rate_limits.PER_TOKEN_PER_MINUTE):
        abort(429)
    try:
        permissions.require_scope(token, "warehouse")
    except permissions.Forbidden:
        abort(403)


@blueprint.get("/warehouse/orders")
def orders() -> dict[str, Any]:
    return {
        "orders": [
            {
                "id": o.id,
                "lines": [{"sku": line.variant.sku, "quantity": line.quantity} for line in o.lines],
            }
            for o in fulfilment.to_pack()
        ]
    }


@blueprint.post("/warehouse/orders/<int:order_id>/<step>")
def report(order_id: int, step: str) -> tuple[str, int]:
    order = session.get(Order, order_id) or abort(404)
    if step == "packed":
        fulfilment.packed(order)
    elif step == "shipped":
        fulfilment.shipped(order, request.get_json(force=True)["tracking_number"])
    elif step == "delivered":
        fulfilment.delivered(order)
    else:
        abort(404)
    return "", 204
