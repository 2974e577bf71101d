"""Signing in and out, password resets."""

from flask import Blueprint, flash, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from shop.services import login, password_reset, sessions

blueprint = Blueprint("auth", __name__)


@blueprint.route("/login", methods=["GET", "POST"])
def sign_in() -> str | Response:
    if request.method == "POST":
        try:
            user = login.sign_in(request.form["email"], request.form["password"])
        except login.Locked:
            flash("Too many attempts: try again in 15 minutes.")
            user = None
        if user:
            return redirect(url_for("store.home"))
        flash("Wrong email or password.")
    return render_template("login.html")


@blueprint.post("/logout")
def sign_out() -> Response:
    user = sessions.current_user()
    if user:
        sessions.sign_out(user)
    return redirect(url_for("store.home"))


@blueprint.post("/password-reset")
def ask_for_reset() -> Response:
    password_reset.send_link(request.form["email"])
    flash("If the address has an account, a link is on its way.")
    return redirect(url_for("auth.sign_in"))


@blueprint.route("/password-reset/<token>", methods=["GET", "POST"])
def reset_password(token: str) -> str | Response:
    if request.method == "POST":
        if password_reset.reset(token, request.form["password"]):
            return redirect(url_for("auth.sign_in"))
        flash("This link has expired or was used already.")
    return render_template("reset.html")
