"""Redis, the broker and cache, stopped for a while under a running site: starting a simulation
answers a clear 503 within 2 s, pages still render, and once Redis is back the same worker
resumes consuming, without a restart.

Redis is the test's own (the shared one is left alone); gunicorn and the worker are real
processes on the test database."""

import re
import time

import pytest
import requests
from django.test import Client
from django.urls import reverse

from accounts.roles import Role
from accounts.services import team_get_or_create, token_create, user_create
from planner.choices import SimulationStatus
from planner.models import Simulation
from planner.plans.services import plan_create
from tests.faults.conftest import app_environment, shared_database_url
from tests.processes import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# The deadline for "the queue is down" answers.
QUEUE_DOWN_ANSWER_S = 2.0
# Redis stays down this long: past the worker's first reconnection attempts, so it must keep
# trying rather than find Redis back on its first.
OUTAGE_S = 6
# Celery's consumer retries the broker 2 s, then 4 s, 6 s ... apart (at most 30 s): after a 6 s
# outage it is consuming again about 12 s after Redis went away.
WORKER_RESUMES_WITHIN_S = 60


def training(trials: int) -> dict:
    """A quick training question; `trials` makes each one a distinct row."""
    return {
        "kind": "training",
        "estimate": {
            "task": "train",
            "model": "meta-llama-3-8b",
            "accelerator": "nvidia-h100-sxm5-80gb",
            "count": 64,
            "tokens": 1e11,
        },
        "trials": trials,
    }


SWEEP = {
    "kind": "sweep",
    "simulation": {"kind": "training", "trials": 300},
    "candidates": [
        training(trials=300)["estimate"],
        {**training(trials=300)["estimate"], "accelerator": "nvidia-a100-sxm4-80gb"},
    ],
}
TRAINING_FORM = {
    "model": "meta-llama-3-8b",
    "accelerator": "nvidia-h100-sxm5-80gb",
    "count": "64",
    "precision": "bf16",
    "fabric": "",
    "tokens": "1e11",
    "failures_per_gpu_hour": "2e-5",
    "checkpoint_gb_s": "",
    "restart_min": "15",
    "trials": "300",
}


@pytest.fixture
def site_on_private_redis(loaded_catalog, private_redis, processes):
    """gunicorn and one worker whose broker, result store and cache are the private Redis, a
    planner signed in to the pages and holding an API token, and one plan to look at."""
    team = team_get_or_create(name="Alpha")
    planner = user_create(
        username="pat", password="a-long-test-password", role=Role.PLANNER, team=team
    )
    _, key = token_create(user=planner, name="faults")
    plan = plan_create(
        data={
            "workload": {"task": "train", "model": "meta-llama-3-8b", "tokens": 1e11},
            "deadline_days": 30,
            "name": "Cluster 2026",
            "accelerators": ["nvidia-h100-sxm5-80gb", "nvidia-a100-sxm4-80gb"],
            "count": {"min": 8, "max": 64},
        },
        user=planner,
        team=team,
    )
    signed_in = Client()
    signed_in.force_login(planner)
    env = app_environment(
        DATABASE_URL=shared_database_url(),
        CELERY_BROKER_URL=private_redis.url(0),
        CELERY_RESULT_BACKEND=private_redis.url(1),
        CACHE_URL=private_redis.url(2),
        REDIS_URL=private_redis.url(2),
    )
    base = processes.gunicorn(env)
    processes.worker(env)
    api = requests.Session()
    api.headers["Authorization"] = f"Token {key}"
    browser = requests.Session()
    browser.cookies.set("sessionid", signed_in.cookies["sessionid"].value)
    return {"base": base, "api": api, "browser": browser, "plan": plan}


def start_over_api(site, question: dict) -> tuple[requests.Response, float]:
    started = time.monotonic()
    answer = site["api"].post(f"{site['base']}/api/v1/simulations/", json=question, timeout=30)
    return answer, time.monotonic() - started


def finished_status(pk: int) -> str | None:
    row = Simulation.objects.get(pk=pk)
    return row.status if row.finished else None


def test_with_redis_down_starts_fail_fast_pages_render_and_the_worker_resumes(
    site_on_private_redis, private_redis
):
    site = site_on_private_redis
    base = site["base"]
    answer, _ = start_over_api(site, training(trials=200))
    assert answer.status_code == 202, answer.text
    before = answer.json()["id"]
    wait_for(lambda: finished_status(before), timeout=60, what="a run before the outage")

    private_redis.kill()
    down_since = time.monotonic()

    # The API, twice: the second start meets the result store's reconnection too, which by
    # Celery's defaults would retry for about 20 s.
    for trials in (201, 202):
        answer, took_s = start_over_api(site, training(trials=trials))
        assert answer.status_code == 503, answer.text
        assert "task queue" in answer.json()["detail"]
        assert answer.headers["Retry-After"].isdigit()
        assert took_s < QUEUE_DOWN_ANSWER_S
        print(f"start with Redis down: {answer.status_code} in {took_s:.3f} s")
    # A sweep publishes a chord, which meets the result store first.
    answer, took_s = start_over_api(site, SWEEP)
    assert answer.status_code == 503, answer.text
    assert took_s < QUEUE_DOWN_ANSWER_S
    # The form, as a browser posts it.
    form_url = base + reverse("planner:simulation_create", args=["training"])
    page = site["browser"].get(form_url, timeout=10)
    assert page.status_code == 200
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    started = time.monotonic()
    posted = site["browser"].post(
        form_url,
        data={**TRAINING_FORM, "csrfmiddlewaretoken": token},
        headers={"Referer": form_url},
        timeout=30,
    )
    assert time.monotonic() - started < QUEUE_DOWN_ANSWER_S
    assert posted.status_code == 503
    assert "task queue is not answering" in posted.text
    # Nothing that could not be queued is left looking queued.
    assert not Simulation.objects.filter(status=SimulationStatus.QUEUED).exists()

    # Reading needs neither the broker nor the cache.
    for path in (
        reverse("home"),
        reverse("catalog:accelerator_list"),
        site["plan"].get_absolute_url(),
        reverse("planner:simulation_list"),
    ):
        shown = site["browser"].get(base + path, timeout=10)
        assert shown.status_code == 200, f"{path}: {shown.status_code}"
    listed = site["api"].get(f"{base}/api/v1/accelerators/", timeout=10)
    assert listed.status_code == 200

    # Down for a while: long enough that the worker's first reconnection attempts fail too.
    time.sleep(max(0.0, OUTAGE_S - (time.monotonic() - down_since)))
    private_redis.start()  # the same port, empty: nothing was queued while it was down

    # The web process reconnects on its next publish; the worker, which was never restarted,
    # picks the task up once its own reconnection attempt comes round.
    answer, _ = start_over_api(site, training(trials=203))
    assert answer.status_code == 202, answer.text
    after = answer.json()["id"]
    status = wait_for(
        lambda: finished_status(after), timeout=WORKER_RESUMES_WITHIN_S, what="the worker resumed"
    )
    assert status == SimulationStatus.SUCCEEDED
