"""Rate limits per token and per IP: a sliding window of one minute in Redis."""

import time
import uuid

import redis
from flask import current_app

PER_TOKEN_PER_MINUTE = 600
PER_IP_PER_MINUTE = 300
WINDOW_SECONDS = 60


def allow(key: str, limit: int) -> bool:
    """Whether one more request of ``key`` (``token:PREFIX``, ``ip:ADDRESS``) fits."""
    now = time.time()
    client = redis.Redis.from_url(current_app.config["REDIS_URL"])
    with client.pipeline() as pipe:
        pipe.zremrangebyscore(key, 0, now - WINDOW_SECONDS)
        pipe.zadd(key, {uuid.uuid4().hex: now})
        pipe.zcard(key)
        pipe.expire(key, WINDOW_SECONDS)
        count = pipe.execute()[2]
    return int(count) <= limit
