"""API tokens: opaque and random, stored as their SHA-256 with a prefix to find them.
Rotated by hand from the account page; the old token keeps working for 24 h."""

import hashlib
import hmac
import secrets
from datetime import timedelta

from sqlalchemy import select

from shop.db import session
from shop.models import ApiToken, User
from shop.models.base import utcnow

PREFIX_LENGTH = 8
OLD_TOKEN_WORKS_FOR = timedelta(hours=24)


def hash_token(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def issue(user: User, scopes: list[str]) -> str:
    """A new token: shown once, never stored."""
    secret = secrets.token_urlsafe(32)
    session.add(
        ApiToken(
            user=user, prefix=secret[:PREFIX_LENGTH], token_hash=hash_token(secret), scopes=scopes
        )
    )
    session.commit()
    return secret


def rotate(old: ApiToken) -> str:
    old.expires_at = utcnow() + OLD_TOKEN_WORKS_FOR
    return issue(old.user, old.scopes)


def authenticate(secret: str) -> ApiToken | None:
    digest = hash_token(secret)
    found = session.scalars(select(ApiToken).where(ApiToken.prefix == secret[:PREFIX_LENGTH]))
    for token in found:
        if hmac.compare_digest(token.token_hash, digest) and not (
            token.expires_at and token.expires_at <= utcnow()
        ):
            return token
    return None
