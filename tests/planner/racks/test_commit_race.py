"""Two plans committing at once for the last room in a rack, on PostgreSQL: one gets it, the
other is refused, and the rack is never held twice over."""

from __future__ import annotations

import threading
import time

import pytest
from django.core.exceptions import ValidationError
from django.db import connection, connections

from planner.models import RackCommitment, RackGroup
from planner.plans.services import plan_build_commit, plan_create
from planner.racks import commitments
from planner.sites.services import rack_group_save
from tests.conftest import require_or_skip
from tests.facility import dgx_question
from tests.factories import SiteFactory

pytestmark = pytest.mark.django_db(transaction=True)

ONE_DGX = dgx_question("One DGX", 1)
# Long enough that, without the lock, both commits would read the rack free before either wrote.
SLOW_FIT_S = 0.5


@pytest.fixture(autouse=True)
def _postgresql_only():
    if connection.vendor != "postgresql":
        require_or_skip("racing writers need PostgreSQL: SQLite serialises them behind one lock")


def test_two_commits_racing_for_the_last_space_do_not_both_succeed(
    loaded_catalog, cast, monkeypatch
):
    site = SiteFactory(team=cast.team, name="Hall A")
    # One 12 kW rack: room for one DGX H100 (10.2 kW).
    rack_group_save(
        rack_group=RackGroup(
            site=site, name="Row A", count=1, power_kw=12, cooling_kw=12, units=42, max_kg=1500
        )
    )
    plans = [
        plan_create(data={**ONE_DGX, "name": f"P{i}"}, user=cast.planner, team=cast.team, site=site)
        for i in range(2)
    ]
    real_fit = commitments.racks_fit

    def slow_fit(**kwargs):
        answer = real_fit(**kwargs)
        time.sleep(SLOW_FIT_S)
        return answer

    monkeypatch.setattr(commitments, "racks_fit", slow_fit)
    start, outcomes = threading.Barrier(2), []

    def commit(plan) -> None:
        start.wait()
        try:
            plan_build_commit(plan=plan, candidate_id=0, user=cast.planner)
            outcomes.append("held")
        except ValidationError as exc:
            outcomes.append(" ".join(exc.messages))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=commit, args=(plan,)) for plan in plans]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes)[-1] == "held" and outcomes.count("held") == 1, outcomes
    assert "power" in next(o for o in outcomes if o != "held")
    assert RackCommitment.objects.count() == 1
