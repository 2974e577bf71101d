from datetime import timedelta

import pytest

from shop.models.base import utcnow
from shop.services import login
from tests import factories


def test_five_failed_attempts_lock_the_account_for_15_minutes(app):
    person = factories.user(password="correct horse")
    with app.test_request_context():
        for _ in range(login.MAX_FAILED_ATTEMPTS):
            assert login.sign_in(person.email, "wrong") is None
        with pytest.raises(login.Locked):
            login.sign_in(person.email, "correct horse")
    assert person.locked_until > utcnow() + timedelta(minutes=14)


def test_signing_in_rotates_the_session(app):
    person = factories.user(password="correct horse")
    with app.test_request_context() as ctx:
        ctx.session["nonce"] = "before"
        assert login.sign_in(person.email, "correct horse") is person
        assert ctx.session["nonce"] != "before" and ctx.session["user_id"] == person.id
