"""The load mix: each endpoint group at a fixed request rate, whatever the response times.

`bench/load/run.py` starts locust on this file with LOAD_CONFIG naming a JSON file that holds
the seeded rows (bench/load/seed.py) and the rate of each group in requests/s. No locust user
sends more than one request per second (see mix.users_and_rate); each user fires on a fixed
schedule, one period apart, from a random point of its first period, so that the users of a
group do not fire in step.

Only the expected answer counts as a success: 200, or 200 and 202 for a simulation start.
Redirects are not followed: a lost session would otherwise look like a served login page.
"""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import gevent
from locust import FastHttpUser, task
from mix import users_and_rate  # locust puts this file's folder on sys.path

CONFIG = json.loads(Path(os.environ["LOAD_CONFIG"]).read_text(encoding="utf-8"))
SEED = CONFIG["seed"]
RATES_RPS = CONFIG["rates_rps"]
# Share of simulation starts that ask a new question (a new seed: a new inputs hash, so a new
# row and a task for the worker); the others repeat one question and get its row back.
FRESH_SIMULATION_SHARE = CONFIG.get("fresh_simulation_share", 0.1)

# The API's own examples (planner/api/serializers.py EXAMPLES), in turn.
ESTIMATES = (
    {
        "task": "train",
        "model": "meta-llama-3-70b",
        "accelerator": "nvidia-h100-sxm5-80gb",
        "count": 1024,
        "fabric": "ib-ndr-400",
        "tokens": 2e12,
    },
    {
        "task": "finetune",
        "model": "meta-llama-2-7b",
        "accelerator": "nvidia-rtx-3090",
        "count": 1,
        "method": "qlora",
        "global_batch": 8,
        "seq_len": 512,
    },
    {
        "task": "inference",
        "model": "meta-llama-3-8b",
        "accelerator": "nvidia-h100-sxm5-80gb",
        "count": 1,
        "inference": {"batch": 16, "prompt_len": 512, "output_len": 128},
    },
)
# A short campaign (200 trials), so the fresh ones keep the worker busy without a backlog.
SIMULATION = {
    "kind": "training",
    "estimate": {
        "task": "train",
        "model": "meta-llama-3-8b",
        "accelerator": "nvidia-h100-sxm5-80gb",
        "count": 64,
        "tokens": 1e11,
    },
    "trials": 200,
    "seed": 0,
}
FRESH_SEEDS = (1, 2**31)


class PacedUser(FastHttpUser):
    # geventhttpclient rather than requests: on a 2-core machine shared with the server, the
    # load generator's own parsing time would otherwise show up as server latency.
    abstract = True
    group = ""

    period_s = 1.0
    next_slot_s = 0.0

    def on_start(self) -> None:
        # Spread the group's users over one period instead of all firing at the same instant.
        gevent.sleep(random.uniform(0, self.period_s))
        self.next_slot_s = time.monotonic()

    def wait_time(self) -> float:
        """Until this user's next slot. Slots are one period apart and keep their phase;
        locust's constant_throughput counts on_start's sleep as task time, which puts every
        user back in step after the first request. A late response moves the slot, never
        bunches requests to catch up."""
        now = time.monotonic()
        self.next_slot_s = max(self.next_slot_s + self.period_s, now)
        return self.next_slot_s - now

    def _expect(self, response, *codes: int) -> None:
        if response.status_code in codes:
            response.success()
        else:
            response.failure(f"HTTP {response.status_code}")


class CatalogPageUser(PacedUser):
    group = "catalog page"

    @task
    def accelerator_list(self) -> None:
        with self.client.get(
            "/catalog/accelerators/", name=self.group, allow_redirects=False, catch_response=True
        ) as response:
            self._expect(response, 200)


class CatalogApiUser(PacedUser):
    group = "catalog API"

    @task
    def accelerator_list(self) -> None:
        with self.client.get(
            "/api/v1/accelerators/",
            name=self.group,
            headers={"Authorization": f"Token {SEED['token']}"},
            catch_response=True,
        ) as response:
            self._expect(response, 200)


class PlanPageUser(PacedUser):
    group = "plan page"

    @task
    def plan_detail(self) -> None:
        with self.client.get(
            f"/plans/{SEED['plan_id']}/",
            name=self.group,
            headers={"Cookie": SEED["session_cookie"]},
            allow_redirects=False,
            catch_response=True,
        ) as response:
            self._expect(response, 200)


class EstimateUser(PacedUser):
    group = "estimate"

    def on_start(self) -> None:
        super().on_start()
        self.turn = random.randrange(len(ESTIMATES))

    @task
    def estimate(self) -> None:
        self.turn = (self.turn + 1) % len(ESTIMATES)
        with self.client.post(
            "/api/v1/estimates/", json=ESTIMATES[self.turn], name=self.group, catch_response=True
        ) as response:
            self._expect(response, 200)


class SimulationUser(PacedUser):
    group = "simulation start"

    @task
    def simulation_start(self) -> None:
        question = SIMULATION
        if random.random() < FRESH_SIMULATION_SHARE:
            question = {**SIMULATION, "seed": random.randint(*FRESH_SEEDS)}
        with self.client.post(
            "/api/v1/simulations/",
            json=question,
            name=self.group,
            headers={"Authorization": f"Token {SEED['token']}"},
            catch_response=True,
        ) as response:
            # 202: queued now; 200: the row that already answers this question.
            self._expect(response, 200, 202)


def _pace(*user_classes: type[PacedUser]) -> None:
    """Each group's number of users and per-user rate. (A function, not a module-level loop:
    locust takes every User class bound to a module-level name as one to run.)"""
    for user_class in user_classes:
        count, per_user_rps = users_and_rate(RATES_RPS[user_class.group])
        user_class.fixed_count = count
        if count:
            user_class.period_s = 1 / per_user_rps


_pace(CatalogPageUser, CatalogApiUser, PlanPageUser, EstimateUser, SimulationUser)
