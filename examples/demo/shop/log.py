"""JSON logs to stdout with the request id in every line; queries slower than 200 ms are
logged with their plan."""

import json
import logging
import sys
import time
import uuid
from typing import Any

from flask import Flask, g, has_request_context, request
from sqlalchemy import event
from sqlalchemy.engine import Engine

SLOW_QUERY_SECONDS = 0.2
logger = logging.getLogger("shop")


class JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": self.formatTime(record),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": g.get("request_id") if has_request_context() else None,
        }
        line.update(getattr(record, "fields", {}))
        return json.dumps(line, default=str)


def init_app(app: Flask) -> None:
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(JsonLines())
    logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)

    @app.before_request
    def assign_request_id() -> None:
        g.request_id = request.headers.get("X-Request-Id") or uuid.uuid4().hex


@event.listens_for(Engine, "before_cursor_execute")
def _started(conn: Any, cursor: Any, statement: str, params: Any, context: Any, many: bool) -> None:
    conn.info["query_started"] = time.monotonic()


@event.listens_for(Engine, "after_cursor_execute")
def _finished(
    conn: Any, cursor: Any, statement: str, params: Any, context: Any, many: bool
) -> None:
    seconds = time.monotonic() - conn.info.pop("query_started", time.monotonic())
    if seconds < SLOW_QUERY_SECONDS or many or not statement.lstrip().upper().startswith("SELECT"):
        return
    cursor.execute("EXPLAIN " + statement, params)
    plan = "\n".join(row[0] for row in cursor.fetchall())
    logger.warning("slow query", extra={"fields": {"ms": round(seconds * 1000), "plan": plan}})
