"""Plans: the recommend question turned into engine options from the catalog and the site,
ranked by the engine, kept on the Plan row."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from catalog.models import ServerPlatform
from planner.engine import MODEL_VERSION, RequestError
from planner.engine.contract.base import without_nulls
from planner.engine.recommend import (
    Ranking,
    recommend,
)
from planner.engine.simulate.plan_check import CHECK_BUILDS, check_simulation
from planner.estimates.services import server_facility
from planner.messages.answers import localise_plan
from planner.models import Plan, RackCommitment, Simulation, Site, Workload
from planner.plans.builds import SWEEP_MIN, build_simulation_question, sweep_question
from planner.plans.figures import build_names
from planner.plans.question import plan_question
from planner.plans.selectors import plan_candidate, plan_task, ranked_candidates
from planner.racks.commitments import build_commit
from planner.simulations.services import simulation_start
from planner.sites.selectors import site_visible_to
from planner.versioning import ConflictError


def _answer(ranking: Ranking, *, currency: str, limit: int | None) -> dict:
    """The ranking as kept on a plan: its sentences as message codes, written out in the
    reader's language when shown (planner.messages.answers)."""
    answer = ranking.as_dict(limit=limit)
    answer["currency"] = currency
    # Prices in another currency were converted at this rate: a reader can redo the sum.
    answer["exchange"] = {
        "cny_per_usd": float(settings.FLOPFIT_CNY_PER_USD),
        "date": str(settings.FLOPFIT_CNY_PER_USD_DATE),
    }
    answer["model_version"] = MODEL_VERSION
    return answer


def recommend_run(*, data: Any, site: Site | None = None) -> dict:
    """Rank every build for a question: the answer `manage.py recommend` prints."""
    question, currency, limit = plan_question(data=data, site=site)
    return localise_plan(_answer(recommend(question), currency=currency, limit=limit))


@transaction.atomic
def plan_create(
    *, data: Any, user, team, site: Site | None = None, workload: Workload | None = None
) -> Plan:
    """Rank once and keep every candidate: new weights only re-order them (plan_ranking).
    A site named in the question is looked up among the sites `user` may see. The question is
    kept without the keys given as null, which mean their defaults; `workload` is the team's
    saved job it was made for, if any (`RequestError` naming "workload" when it is another
    team's)."""
    if workload is not None and workload.team_id != getattr(team, "pk", None):
        raise RequestError("workload", gettext_noop("is not one of your team's workloads"))
    question, currency, _limit = plan_question(
        data=data, site=site, sites=site_visible_to(user), user=user, team=team
    )
    answer = _answer(recommend(question), currency=currency, limit=None)
    data = without_nulls(data)
    return Plan.objects.create(
        name=str(data.get("name") or "Plan")[:200],
        team=team,
        created_by=user,
        site=site,
        workload=workload,
        question=data,
        currency=currency,
        ranking=answer,
        model_version=MODEL_VERSION,
        ranked_at=timezone.now(),
    )


@transaction.atomic
def plan_rerank(*, plan: Plan, user) -> Plan:
    """Rank a saved plan's question again, in its site's free capacity as it is now (what
    other plans hold stays out; the plan's own commitments count as its own). Nothing ranks a
    plan again behind its owner's back: a person asks for it."""
    question, currency, _limit = plan_question(
        data=plan.question,
        site=plan.site,
        sites=site_visible_to(user),
        user=user,
        team=plan.team,
        except_plan_id=plan.pk,
    )
    plan.ranking = _answer(recommend(question), currency=currency, limit=None)
    plan.currency, plan.model_version, plan.ranked_at = currency, MODEL_VERSION, timezone.now()
    plan.save(update_fields=["ranking", "currency", "model_version", "ranked_at", "updated_at"])
    return plan


def plan_build_commit(*, plan: Plan, candidate_id: int, user) -> list[RackCommitment]:
    """Hold room in the plan's site for the servers of its build `candidate_id`
    (planner.racks.commitments.build_commit); `RequestError` naming "build" when the plan has
    no such build."""
    build = plan_candidate(plan=plan, candidate_id=candidate_id, weights={})
    if build is None:
        raise RequestError("build", gettext_noop("the plan has no build {id}"), id=candidate_id)
    server = ServerPlatform.objects.get(slug=build["server"])
    facility = server_facility(server=build["server"], accelerator=build["accelerator"])
    return build_commit(
        plan=plan, server=server, facility=facility, servers=int(build["nodes"]), user=user
    )


