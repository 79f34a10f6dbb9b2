"""Who reaches which rack: a rack group or rack the user may not see is a 404; one they may see
but not change is a 403 on every write."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404

from accounts.roles import Role
from planner.models import Rack, RackGroup, Site
from planner.racks.selectors import rack_editable, rack_group_of, rack_visible_to
from planner.sites.selectors import site_visible_to
from planner.web.roles import require_role


def visible_rack_group(request: HttpRequest, pk: int) -> RackGroup:
    group = rack_group_of(request.user, pk)
    if group is None:
        raise Http404
    return group


def editable_rack_group(request: HttpRequest, pk: int) -> RackGroup:
    require_role(request.user, Role.FACILITY)
    group = visible_rack_group(request, pk)
    if not rack_editable(request.user, group):
        raise PermissionDenied
    return group


def visible_rack(request: HttpRequest, pk: int) -> Rack:
    return get_object_or_404(rack_visible_to(request.user), pk=pk)


def editable_rack(request: HttpRequest, pk: int) -> Rack:
    require_role(request.user, Role.FACILITY)
    rack = visible_rack(request, pk)
    if not rack_editable(request.user, rack.rack_group):
        raise PermissionDenied
    return rack


def editable_in_rack(request: HttpRequest, rows: QuerySet, pk: int):
    """A row kept in a rack (equipment, a feed) among `rows` the user sees, which they may
    change: facility role and a rack of their own team's site."""
    require_role(request.user, Role.FACILITY)
    row = get_object_or_404(rows, pk=pk)
    if not rack_editable(request.user, row.rack.rack_group):
        raise PermissionDenied
    return row


def visible_site(request: HttpRequest, pk: int) -> Site:
    return get_object_or_404(site_visible_to(request.user), pk=pk)


def rack_context(rack: Rack) -> dict:
    """What every page about one rack names in its crumbs: the rack, its group and site."""
    return {"rack": rack, "group": rack.rack_group, "site": rack.rack_group.site}
