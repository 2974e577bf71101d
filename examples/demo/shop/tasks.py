"""Background jobs (``celery -A shop.tasks worker -l info``): Stripe events, invoices,
emails, images. The services import this module to send tasks; each task imports its
service when it runs."""

from typing import Any

from celery import Celery, Task
from flask import Flask, has_app_context


class AppTask(Task):  # type: ignore[misc]
    """Runs inside an app context: the caller's, else the worker's own app."""

    _app: Flask | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if has_app_context():
            return self.run(*args, **kwargs)
        if AppTask._app is None:
            from shop import create_app

            AppTask._app = create_app()
        with AppTask._app.app_context():
            return self.run(*args, **kwargs)


celery = Celery("shop", task_cls=AppTask)
celery.config_from_object("shop.config:CeleryConfig")


@celery.task
def handle_stripe_event(event_id: str) -> None:
    from shop.services import webhooks

    webhooks.handle(event_id)


@celery.task
def issue_invoice(order_id: int) -> None:
    from shop.services import invoices

    invoices.issue(order_id)


@celery.task
def send_email(to: str, template: str, context: dict[str, Any]) -> None:
    from shop.services import mailer

    mailer.deliver(to, template, context)


@celery.task
def resize_image(product_id: int, key: str) -> None:
    from shop.services import images

    images.resize(product_id, key)
