"""Liveness and readiness for load balancers and container health checks.

`/healthz` says the process answers (it touches nothing else); `/readyz` says the process can do
its work: the database answers a query and the Celery broker accepts a connection. Neither is
behind login, throttled, cached or part of the API schema."""

import logging

from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

logger = logging.getLogger(__name__)

# A load balancer probes every few seconds and gives up after its own timeout; a broker that
# takes longer than this to accept a connection counts as down.
BROKER_TIMEOUT_S = 2.0


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


def check_database() -> str | None:
    """None when the database answers, else why not."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as exc:
        return f"{type(exc).__name__}: {exc}".strip()
    return None


def check_broker() -> str | None:
    """None when the Celery broker accepts a connection within BROKER_TIMEOUT_S, else why not."""
    from config.celery import app

    conn = app.connection_for_write()
    conn.connect_timeout = BROKER_TIMEOUT_S
    if conn.transport.driver_type == "redis":
        # The publishing socket may wait longer for a reply; a probe must not. (These options
        # are Redis's own: other transports would pass them on to their client unread.)
        conn.transport_options = {
            **conn.transport_options,
            "socket_connect_timeout": BROKER_TIMEOUT_S,
            "socket_timeout": BROKER_TIMEOUT_S,
        }
    try:
        # One attempt: kombu's connect() would retry once after a 2 s pause.
        conn.ensure_connection(max_retries=0, timeout=BROKER_TIMEOUT_S)
    except Exception as exc:  # every transport raises its own kind of error
        return f"{type(exc).__name__}: {exc}".strip()
    finally:
        conn.release()
    return None


@never_cache
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    """200 when the database and the broker both answer, else 503 naming which did not. The
    reasons go to the log only: this endpoint is public and they name internal hosts."""
    reasons = {"database": check_database(), "broker": check_broker()}
    checks = {name: "ok" if reason is None else "failed" for name, reason in reasons.items()}
    if any(reason is not None for reason in reasons.values()):
        failed = {name: reason for name, reason in reasons.items() if reason is not None}
        logger.warning("not ready: %s", failed)
        return JsonResponse({"status": "unavailable", "checks": checks}, status=503)
    return JsonResponse({"status": "ok", "checks": checks})
