"""The access matrix for the pages' forms: every page that takes a POST, posted an empty form as
each of the cast, on rows that belong to team Alpha. Each role's request runs in a savepoint
rolled back after it. `test_every_page_that_takes_a_post_is_in_the_matrix` posts to every page
route and fails for one that answers anything but 405 and has no row here.

The rule the statuses follow: no one signed in is sent to sign in (302), the public pages
excepted; a role below the form's writer gets 403; a writer of team Beta gets 404 on a page of
Alpha's row (it must not learn the row exists); a writer of Alpha gets the form back with its
errors (200), or, for a button that needs no fields (delete, copy, cancel, retire, sweep), the
action done and a redirect (302)."""

from __future__ import annotations

import re

import pytest
from django.db import transaction
from django.urls import URLPattern, URLResolver, get_resolver

from accounts.models import ApiToken
from accounts.roles import Role
from planner.web.roles import PLAN_MAKERS
from tests.access import (
    PUBLIC,
    ROLES,
    access_rows,  # noqa: F401 (fixture "rows")
    expected_status,
)

pytestmark = pytest.mark.django_db

FORM, DONE = 200, 302

# The route (as urls.py writes it): (who may, what an empty form gets).
FORMS: dict[str, tuple[str | tuple[str, ...] | None, int]] = {
    "sites/new/": (Role.FACILITY, FORM),
    "sites/<int:pk>/edit/": (Role.FACILITY, FORM),
    "sites/<int:pk>/rack-groups/new/": (Role.FACILITY, FORM),
    "sites/<int:pk>/rack-groups/import/": (Role.FACILITY, FORM),
    "sites/rack-groups/<int:pk>/edit/": (Role.FACILITY, FORM),
    "sites/rack-groups/<int:pk>/delete/": (Role.FACILITY, DONE),
    "sites/rack-groups/<int:pk>/racks/new/": (Role.FACILITY, FORM),
    "racks/<int:pk>/edit/": (Role.FACILITY, FORM),
    "racks/<int:pk>/delete/": (Role.FACILITY, DONE),
    "racks/<int:pk>/equipment/new/": (Role.FACILITY, FORM),
    "equipment/<int:pk>/edit/": (Role.FACILITY, FORM),
    "equipment/<int:pk>/remove/": (Role.FACILITY, DONE),
    "racks/<int:pk>/feeds/new/": (Role.FACILITY, FORM),
    "feeds/<int:pk>/edit/": (Role.FACILITY, FORM),
    "feeds/<int:pk>/delete/": (Role.FACILITY, DONE),
    # An upload with no files is refused as a bad request, the page shown again with the errors.
    "netbox/import/": (Role.FACILITY, 400),
    "simulations/new/<slug:kind>/": (Role.PLANNER, FORM),
    "simulations/<int:pk>/cancel/": (Role.PLANNER, DONE),
    "workloads/new/<slug:kind>/": (Role.PLANNER, FORM),
    "workloads/<int:pk>/edit/": (Role.PLANNER, FORM),
    "workloads/<int:pk>/copy/": (Role.PLANNER, DONE),
    "plans/new/": (PLAN_MAKERS, FORM),
    "plans/<int:pk>/sweep/": (Role.PLANNER, DONE),
    "plans/<int:pk>/rank/": (PLAN_MAKERS, DONE),
    "plans/<int:pk>/release/": (Role.PLANNER, DONE),
    "plans/<int:pk>/candidates/<int:cid>/commit/": (Role.PLANNER, DONE),
    "plans/<int:pk>/candidates/<int:cid>/simulate/": (Role.PLANNER, DONE),
    "plans/<int:pk>/serving-check/": (Role.PLANNER, DONE),
    "calibrations/": (Role.PLANNER, FORM),
    "prices/new/": (Role.PLANNER, FORM),
    "prices/import/": (Role.PLANNER, FORM),
    "prices/<int:pk>/edit/": (Role.PLANNER, FORM),
    "prices/<int:pk>/copy/": (Role.PLANNER, FORM),
    "prices/<int:pk>/retire/": (Role.PLANNER, DONE),
    "faults/new/": (Role.PLANNER, FORM),
    "faults/<int:pk>/edit/": (Role.PLANNER, FORM),
    "faults/incidents/new/": (Role.PLANNER, FORM),
    "faults/incidents/<int:pk>/edit/": (Role.PLANNER, FORM),
    # Computations that store nothing, open to anyone as their GET pages are.
    "estimate/": (PUBLIC, FORM),
    "faults/diagnose/": (PUBLIC, FORM),
    # One's own API keys (a person's, not a team's): any signed-in role, back to the profile.
    "accounts/tokens/": (Role.VIEWER, DONE),
    "accounts/tokens/<int:token_id>/revoke/": (Role.VIEWER, DONE),
}
# Pages that take a POST for everyone and whose rules are Django's: signing in and out, the
# password change (the signed-in person's own), the language and currency switches.
DJANGO_FORMS = {
    "accounts/login/",
    "accounts/logout/",
    "accounts/password/",
    "accounts/password/done/",
    "currency/",
    "i18n/setlang/",
    "jsi18n/",
}
# The row each route's first number names, by the route's start (the longest start wins).
ROW_OF = {
    "sites/rack-groups/": "rack_group",
    "sites/": "site",
    "racks/": "rack",
    "equipment/": "equipment",
    "feeds/": "power_feed",
    "simulations/": "simulation",
    "workloads/": "workload",
    "plans/": "plan",
    "prices/": "price",
    "calibrations/": "calibration",
    "faults/incidents/": "fault_incident",
    "faults/": "fault_entry",
    "accounts/tokens/": "token",
    "catalog/accelerators/": "accelerators",
    "catalog/servers/": "servers",
    "catalog/fabrics/": "fabrics",
    "catalog/models/": "models",
}
KINDS = {"simulations/": "training", "workloads/": "train"}


