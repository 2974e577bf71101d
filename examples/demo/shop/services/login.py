"""Signing in with email and password: argon2id hashes (passlib), five failed attempts
lock the account for 15 minutes, and a successful login rotates the session."""

from datetime import timedelta

from passlib.hash import argon2
from sqlalchemy import select

from shop.db import session
from shop.models import User
from shop.models.base import utcnow
from shop.services import sessions

MAX_FAILED_ATTEMPTS = 5
LOCKED_FOR = timedelta(minutes=15)
hasher = argon2.using(type="ID")


class Locked(Exception):
    """The account is locked after too many failed attempts; try again later."""


def hash_password(password: str) -> str:
    return str(hasher.hash(password))


def sign_in(email: str, password: str) -> User | None:
    """The user, signed in, or None for a wrong email or password."""
    user = session.scalars(select(User).where(User.email == email.lower())).first()
    if user is None:
        hasher.hash(password)  # as slow as a wrong password: no hint that the email is unknown
        return None
    now = utcnow()
    if user.locked_until and user.locked_until > now:
        raise Locked
    if not hasher.verify(password, user.password_hash):  # never compare hashes by hand
        user.failed_logins += 1
        if user.failed_logins >= MAX_FAILED_ATTEMPTS:
            user.locked_until, user.failed_logins = now + LOCKED_FOR, 0
        session.commit()
        return None
    user.failed_logins, user.locked_until = 0, None
    session.commit()
    sessions.rotate(user)
    return user
