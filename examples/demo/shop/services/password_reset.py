"""Password resets: a one-time link valid for one hour, sent by the order emails' mailer;
its token is single-use and stored hashed like API tokens."""

import secrets
from datetime import timedelta

from flask import url_for
from sqlalchemy import select

from shop.db import session
from shop.models import PasswordReset, User
from shop.models.base import utcnow
from shop.services import login, mailer, tokens

VALID_FOR = timedelta(hours=1)


def send_link(email: str) -> None:
    user = session.scalars(select(User).where(User.email == email.lower())).first()
    if user is None:
        return  # the same answer either way: no hint whether the email has an account
    secret = secrets.token_urlsafe(32)
    session.add(
        PasswordReset(
            user=user, token_hash=tokens.hash_token(secret), expires_at=utcnow() + VALID_FOR
        )
    )
    session.commit()
    link = url_for("auth.reset_password", token=secret, _external=True)
    mailer.send(user.email, "password_reset", {"link": link})


def reset(secret: str, password: str) -> bool:
    found = session.scalars(
        select(PasswordReset).where(
            PasswordReset.token_hash == tokens.hash_token(secret),
            PasswordReset.used_at.is_(None),
            PasswordReset.expires_at > utcnow(),
        )
    ).first()
    if found is None:
        return False
    found.used_at = utcnow()
    found.user.password_hash = login.hash_password(password)
    found.user.session_epoch += 1  # whoever knew the old password is signed out
    session.commit()
    return True
