"""The Celery application. Every setting comes from Django settings under the CELERY_ prefix."""

import os

from celery import Celery, signals

from config.logging import configure_worker_logging
from config.metrics import connect_celery_signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("flopfit")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# Feature packages keep their tasks in their own tasks.py.
app.autodiscover_tasks(["planner.simulations"])

# Task metrics (config/metrics.py) and JSON worker logs through Django's LOGGING.
signals.setup_logging.connect(configure_worker_logging, weak=False)
connect_celery_signals()
