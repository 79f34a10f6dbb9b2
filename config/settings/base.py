"""Settings shared by every environment. Everything that differs between machines is read from
the environment (django-environ); nothing secret has a default here."""

import datetime as dt
from pathlib import Path

import environ
from csp.constants import NONE, SELF, UNSAFE_INLINE
from django.utils.translation import gettext_lazy as _

from config.cache import cache_config
from config.logging import logging_config

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()
if (BASE_DIR / ".env").is_file():
    env.read_env(BASE_DIR / ".env")

# SECRET_KEY and ALLOWED_HOSTS are set by each environment's module: production has no default.
DEBUG = env.bool("DJANGO_DEBUG", default=False)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "template_partials",
    "simple_history",
    "csp",
    "axes",
    "accounts",
    "catalog",
    "planner",
]

MIDDLEWARE = [
    "config.metrics.PrometheusMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "config.middleware.ApiErrorsAsJsonMiddleware",
    "config.middleware.BodySizeLimitMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
    # Last, as django-axes asks: it turns a locked-out sign-in into the lockout page.
    "axes.middleware.AxesMiddleware",
]

# Content-Security-Policy (django-csp): everything from our own origin; inline style attributes
# allowed (templates and htmx's indicator style use them), inline scripts and string evaluation
# never (templates/base.html turns htmx's allowEval off).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, UNSAFE_INLINE],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "font-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}
# What the API's documentation pages add (config/urls.py): Swagger UI and ReDoc (drf-spectacular's
# sidecar files) start from an inline script, and ReDoc runs its renderer in a blob: worker.
FLOPFIT_CSP_API_DOCS = {"script-src": [UNSAFE_INLINE], "worker-src": [SELF, "blob:"]}

LOGIN_URL = "accounts:login"
# Password guessing (django-axes): after FLOPFIT_LOGIN_FAILURES wrong passwords for one account
# from one address, the login forms (the site's and the admin's) refuse that account there for
# FLOPFIT_LOGIN_LOCKOUT_S, each failure restarting the period; the right password forgets the
# failures. The attempts are rows in the database, so every web worker counts the same guesses.
FLOPFIT_LOGIN_FAILURES = env.int("FLOPFIT_LOGIN_FAILURES", default=5)
FLOPFIT_LOGIN_LOCKOUT_S = env.int("FLOPFIT_LOGIN_LOCKOUT_S", default=15 * 60)
AXES_FAILURE_LIMIT = FLOPFIT_LOGIN_FAILURES
AXES_COOLOFF_TIME = dt.timedelta(seconds=FLOPFIT_LOGIN_LOCKOUT_S)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "accounts.views.locked_out"
# No banner at every start: the commands' standard error is for their own one-line errors.
# Failures and lockouts are still logged (by account and address, masked).
AXES_VERBOSE = False
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "catalog.context_processors.currency",
            ],
        },
    },
]

