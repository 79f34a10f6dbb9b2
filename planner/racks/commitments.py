"""Writes to rack commitments: a plan's chosen build held in its site's racks until released.

Committing locks every rack of the site (in one order, so two commits queue instead of
deadlocking), then fits the build into the free capacity it reads under that lock: of two
commits racing for the last space, the second finds it taken and is refused."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from catalog.models import ServerPlatform
from planner.engine.facility import ServerFacilitySpec
from planner.models import Plan, Rack, RackCommitment
from planner.racks.fitting import racks_fit
from planner.racks.occupancy import held
from planner.racks.selectors import fit_racks


def _lock_site_racks(plan: Plan) -> list[Rack]:
    ids = list(
        Rack.objects.select_for_update()
        .filter(rack_group__site=plan.site)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    return list(fit_racks(site=plan.site).filter(pk__in=ids))


@transaction.atomic
def build_commit(
    *, plan: Plan, server: ServerPlatform, facility: ServerFacilitySpec, servers: int, user
) -> list[RackCommitment]:
    """Hold room for `servers` of `server` (as `facility` describes it) in the plan's site,
    rack by rack as the fit places them; a ValidationError naming the limit when they do not
    all fit, and when the plan holds racks already (release them first)."""
    if plan.site is None:
        raise ValidationError({"site": _("The plan has no site to commit its build to.")})
    racks = _lock_site_racks(plan)
    if held(RackCommitment.objects.filter(plan=plan)).exists():
        raise ValidationError(_("This plan already holds racks; release them first."))
    fit = racks_fit(racks=racks, server=facility, quantity=servers)
    if fit.missing:
        raise ValidationError(
            _("Only %(placed)d of %(servers)d servers fit in the free racks: out of %(limit)s.")
            % {"placed": fit.placed, "servers": servers, "limit": fit.binding_label}
        )
    commitments = [
        RackCommitment(
            rack=row.rack,
            plan=plan,
            server=server,
            servers=row.placed,
            power_kw=row.placed * facility.power_kw,
            units=row.placed * facility.units,
            weight_kg=row.placed * (facility.kg or 0.0),
            created_by=user,
        )
        for row in fit.racks
        if row.placed
    ]
    for commitment in commitments:
        commitment.full_clean()
        commitment.save()  # one by one: each with its "created" history
    return commitments


@transaction.atomic
def plan_release(*, plan: Plan) -> int:
    """Give back every rack the plan holds; the commitments stay, released, in history.
    Returns how many were released."""
    released = 0
    for commitment in held(RackCommitment.objects.select_for_update().filter(plan=plan)):
        commitment.released_at = timezone.now()
        commitment.save(update_fields=["released_at"])
        released += 1
    return released
