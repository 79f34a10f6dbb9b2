"""The price list, one price with its history, and the forms that add, edit, copy and retire.

Reads go through `planner.prices.selectors`, so a user reaches their team's prices and the
reference list, and another team's price is a 404. Writes go through `planner.prices.services`:
planners (and admins) write their own team's prices; reference prices are copied, not edited
(admins excepted); facility people and viewers read (403 on writes)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from accounts.roles import Role, has_role
from accounts.services import user_team
from planner.models import Price
from planner.prices import services as price_services
from planner.prices.filtersets import PriceFilterSet
from planner.prices.forms import PriceForm
from planner.prices.selectors import (
    price_age,
    price_editable_by,
    price_in_use,
    price_visible_to,
)
from planner.prices.services import COPIED_FIELDS
from planner.versioning import StaleVersionError
from planner.web.editing import VERSION_FIELD, FormPage
from planner.web.history import history_rows
from planner.web.lists import render_filtered_list
from planner.web.roles import require_role, writer_team

PAGE_SIZE = 50


# A price has no unique name: a conflict is a rule the database caught in a race.
CONFLICT = gettext_lazy(
    "Another change got in first and this price could not be saved; save it again."
)


def visible_price(request: HttpRequest, pk: int) -> Price:
    return get_object_or_404(price_visible_to(request.user), pk=pk)


def can_edit(user, price: Price) -> bool:
    return price.retired_at is None and price_editable_by(user).filter(pk=price.pk).exists()


def editable_price(request: HttpRequest, pk: int) -> Price:
    """403 for a role that does not write prices; 404 for a price the user may not see; 403
    for one they may see but not change (a reference price, unless admin)."""
    require_role(request.user, Role.PLANNER)
    price = visible_price(request, pk)
    if price.retired_at is not None:
        raise PermissionDenied(_("This price is retired; copy it to use it again."))
    if not can_edit(request.user, price):
        raise PermissionDenied(_("Reference prices are read-only; copy one to change it."))
    return price


@require_GET
@vary_on_headers("HX-Request")
def price_list(request: HttpRequest) -> HttpResponse:
    today = timezone.localdate()
    return render_filtered_list(
        request,
        "planner/prices/price_list.html",
        PriceFilterSet(request.GET, queryset=price_visible_to(request.user)),
        row=lambda price: (price, price_age(price, on=today)),
        size=PAGE_SIZE,
        can_write=has_role(request.user, Role.PLANNER),
    )


@require_GET
def price_detail(request: HttpRequest, pk: int) -> HttpResponse:
    price = visible_price(request, pk)
    team = price.team or user_team(request.user)
    return render(
        request,
        "planner/prices/price_detail.html",
        {
            "price": price,
            "age": price_age(price),
            "in_use": price_in_use(price=price, team=team) if price.retired_at is None else None,
            "can_edit": can_edit(request.user, price),
            "can_copy": has_role(request.user, Role.PLANNER)
            and user_team(request.user) is not None,
            "history": history_rows(price),
        },
    )


PRICE_FORM = FormPage("planner/prices/price_form.html", PriceForm, "price", CONFLICT)


@require_http_methods(["GET", "POST"])
def price_create(request: HttpRequest) -> HttpResponse:
    return PRICE_FORM.create(
        request,
        price_services.price_create,
        _("The price was added to your team's prices."),
        context={"source": None},
    )


@require_http_methods(["GET", "POST"])
def price_edit(request: HttpRequest, pk: int) -> HttpResponse:
    return PRICE_FORM.edit(
        request,
        editable_price(request, pk),
        price_services.price_update,
        _("The price was saved."),
        update_names_writer=True,
        context={"source": None},
    )


@require_http_methods(["GET", "POST"])
def price_copy(request: HttpRequest, pk: int) -> HttpResponse:
    """A new price of the team's, starting from this one: how a quote is entered over a
    reference price."""
    team = writer_team(request.user)
    original = visible_price(request, pk)
    initial = {name: getattr(original, name) for name in COPIED_FIELDS}
    form = PRICE_FORM.bound(request, initial=initial)
    return PRICE_FORM.respond(
        request,
        form,
        lambda: price_services.price_copy(
            price=original, team=team, user=request.user, **form.cleaned_data
        ),
        _("The copy was added to your team's prices."),
        price=None,
        source=original,
    )


@require_POST
def price_retire(request: HttpRequest, pk: int) -> HttpResponse:
    price = editable_price(request, pk)
    # The button carries the version its page showed: retiring a price someone changed after
    # that would hide a change the person never saw.
    posted = request.POST.get(VERSION_FIELD, "")
    if not posted.isdigit():
        messages.error(request, _("The page was out of date; check the price and try again."))
        return redirect(price)
    price.version = int(posted)
    try:
        price_services.price_retire(price=price, user=request.user)
    except StaleVersionError:
        messages.error(
            request,
            _(
                "Someone else changed this price after the page was loaded, so it was not "
                "retired. Check its new values and retire it again if you still mean to."
            ),
        )
        return redirect(price)
    messages.success(request, _("The price was retired: no price book uses it now."))
    return redirect(price)
