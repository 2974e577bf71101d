"""Who may do what: checked here in the services, never in templates. Roles: customer,
support, admin; support refunds up to 200 EUR, above that only an admin."""

from decimal import Decimal

from shop.db import session
from shop.models import ApiToken, User
from shop.services import sessions
from shop.services.money import Money

ROLES = ("customer", "support", "admin")
SUPPORT_REFUND_LIMIT = Money(Decimal(200), "EUR")
SCOPES = {"warehouse": "read paid orders, send tracking numbers"}


class Forbidden(Exception):
    pass


def require_role(user: User | None, *roles: str) -> User:
    if user is None or user.role not in roles:
        raise Forbidden(f"needs the role {' or '.join(roles)}")
    return user


def require_refund(user: User | None, amount: Money) -> None:
    user = require_role(user, "support", "admin")
    if user.role == "support" and not (
        amount.currency == SUPPORT_REFUND_LIMIT.currency and amount <= SUPPORT_REFUND_LIMIT
    ):
        raise Forbidden("refunds above 200 EUR need an admin")


def require_scope(token: ApiToken | None, scope: str) -> ApiToken:
    if token is None or scope not in token.scopes:
        raise Forbidden(f"needs a token with the scope {scope}")
    return token


def change_role(admin: User | None, user: User, role: str) -> None:
    require_role(admin, "admin")
    if role not in ROLES:
        raise ValueError(f"no role {role}")
    user.role = role
    session.commit()
    if sessions.current_user() is user:
        sessions.rotate(user)
