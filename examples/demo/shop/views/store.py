"""The shop's pages: search (htmx swaps the results in) and checkout."""

from flask import Blueprint, current_app, render_template, request

from shop.services import checkout, search, sessions

blueprint = Blueprint("store", __name__)


@blueprint.get("/")
def home() -> str:
    return render_template("search.html")


@blueprint.get("/search")
def results() -> str:
    found = search.products(request.args.get("q", ""))
    return render_template("parts/results.html", products=found, facets=search.facets(found))


@blueprint.post("/checkout")
def pay() -> str:
    cart = {int(k): int(v) for k, v in request.form.items() if k.isdigit() and int(v) > 0}
    user = sessions.current_user()
    email = user.email if user else request.form["email"]
    order, client_secret = checkout.place_order(cart, request.form["country"], email, user)
    return render_template(
        "checkout.html",
        order=order,
        client_secret=client_secret,
        publishable_key=current_app.config["STRIPE_PUBLISHABLE_KEY"],
        offer_account=user is None,
    )
