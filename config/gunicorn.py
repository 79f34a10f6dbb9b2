"""gunicorn's configuration for production: `gunicorn -c config/gunicorn.py config.wsgi`.

Every value can be changed from the environment; logs go to stdout as JSON lines (access and
error logs alike); with PROMETHEUS_MULTIPROC_DIR set, each worker's metric samples are files
there, cleared when the server starts and marked dead when a worker exits."""

import os

# gunicorn serves production, as config/wsgi.py says; set it before anything imports the config
# package, whose Celery module would otherwise choose the local settings.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")


def _env_int(name: str, default: int, minimum: int = 1) -> int:
    raw = os.environ.get(name, "")
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SystemExit(f"{name} must be a whole number, not {raw!r}") from None
    if value < minimum:
        raise SystemExit(f"{name} must be at least {minimum}, not {value}")
    return value


bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
# Simulations and the layout search run on the Celery worker; requests are short and CPU-bound,
# so one process per core plus one is the usual starting point.
workers = _env_int("GUNICORN_WORKERS", (os.cpu_count() or 1) + 1)
threads = _env_int("GUNICORN_THREADS", 1)
# A worker silent for this long is killed and replaced; an estimate takes well under a second.
timeout = _env_int("GUNICORN_TIMEOUT_S", 30)
graceful_timeout = _env_int("GUNICORN_GRACEFUL_TIMEOUT_S", 30)
keepalive = _env_int("GUNICORN_KEEPALIVE_S", 5)
# Replace a worker after this many requests (0: never), with jitter so they do not all restart
# together; a guard against slow memory growth.
max_requests = _env_int("GUNICORN_MAX_REQUESTS", 0, minimum=0)
max_requests_jitter = _env_int("GUNICORN_MAX_REQUESTS_JITTER", 0, minimum=0)
# Only the proxy in front may say the request came over HTTPS (X-Forwarded-Proto); in a
# container network that is the proxy's address, given through this variable.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")
# The heartbeat file lives in memory: a container's /tmp may be on a slow overlay disk.
worker_tmp_dir = os.environ.get(
    "GUNICORN_WORKER_TMP_DIR", "/dev/shm" if os.path.isdir("/dev/shm") else None
)
# No runtime control socket (gunicorn 24+): nothing here uses it, and its default path in the
# home directory would be shared by every gunicorn the same user runs on one machine.
control_socket_disable = True

# Access and error logs: one JSON object per line on stdout (config/logging.py).
accesslog = None  # logconfig_dict below routes gunicorn.access instead
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "INFO").lower()
logconfig_dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "json": {"()": "config.logging.JsonFormatter"},
        "access": {"()": "config.logging.GunicornAccessFormatter"},
    },
    "handlers": {
        "error_console": {
            "class": "logging.StreamHandler",
            "stream": "ext://sys.stdout",
            "formatter": "json",
        },
        "console": {
            "class": "logging.StreamHandler",
            "stream": "ext://sys.stdout",
            "formatter": "access",
        },
    },
    "loggers": {
        "gunicorn.error": {
            "level": loglevel.upper(),
            "handlers": ["error_console"],
            "propagate": False,
        },
        "gunicorn.access": {"level": "INFO", "handlers": ["console"], "propagate": False},
    },
    "root": {"level": loglevel.upper(), "handlers": ["error_console"]},
}


def on_starting(server) -> None:
    """Before the first worker forks: samples from a previous run are not this run's."""
    from config.metrics import clear_multiproc_dir

    clear_multiproc_dir()


def child_exit(server, worker) -> None:
    """A worker exited: remove its live-gauge files so they stop counting."""
    from prometheus_client import multiprocess

    from config.metrics import multiproc_dir

    path = multiproc_dir()
    if path is not None:
        multiprocess.mark_process_dead(worker.pid, str(path))