def plan_build_simulate(*, plan: Plan, candidate_id: int, user) -> tuple[Simulation, bool]:
    """Queue the simulation of the plan's build `candidate_id` on the layout the plan ranked
    it on (build_simulation_question); the same build asked again gets the same run.
    `RequestError` naming "build" when the plan has no such build."""
    build = plan_candidate(plan=plan, candidate_id=candidate_id, weights={})
    if build is None:
        raise RequestError("build", gettext_noop("the plan has no build {id}"), id=candidate_id)
    return simulation_start(data=build_simulation_question(plan, build), user=user, team=plan.team)


# Workloads: a team's saved jobs that plans are made for. ------------------------------


class NameTaken(ConflictError):
    """Another workload of the team holds the name (a race past the form's check)."""


@transaction.atomic
def workload_create(*, name: str, spec: dict[str, Any], user, team) -> Workload:
    try:
        with transaction.atomic():
            return Workload.objects.create(name=name, spec=spec, team=team, created_by=user)
    except IntegrityError:
        raise NameTaken from None


@transaction.atomic
def workload_update(*, workload: Workload, name: str, spec: dict[str, Any]) -> Workload:
    workload.name, workload.spec = name, spec
    try:
        with transaction.atomic():
            workload.save(update_fields=["name", "spec", "updated_at"])
    except IntegrityError:
        raise NameTaken from None
    return workload


@transaction.atomic
def workload_copy(*, workload: Workload, user) -> Workload:
    """A duplicate to edit, named "<name> (copy)", "(copy 2)", ... so it never collides."""
    taken = set(Workload.objects.filter(team=workload.team).values_list("name", flat=True))
    suffix = gettext("copy")
    number = 1
    while True:
        tail = f" ({suffix})" if number == 1 else f" ({suffix} {number})"
        name = workload.name[: 200 - len(tail)] + tail
        if name not in taken:
            break
        number += 1
    return workload_create(name=name, spec=workload.spec, user=user, team=workload.team)


# Sweeps: the plan's top builds simulated side by side. -----------------------------------


def plan_sweep_start(
    *, plan: Plan, top: int, weights: dict[str, float], objective: str | None, user
) -> tuple[Simulation, bool]:
    """Queue a sweep simulation of the plan's first `top` builds under `objective` and
    `weights` (training campaigns, or serving at the plan's rate and SLOs); the same builds
    asked again get the same row. `RequestError` when fewer than two builds are viable."""
    ordered = ranked_candidates(plan=plan, weights=weights, objective=objective).candidates
    chosen = ordered[:top]
    if len(chosen) < SWEEP_MIN:
        raise RequestError(
            "top", gettext_noop("a sweep needs at least {least} viable builds"), least=SWEEP_MIN
        )
    question = sweep_question(plan, chosen, build_names(plan))
    return simulation_start(data=question, user=user, team=plan.team)


# The serving check: the plan's best builds simulated at its load and SLOs. ----------------


def plan_serving_check_start(*, plan: Plan, user) -> tuple[Simulation, bool]:
    """Queue the simulation of a serving plan's best CHECK_BUILDS builds (in the plan's own
    order, before any earlier check) at the plan's rate and SLOs, CHECK_REQUESTS requests each
    on one seed, and keep it on the plan: the plan page shows its progress, then its figures,
    and moves the builds that miss the SLO to the rejected ones. The same builds asked again
    get the same run. `RequestError` for a training plan or one with fewer than two builds."""
    if plan_task(plan) != "inference":
        raise RequestError("plan", gettext_noop("only a serving plan is checked by simulation"))
    ordered = ranked_candidates(plan=plan, weights={}, simulated=False).candidates
    chosen = ordered[:CHECK_BUILDS]
    if len(chosen) < SWEEP_MIN:
        raise RequestError(
            "plan",
            gettext_noop("a serving check needs at least {least} viable builds"),
            least=SWEEP_MIN,
        )
    question = sweep_question(plan, chosen, build_names(plan))
    question["simulation"] = check_simulation(question["simulation"])
    # simulation_start commits the rows before it queues the tasks, so it runs outside any
    # transaction of ours; the plan names the run once it is queued.
    simulation, queued = simulation_start(data=question, user=user, team=plan.team)
    # An update, not save(): the plan's ranking and its version (updated_at) stay as they were;
    # pages that show the check key their caches on it.
    Plan.objects.filter(pk=plan.pk).update(
        serving_check=simulation,
        serving_check_builds=[[c["accelerator"], c["server"], c["count"]] for c in chosen],
    )
    plan.serving_check, plan.serving_check_builds = (
        simulation,
        [[c["accelerator"], c["server"], c["count"]] for c in chosen],
    )
    return simulation, queued
