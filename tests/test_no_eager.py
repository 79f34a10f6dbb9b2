"""No test runs Celery tasks eagerly. Eager mode calls the task in the caller's process and
thread: no serialisation, no broker, no acknowledgement, no second delivery, no time limit, so
every fault the worker tests look for would pass unseen. Tasks are tested on real workers
(tests/planner/test_simulation_worker.py, tests/faults/) or as plain service calls."""

import re
from pathlib import Path

from django.conf import settings

from config.celery import app

TESTS = Path(__file__).resolve().parent
# Turning eager mode on, in Django settings or Celery's own names, or running a task in-process
# with Task.apply().
EAGER = re.compile(r"always_eager|eager_propagates|\.apply\(", re.IGNORECASE)


def test_the_test_settings_queue_tasks_for_a_worker():
    assert settings.CELERY_TASK_ALWAYS_EAGER is False
    assert app.conf.task_always_eager is False


def test_no_test_turns_eager_mode_on():
    for turning_it_on in (
        "settings.CELERY_TASK_ALWAYS_EAGER = True",
        "app.conf.update(task_always_eager=True, task_eager_propagates=True)",
        "simulation_run_task.apply(args=[1])",
    ):
        assert EAGER.search(turning_it_on), turning_it_on
    this = Path(__file__).resolve()
    offenders = [
        f"{path.relative_to(TESTS.parent)}:{number}: {line.strip()}"
        for path in sorted(TESTS.rglob("*.py"))
        if path.resolve() != this
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if EAGER.search(line)
    ]
    assert not offenders, "eager mode in tests:\n" + "\n".join(offenders)
