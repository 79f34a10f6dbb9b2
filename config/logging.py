"""Log records as JSON lines: one object per line on stdout, for a log shipper to read without
parsing free text. Settings build their LOGGING dict with `logging_config()`; gunicorn's
config (config/gunicorn.py) and the Celery worker (config/celery.py) use the same formatters."""

import json
import logging
import logging.config
from collections.abc import Mapping
from datetime import UTC, datetime

from django.core.exceptions import ImproperlyConfigured

LOG_FORMATS = ("plain", "json")
PLAIN_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"

# Attributes every LogRecord has; anything else on a record came from `extra=` and is kept.
_RECORD_ATTRIBUTES = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
}


def utc_timestamp(created_s: float) -> str:
    """ISO 8601 in UTC with milliseconds and a `Z`, e.g. 2026-11-02T09:15:03.120Z."""
    moment = datetime.fromtimestamp(created_s, tz=UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, the exception text when there
    is one, and whatever the caller passed through `extra=`.

    Non-ASCII text is escaped (`\\uXXXX`), so a line stays valid whatever encoding stdout has."""

    def format(self, record: logging.LogRecord) -> str:
        payload = {
            "time": utc_timestamp(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        payload.update(self.fields(record))
        for key, value in vars(record).items():
            if key not in _RECORD_ATTRIBUTES and key not in payload:
                payload[key] = value
        if record.exc_info:
            payload["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            payload["exception"] = record.exc_text
        if record.stack_info:
            payload["stack"] = self.formatStack(record.stack_info)
        # default=str: an `extra=` value that JSON cannot hold (a UUID, a Decimal) still logs.
        return json.dumps(payload, default=str)

    def fields(self, record: logging.LogRecord) -> dict:
        """Fields a subclass adds from the record; the base adds none."""
        return {}


def _atom_number(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


class GunicornAccessFormatter(JsonFormatter):
    """gunicorn's access log as JSON. gunicorn logs each request with its atoms (the values of
    `%(h)s`, `%(m)s`, ...) as the record's args; the fields are read from them, so the line
    does not depend on `access_log_format`."""

    def fields(self, record: logging.LogRecord) -> dict:
        atoms = record.args
        if not isinstance(atoms, Mapping):
            return {}
        duration_us = _atom_number(atoms["D"])
        return {
            "request_id": atoms["{x-request-id}i"],
            "method": atoms["m"],
            "path": atoms["U"],
            "query": atoms["q"],
            "status": _atom_number(atoms["s"]),
            "duration_ms": None if duration_us is None else round(duration_us / 1000, 3),
            "response_bytes": _atom_number(atoms["B"]),
            "remote_addr": atoms["h"],
            "user_agent": atoms["a"],
        }


def logging_config(*, log_format: str, level: str) -> dict:
    """The LOGGING dict for Django settings: every record to stdout, plain text or JSON."""
    if log_format not in LOG_FORMATS:
        raise ImproperlyConfigured(
            f"LOG_FORMAT must be one of {', '.join(LOG_FORMATS)}, not {log_format!r}"
        )
    if not isinstance(logging.getLevelName(level.upper()), int):
        raise ImproperlyConfigured(f"LOG_LEVEL {level!r} is not a logging level")
    # JSON goes to stdout for the log shipper; plain text stays on stderr, where a developer's
    # terminal and the test workers' captured logs have always had it.
    stream = "ext://sys.stdout" if log_format == "json" else "ext://sys.stderr"
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "plain": {"format": PLAIN_FORMAT},
            "json": {"()": "config.logging.JsonFormatter"},
        },
        "handlers": {
            "console": {"class": "logging.StreamHandler", "stream": stream, "formatter": log_format}
        },
        "root": {"handlers": ["console"], "level": level.upper()},
    }


def configure_worker_logging(*, loglevel=None, **kwargs) -> None:
    """Celery's `setup_logging` receiver: the worker logs through Django's LOGGING (JSON lines
    in production) instead of installing its own handlers; `--loglevel` still sets the level."""
    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)
    if loglevel:
        logging.getLogger().setLevel(loglevel)
