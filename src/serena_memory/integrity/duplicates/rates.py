"""A rate limit said in two memories: `rateLimit(100/min)` / "allows 60 requests per
minute" / `300 requests/min`. A rate is a number per a span of time; a line that names a
rate limit (`rate limit`, `rateLimit`, `rate-limiting`, a throttle) and says one rate
says the limit, however the rest of the line is worded, so two memories that give one
limit two rates per one span contradict each other (:mod:`.named` compares them as
values of the name ``rate limit``, its unit the span).

A line with two rates or more (a tier per route, a burst and a sustained rate) says
several limits, none of them *the* limit: it gives none.
"""

from __future__ import annotations

import re

_LIMITED = re.compile(r"rate[\s_-]?limit|throttl", re.IGNORECASE)
"""Words of a line that say it is about a rate limit."""
_RATE = re.compile(
    r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)[`*]{0,2}\s*(?:(?:req(?:uest)?s?|calls?|hits?)\s*)?(?:/|\bper\s+|\ba\s+)"
    r"(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d)\b",
    re.IGNORECASE,
)
"""A number per a span of time (`100/min`, `60 requests per minute`, `10 req/s`,
`5,000/hour` whole: its thousands are not a number of their own)."""
_SPANS = {"s": "second", "m": "minute", "h": "hour", "d": "day"}


def rate_limit(said: str) -> tuple[str, str] | None:
    """The one rate limit a line says, as (number, span: `second`, `minute`, `hour`,
    `day`), or None: no rate limit named, no rate, or several rates."""
    if _LIMITED.search(said) is None:
        return None
    found = _RATE.findall(said)
    if len(found) != 1:
        return None
    number, span = found[0]
    return number.replace(",", ""), _SPANS[span[0].lower()]
