"""The rows a load run reads: a planner with an API token and a signed-in session, a site with
rack groups, a workload and a plan ranked once (its page re-orders the stored ranking).

    DJANGO_SETTINGS_MODULE=config.settings.production ... .venv/bin/python bench/load/seed.py OUT

`bench/load/run.py` calls it after migrating and loading the catalog; it writes what the load
users need (token, session cookie, plan id) as JSON to OUT. Running it again on the same
database replaces the planner's rows, so a rerun starts from the same state.
"""

from __future__ import annotations

import json
import secrets
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.db import transaction  # noqa: E402
from django.test import Client  # noqa: E402

from accounts.roles import Role  # noqa: E402
from accounts.services import team_get_or_create, token_create, user_create  # noqa: E402
from planner.models import Plan, RackGroup, Simulation, Site, Workload  # noqa: E402
from planner.plans.services import plan_create  # noqa: E402
from planner.plans.workloads import workload_create  # noqa: E402
from planner.sites.services import rack_group_save, site_create  # noqa: E402

TEAM = "Load bench"
USERNAME = "load-planner"
# Llama 3 70B pre-training (the default plan of bench/plan_speed.py): every card in the
# catalog that can hold it, up to 1,024 of them, in a site of air- and liquid-cooled rows.
WORKLOAD_SPEC = {
    "workload": {"task": "train", "model": "meta-llama-3-70b", "tokens": 2e12, "seq_len": 4096}
}
RACK_GROUPS = (
    {"name": "Row A (air)", "count": 40, "power_kw": 15, "cooling_kw": 15, "cooling": "air"},
    {
        "name": "Row L (liquid)",
        "count": 16,
        "power_kw": 80,
        "cooling_kw": 80,
        "cooling": "liquid",
        "liquid_loops": True,
    },
)


def _clear_previous() -> None:
    """Rows an earlier seed of this database left: the bench owns the team and user by name."""
    user = get_user_model().objects.filter(username=USERNAME).first()
    if user is None:
        return
    Simulation.objects.filter(created_by=user).delete()
    Plan.objects.filter(created_by=user).delete()
    Workload.objects.filter(created_by=user).delete()
    for site in Site.objects.filter(created_by=user):
        site.rack_groups.all().delete()
        site.delete()
    user.delete()


@transaction.atomic
def seed() -> dict:
    _clear_previous()
    team = team_get_or_create(name=TEAM)
    # The password is never used: the load users sign in with the token and the session below.
    user = user_create(
        username=USERNAME,
        password=secrets.token_urlsafe(18),
        role=Role.PLANNER,
        team=team,
    )
    _token, key = token_create(user=user, name="load bench")
    site = site_create(
        team=team,
        user=user,
        name="Load bench DC",
        currency="USD",
        electricity_price_per_kwh="0.1200",
        pue=1.3,
    )
    for fields in RACK_GROUPS:
        rack_group_save(rack_group=RackGroup(site=site, units=42, max_kg=1200, **fields))
    workload = workload_create(name="Llama 3 70B", spec=WORKLOAD_SPEC, user=user, team=team)
    started = time.perf_counter()
    plan = plan_create(
        data={**workload.spec, "name": "Load bench plan"}, user=user, team=team, site=site
    )
    rank_s = time.perf_counter() - started
    plan.workload = workload
    plan.save(update_fields=["workload", "updated_at"])

    # A signed-in browser's session, made the way Django's login makes it. Session cookies are
    # Secure in production, so the load users send it as a header over plain loopback HTTP.
    client = Client()
    client.force_login(user)
    session_key = client.cookies[settings.SESSION_COOKIE_NAME].value
    return {
        "token": key,
        "session_cookie": f"{settings.SESSION_COOKIE_NAME}={session_key}",
        "plan_id": plan.pk,
        "plan_candidates": len(plan.ranking.get("candidates", [])),
        "plan_evaluated": plan.ranking.get("evaluated", 0),
        "plan_rank_s": round(rank_s, 2),
    }


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: seed.py OUT_JSON")
    Path(sys.argv[1]).write_text(json.dumps(seed(), indent=2))


if __name__ == "__main__":
    main()
