"""A person's account, their API tokens and their password resets."""

from datetime import datetime

from sqlalchemy import ARRAY, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from shop.models.base import Record


class User(Record):
    __tablename__ = "users"

    email: Mapped[str] = mapped_column(String(320), unique=True)
    password_hash: Mapped[str]  # argon2id, see shop/services/login.py
    role: Mapped[str] = mapped_column(default="customer")  # customer, support, admin
    session_epoch: Mapped[int] = mapped_column(default=0)  # bumped: every session ends
    failed_logins: Mapped[int] = mapped_column(default=0)
    locked_until: Mapped[datetime | None]
    tokens: Mapped[list["ApiToken"]] = relationship(back_populates="user")


class ApiToken(Record):
    """Only the SHA-256 of a token is kept; its first characters find it."""

    __tablename__ = "api_tokens"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    prefix: Mapped[str] = mapped_column(String(8), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    scopes: Mapped[list[str]] = mapped_column(ARRAY(String))
    expires_at: Mapped[datetime | None]  # set on rotation: the old token keeps working 24 h
    user: Mapped[User] = relationship(back_populates="tokens")


class PasswordReset(Record):
    __tablename__ = "password_resets"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]
    user: Mapped[User] = relationship()
