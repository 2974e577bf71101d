import os

import pytest

from shop.services import checkout
from tests import factories


def test_pending_orders_hold_the_stock_for_15_minutes(app):
    shirt = factories.variant(stock=1)
    factories.order(shirt)
    assert checkout.available(shirt) == 0
    with app.test_request_context(), pytest.raises(checkout.OutOfStock):
        checkout.place_order({shirt.id: 1}, "DE", "guest@example.com", None)


@pytest.mark.skipif(not os.environ.get("STRIPE_SECRET_KEY"), reason="needs a Stripe test key")
def test_a_guest_gets_a_payment_intent_in_stripe_test_mode(app):
    shirt = factories.variant(gross="19.99")
    with app.test_request_context():
        order, client_secret = checkout.place_order({shirt.id: 2}, "DE", "g@example.com", None)
    assert str(order.amount) == "39.98" and order.user_id is None
    assert client_secret.startswith(order.payment_intent_id)
