"""Browser sessions: Flask's signed cookie (SECRET_KEY), no server-side store, 14 days,
sliding. Rotated on login and on a change of permissions; logging out bumps
``user.session_epoch``, which ends every other session of that user too."""

import secrets

from flask import session as cookie

from shop.db import session
from shop.models import User


def rotate(user: User) -> None:
    cookie.clear()
    cookie.permanent = True
    cookie.update(user_id=user.id, epoch=user.session_epoch, nonce=secrets.token_urlsafe(16))


def current_user() -> User | None:
    user = session.get(User, cookie.get("user_id", 0))
    if user is None or cookie.get("epoch") != user.session_epoch:
        cookie.clear()
        return None
    return user


def sign_out(user: User) -> None:
    user.session_epoch += 1
    session.commit()
    cookie.clear()
