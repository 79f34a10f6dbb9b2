"""How fast a plan ranks the whole catalog. Prints a table.

    .venv/bin/python bench/plan_speed.py

Needs the curated catalog in the database (`make loadcatalog`); runs on the local settings.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

import django

django.setup()

from planner.engine.recommend import Said, recommend, rerank  # noqa: E402
from planner.plans.services import plan_question  # noqa: E402

PLANS = {
    "train 70B, whole catalog (default plan)": {
        "workload": {"task": "train", "model": "meta-llama-3-70b", "tokens": 2e12, "seq_len": 4096}
    },
    "serve 8B at 200 req/s, whole catalog": {
        "workload": {
            "task": "inference",
            "model": "meta-llama-3-8b",
            "inference": {"batch": 32, "prompt_len": 512, "output_len": 256},
        },
        "target_rps": 200,
        "count": {"max": 64},
    },
    "QLoRA 7B, up to 8 cards": {
        "workload": {
            "task": "finetune",
            "model": "meta-llama-2-7b",
            "method": "qlora",
            "seq_len": 512,
        },
        "count": {"max": 8},
    },
}


def main() -> None:
    print(
        f"{'plan':<42} {'builds':>7} {'viable':>7} {'rank s':>8} {'builds/s':>10} {'re-order ms':>12}"
    )
    for name, data in PLANS.items():
        question, _currency, _limit = plan_question(data=data)
        times = []
        for _ in range(3):
            start = time.perf_counter()
            ranking = recommend(question)
            times.append(time.perf_counter() - start)
        seconds = statistics.median(times)
        start = time.perf_counter()
        for _ in range(20):
            rerank(ranking, Said.of(question), {"software": 1.0})
        reorder_ms = (time.perf_counter() - start) / 20 * 1000
        print(
            f"{name:<42} {ranking.evaluated:>7} {len(ranking.candidates):>7} {seconds:>8.2f} "
            f"{ranking.evaluated / seconds:>10,.0f} {reorder_ms:>12.2f}"
        )


def page_view() -> None:
    """A plan page served from its stored ranking, re-ordered by new weights (rolled back)."""
    from django.db import transaction
    from django.test import Client

    from accounts.services import team_get_or_create, user_create
    from planner.plans.services import plan_create

    with transaction.atomic():
        team = team_get_or_create(name="bench-team")
        user = user_create(
            username="bench-planner", password="bench-password-1", role="planner", team=team
        )
        plan = plan_create(
            data={**PLANS["train 70B, whole catalog (default plan)"], "name": "bench"},
            user=user,
            team=team,
        )
        client = Client(HTTP_HOST="127.0.0.1")
        client.force_login(user)
        url = f"/plans/{plan.pk}/?software=100&interconnect=0"
        client.get(url)
        times = []
        for _ in range(20):
            start = time.perf_counter()
            response = client.get(url, HTTP_HX_REQUEST="true")
            times.append(time.perf_counter() - start)
        assert response.status_code == 200
        print(
            f"plan page (HTMX re-order of {len(plan.ranking['candidates'])} builds): median {1000 * statistics.median(times):.0f} ms"
        )
        transaction.set_rollback(True)


if __name__ == "__main__":
    main()
    page_view()