# The embedded default is a SQLite file under var/, so `make run` needs no database server.
DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'flopfit.sqlite3'}"),
}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("zh-hans", _("Simplified Chinese"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env("TIME_ZONE", default="UTC")
USE_I18N = True
# Number formats of our own where Django's differ from how our readers write (config/formats).
FORMAT_MODULE_PATH = ["config.formats"]
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# Prices are stored in the currency their source quotes; pages convert for display at this rate.
FLOPFIT_CNY_PER_USD = env.float("FLOPFIT_CNY_PER_USD", default=7.10)
FLOPFIT_CNY_PER_USD_DATE = env("FLOPFIT_CNY_PER_USD_DATE", default="2026-11")

# Request bodies: /api/ answers 413 past this (config/middleware.py); forms answer 400 past
# the same size. Rack CSV imports (256 KiB) stay well inside.
FLOPFIT_MAX_BODY_BYTES = env.int("FLOPFIT_MAX_BODY_BYTES", default=1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = FLOPFIT_MAX_BODY_BYTES

# The shared cache (throttling counters, cached pages): Redis when CACHE_URL or REDIS_URL is
# set, failing open while it is down; this process's memory otherwise, so `make run` needs no
# server.
CACHES = {
    "default": cache_config(
        env("CACHE_URL", default=env("REDIS_URL", default="")),
        timeout_s=env.float("REDIS_CACHE_TIMEOUT_S", default=0.5),
    )
}

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "config.schema.ErrorDocumentingAutoSchema",
    "EXCEPTION_HANDLER": "config.exceptions.api_exception_handler",
    # Per signed-in user and per anonymous address, counted in the shared cache; `compute`
    # adds a tighter rate for the writes that rank, estimate or simulate.
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
        "config.throttling.ComputeRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env("FLOPFIT_THROTTLE_ANON", default="120/min"),
        "user": env("FLOPFIT_THROTTLE_USER", default="1200/min"),
        "compute": env("FLOPFIT_THROTTLE_COMPUTE", default="60/min"),
    },
    # JSON bodies are read with a depth limit and refuse what no store holds (config/json_input).
    "DEFAULT_PARSER_CLASSES": [
        "config.json_input.StrictJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "catalog.api.pagination.CatalogPagination",
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    # The token class comes first so an anonymous request gets 401 with WWW-Authenticate.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
}

SPECTACULAR_SETTINGS = {
    "TITLE": "flopfit API",
    "DESCRIPTION": (
        "Catalog of accelerators, servers, fabrics and model architectures for GPU/NPU "
        "capacity planning. FLOP rates are dense (never the 2:4 sparsity headline); memory in "
        "GiB, bandwidth in GB/s, link speeds in Gbit/s."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Pydantic writes optional fields as anyOf [..., null], which OpenAPI 3.1 (JSON Schema
    # 2020-12) reads as it is meant.
    "OAS_VERSION": "3.1.0",
    "ENUM_NAME_OVERRIDES": {
        "MaturityEnum": "catalog.choices.Maturity",
        "AcceleratorCoolingEnum": "catalog.choices.Cooling",
        "ServerCoolingEnum": "catalog.choices.ServerCooling",
        "AcceleratorKindEnum": "catalog.choices.AcceleratorKind",
        "FabricKindEnum": "catalog.choices.FabricKind",
        "CurrencyEnum": "catalog.choices.Currency",
        "SimulationKindEnum": "planner.choices.SimulationKind",
        "SimulationStatusEnum": "planner.choices.SimulationStatus",
        "RackCoolingEnum": "planner.choices.RackCooling",
        "FeedsEnum": "planner.choices.Feeds",
        # The same choices as the contract declares them (values without labels).
        "RackCoolingValuesEnum": ["air", "rdhx", "liquid"],
        "FeedsValuesEnum": ["single", "2n"],
    },
}

# Celery: every setting carries the CELERY_ prefix (config/celery.py reads them). The embedded
# default is SQLAlchemy's transport on a SQLite file, so a worker runs with no broker server.
CELERY_BROKER_URL = env(
    "CELERY_BROKER_URL", default=f"sqla+sqlite:///{VAR_DIR / 'celery-broker.sqlite3'}"
)
CELERY_RESULT_BACKEND = env(
    "CELERY_RESULT_BACKEND", default=f"db+sqlite:///{VAR_DIR / 'celery-results.sqlite3'}"
)
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_TASK_TIME_LIMIT = env.int("CELERY_TASK_TIME_LIMIT", default=15 * 60)
SIMULATION_SOFT_TIME_LIMIT_S = env.int("SIMULATION_SOFT_TIME_LIMIT_S", default=600)
# How often a running simulation writes its progress to its row (seconds; 0: at every report).
SIMULATION_PROGRESS_EVERY_S = env.float("SIMULATION_PROGRESS_EVERY_S", default=0.5)
CELERY_TASK_SOFT_TIME_LIMIT = env.int("CELERY_TASK_SOFT_TIME_LIMIT", default=14 * 60)
CELERY_TASK_TRACK_STARTED = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_ALWAYS_EAGER = False
# Give up publishing after 2 s when the broker is down, instead of retrying for ever.
CELERY_BROKER_CONNECTION_TIMEOUT = 2
# An unacknowledged task (its worker died) is delivered again after this many seconds. It must
# exceed the longest task, or a run still going is delivered a second time: so it is the longest
# hard time limit plus a minute (production refuses less).
CELERY_VISIBILITY_TIMEOUT_S = env.int(
    "CELERY_VISIBILITY_TIMEOUT_S",
    default=max(CELERY_TASK_TIME_LIMIT, SIMULATION_SOFT_TIME_LIMIT_S + 30) + 60,
)
CELERY_BROKER_TRANSPORT_OPTIONS = (
    {
        "socket_connect_timeout": 2,
        "socket_timeout": 5,
        "visibility_timeout": CELERY_VISIBILITY_TIMEOUT_S,
    }
    # The options are Redis's; SQLAlchemy's transport would hand them to create_engine().
    if CELERY_BROKER_URL.startswith(("redis://", "rediss://"))
    else {}
)
# The result store answers as fast as the broker when Redis is down: by default the web process
# retries its result subscription 20 times, a second apart, before a start can fail. A worker
# loses only the stored return value, which nothing but a sweep's chord counts on.
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = 2
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {
    "retry_policy": {"max_retries": 1, "interval_start": 0.2, "interval_step": 0.2}
}
# A worker whose broker went away keeps trying to reconnect (every 2 s, backing off to 30 s)
# instead of exiting after 100 tries: it resumes consuming as soon as the broker is back.
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
# Simulations stuck in queued or running past their hard time limit plus a grace (their task
# was lost: Redis restarted without persistence, a worker was killed) are queued again by this
# periodic task; `make run` and docker-compose start Celery beat beside the worker.
CELERY_BEAT_SCHEDULE = {
    "simulations-requeue-stuck": {
        "task": "planner.simulation.requeue_stuck",
        "schedule": env.float("SIMULATION_REQUEUE_EVERY_S", default=60.0),
    },
}
CELERY_BEAT_SCHEDULE_FILENAME = env(
    "CELERY_BEAT_SCHEDULE_FILENAME", default=str(VAR_DIR / "celerybeat-schedule")
)

# LOG_FORMAT=json writes one JSON object per line to stdout (production's default).
LOGGING = logging_config(
    log_format=env("LOG_FORMAT", default="plain"), level=env("LOG_LEVEL", default="INFO")
)
