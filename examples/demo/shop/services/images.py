"""Product images: uploaded to the bucket, resized by a Celery task to three widths,
served through the CDN with a hash of their content in the name."""

import hashlib
from io import BytesIO

from PIL import Image

from shop import tasks
from shop.db import session
from shop.models import Product
from shop.services import storage

WIDTHS = (320, 640, 1280)


def upload(product: Product, body: bytes, content_type: str) -> None:
    key = storage.put(storage.IMAGES, f"{product.id}/original", body, content_type)
    tasks.resize_image.delay(product.id, key)


def resize(product_id: int, key: str) -> None:
    product = session.get_one(Product, product_id)
    original = Image.open(BytesIO(storage.get(key)))
    names = {}
    for width in WIDTHS:
        copy = original.copy()
        copy.thumbnail((width, width * 4))
        out = BytesIO()
        copy.save(out, "WEBP")
        digest = hashlib.sha256(out.getvalue()).hexdigest()[:16]
        name = f"{product_id}/{width}-{digest}.webp"
        names[str(width)] = storage.put(storage.IMAGES, name, out.getvalue(), "image/webp")
    product.images = names
    session.commit()
