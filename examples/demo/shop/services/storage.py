"""The environment's S3-compatible bucket; keys start with one of three prefixes."""

from typing import Any

import boto3
from flask import current_app

IMAGES = "images/"
INVOICES = "invoices/"
BACKUPS = "backups/"  # written by scripts/backup.sh; deleted after 30 days by the bucket


def _bucket() -> tuple[Any, str]:
    config = current_app.config
    return boto3.client("s3", endpoint_url=config["S3_ENDPOINT"]), config["BUCKET"]


def put(prefix: str, name: str, body: bytes, content_type: str) -> str:
    client, bucket = _bucket()
    key = prefix + name
    client.put_object(Bucket=bucket, Key=key, Body=body, ContentType=content_type)
    return key


def get(key: str) -> bytes:
    client, bucket = _bucket()
    return bytes(client.get_object(Bucket=bucket, Key=key)["Body"].read())


def public_url(key: str) -> str:
    """Through the CDN: the names carry a hash of their content, so they are cached forever."""
    return f"{current_app.config['CDN_URL']}/{key}"
