"""Prometheus metrics: request latency by route, Celery task durations and outcomes, and the
`/metrics` view that exposes them in the text exposition format.

gunicorn runs several worker processes and Celery several pool children, each with its own
memory. When PROMETHEUS_MULTIPROC_DIR is set (before prometheus_client is imported, i.e. in the
process environment), every process writes its samples to files there and `/metrics` merges
the files; otherwise the process's own registry is served. FLOPFIT_METRICS_READ_DIRS lists more
directories to merge, so the web can show the worker's task metrics from a shared volume."""

import hmac
import os
import shutil
import time
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)

MULTIPROC_DIR_ENV = "PROMETHEUS_MULTIPROC_DIR"
READ_DIRS_ENV = "FLOPFIT_METRICS_READ_DIRS"

# Methods outside this set share one label value, so a client inventing methods cannot grow
# the number of series.
KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
UNRESOLVED_ROUTE = "<unresolved>"

# Buckets in seconds around the targets pages and the API are held to (p95 under 150 ms for
# pages, 250 ms for an estimate), with room above for slow outliers.
REQUEST_BUCKETS_S = (0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5, 10)
# Tasks run from milliseconds (a catalog lookup) to the 15-minute hard limit.
TASK_BUCKETS_S = (0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 600, 900)

REQUEST_DURATION = Histogram(
    "flopfit_http_request_duration_seconds",
    "Time from the first middleware to the response, by route pattern.",
    ["method", "route", "status"],
    buckets=REQUEST_BUCKETS_S,
)
REQUESTS = Counter(
    "flopfit_http_requests",
    "Requests answered, by route pattern and status code.",
    ["method", "route", "status"],
)
TASK_DURATION = Histogram(
    "flopfit_task_duration_seconds",
    "Time a Celery task ran in its worker process, by task name and final state.",
    ["task", "outcome"],
    buckets=TASK_BUCKETS_S,
)
TASK_OUTCOMES = Counter(
    "flopfit_task_outcomes",
    "Celery task executions by task name and outcome: success, failure or retry.",
    ["task", "outcome"],
)


def route_label(request: HttpRequest) -> str:
    """The URL pattern that matched (`api/v1/plans/<int:pk>/`), never the raw path, so that the
    number of series stays bounded by the number of routes."""
    match = getattr(request, "resolver_match", None)
    if match is None:
        return UNRESOLVED_ROUTE
    return match.route or match.view_name or UNRESOLVED_ROUTE


class PrometheusMiddleware:
    """Times every request; first in MIDDLEWARE so the time covers the other middleware too."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        elapsed_s = time.perf_counter() - started
        method = request.method if request.method in KNOWN_METHODS else "other"
        labels = (method, route_label(request), str(response.status_code))
        REQUEST_DURATION.labels(*labels).observe(elapsed_s)
        REQUESTS.labels(*labels).inc()
        return response


# Celery signal receivers, connected in config/celery.py. A task's start time is kept by task
# id in the process that runs it (a pool child), between task_prerun and task_postrun.
_task_started: dict[str, float] = {}


def _task_name(sender=None, task=None, request=None) -> str:
    for candidate in (task, sender):
        name = getattr(candidate, "name", None)
        if name:
            return name
    return getattr(request, "task", None) or "unknown"


def on_task_prerun(sender=None, task_id=None, task=None, **kwargs) -> None:
    _task_started[task_id] = time.perf_counter()


def on_task_postrun(sender=None, task_id=None, task=None, state=None, **kwargs) -> None:
    started = _task_started.pop(task_id, None)
    if started is None:
        return
    outcome = (state or "unknown").lower()
    TASK_DURATION.labels(_task_name(sender, task), outcome).observe(time.perf_counter() - started)


def on_task_success(sender=None, **kwargs) -> None:
    TASK_OUTCOMES.labels(_task_name(sender), "success").inc()


def on_task_failure(sender=None, **kwargs) -> None:
    # Also sent by the worker's main process when a pool child died mid-task (hard time limit,
    # killed): no postrun then, so the failure is counted here and not there.
    TASK_OUTCOMES.labels(_task_name(sender), "failure").inc()


def on_task_retry(sender=None, request=None, **kwargs) -> None:
    TASK_OUTCOMES.labels(_task_name(sender, request=request), "retry").inc()


def on_worker_process_shutdown(pid=None, **kwargs) -> None:
    """A pool child is going away: drop its live-gauge files, as gunicorn's child_exit does."""
    path = multiproc_dir()
    if path is not None:
        multiprocess.mark_process_dead(pid or os.getpid(), str(path))


def on_worker_init(**kwargs) -> None:
    """The worker's main process starts: samples left by a previous run are not this run's."""
    clear_multiproc_dir()


def connect_celery_signals() -> None:
    from celery import signals

    signals.task_prerun.connect(on_task_prerun, weak=False)
    signals.task_postrun.connect(on_task_postrun, weak=False)
    signals.task_success.connect(on_task_success, weak=False)
    signals.task_failure.connect(on_task_failure, weak=False)
    signals.task_retry.connect(on_task_retry, weak=False)
    signals.worker_process_shutdown.connect(on_worker_process_shutdown, weak=False)
    signals.worker_init.connect(on_worker_init, weak=False)


def multiproc_dir() -> Path | None:
    value = os.environ.get(MULTIPROC_DIR_ENV, "")
    return Path(value) if value else None


def clear_multiproc_dir() -> None:
    """Remove the sample files of this process type's previous run (gunicorn's on_starting,
    the Celery worker's init). Each process type has its own directory, so the web starting
    does not erase the live worker's files."""
    path = multiproc_dir()
    if path is None:
        return
    path.mkdir(parents=True, exist_ok=True)
    for entry in path.iterdir():
        if entry.is_dir():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def read_dirs() -> list[Path]:
    dirs = []
    own = multiproc_dir()
    if own is not None:
        dirs.append(own)
    dirs.extend(Path(p) for p in os.environ.get(READ_DIRS_ENV, "").split(",") if p.strip())
    return dirs


class _MergedFiles:
    """A collector over the sample files of several multiprocess directories, merged into one
    set of metric families (a family from two directories would otherwise appear twice)."""

    def __init__(self, dirs: list[Path]):
        self.dirs = dirs

    def collect(self):
        files = sorted(str(f) for d in self.dirs if d.is_dir() for f in d.glob("*.db"))
        return multiprocess.MultiProcessCollector.merge(files, accumulate=True)


def exposition() -> bytes:
    dirs = read_dirs()
    if not dirs:
        return generate_latest(REGISTRY)
    registry = CollectorRegistry()
    registry.register(_MergedFiles(dirs))
    return generate_latest(registry)


def _authorised(request: HttpRequest) -> bool:
    token = getattr(settings, "FLOPFIT_METRICS_TOKEN", "")
    if not token:
        return True
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.encode(), token.encode())


@never_cache
@require_GET
def metrics_view(request: HttpRequest) -> HttpResponse:
    """Prometheus scrape endpoint. With FLOPFIT_METRICS_TOKEN set, it wants that bearer token."""
    if not _authorised(request):
        response = HttpResponse("metrics need a bearer token\n", status=401)
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        response["Content-Type"] = "text/plain; charset=utf-8"
        return response
    return HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST)