def page_url(route: str, rows: dict) -> str:
    start = max((s for s in ROW_OF if route.startswith(s)), key=len, default="")
    kind = next((k for s, k in KINDS.items() if route.startswith(s)), "")

    def value(match: re.Match) -> str:
        name = match.group(1)
        if name == "cid":
            return "0"
        if name == "kind":
            return kind
        return str(rows[ROW_OF[start]])

    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", value, route)


def page_routes() -> list[str]:
    """Every page route, the API, the admin site and static files left out."""

    def walk(resolver: URLResolver, prefix: str):
        for pattern in resolver.url_patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                yield from walk(pattern, route)
            elif isinstance(pattern, URLPattern):
                yield route

    return [r for r in walk(get_resolver(), "") if not r.startswith(("api/", "admin/", "static"))]


def expected(cast, route: str, who: str) -> int:
    writer, success = FORMS[route]
    return expected_status(
        cast,
        who,
        writer=writer,
        success=success,
        anonymous=302,
        names_alphas_row="<int:pk>" in route,
    )


def _post_as_each(cast, url: str, check=None) -> dict[str, int]:
    clients = {who: cast.browser(who) for who in ROLES}
    got = {}
    for who in ROLES:
        with transaction.atomic():
            got[who] = clients[who].post(url, {}).status_code
            if check is not None:
                check(who)
            transaction.set_rollback(True)
    return got


@pytest.mark.parametrize("route", sorted(FORMS))
def test_each_role_gets_the_status_the_rules_say(cast, rows, route):
    got = _post_as_each(cast, page_url(route, rows))
    assert got == {who: expected(cast, route, who) for who in ROLES}


def test_only_the_owner_revokes_an_api_key(cast, rows):
    """The revoke button answers everyone alike (back to their profile, "no such active key"),
    so the matrix's 302 says nothing: what matters is whose key it revoked."""
    revoked = {}

    def check(who: str) -> None:
        revoked[who] = ApiToken.objects.get(pk=rows["token"]).revoked_at is not None

    _post_as_each(cast, page_url("accounts/tokens/<int:token_id>/revoke/", rows), check)
    assert revoked == {who: who == "planner" for who in ROLES}


def test_every_page_that_takes_a_post_is_in_the_matrix(cast, rows):
    admin = cast.browser("admin")
    takes_post = set()
    for route in page_routes():
        if route in DJANGO_FORMS:
            continue
        with transaction.atomic():
            if admin.post(page_url(route, rows), {}).status_code != 405:
                takes_post.add(route)
            transaction.set_rollback(True)
    assert takes_post - set(FORMS) == set()
    assert set(FORMS) - takes_post == set()
