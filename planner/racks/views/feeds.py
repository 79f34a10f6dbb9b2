"""The power feed pages: add a feed (or an A/B pair) to a rack, change one, delete one. Writes
through planner.racks.feeds; facility people of the rack's team only."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from planner.models import PowerFeed, Rack
from planner.racks import feeds as services
from planner.racks.forms import PowerFeedForm
from planner.racks.selectors import power_feed_visible_to
from planner.racks.views.access import editable_in_rack, editable_rack, rack_context
from planner.web.editing import (
    bound_form,
    delete_and_redirect,
    record_form_page,
)


def _write(form: PowerFeedForm) -> PowerFeed:
    """Save the feed, with its B side when a new one asks for it."""
    if form.instance.pk is None and form.cleaned_data.get("add_b_side"):
        return services.power_feed_pair_create(feed=form.instance)[0]
    return services.power_feed_save(feed=form.instance)


def _form_page(request: HttpRequest, *, rack: Rack, feed: PowerFeed | None) -> HttpResponse:
    form = bound_form(request, PowerFeedForm, feed, rack=rack)
    return record_form_page(
        request,
        form,
        lambda: _write(form),
        template="planner/racks/feed_form.html",
        record=feed,
        context={**rack_context(rack), "feed": feed},
        saved_message=_("The power feed was saved."),
        conflict_message=_("This rack already has a feed with this name."),
    )


@require_http_methods(["GET", "POST"])
def feed_create(request: HttpRequest, pk: int) -> HttpResponse:
    return _form_page(request, rack=editable_rack(request, pk), feed=None)


@require_http_methods(["GET", "POST"])
def feed_edit(request: HttpRequest, pk: int) -> HttpResponse:
    feed = editable_in_rack(request, power_feed_visible_to(request.user), pk)
    return _form_page(request, rack=feed.rack, feed=feed)


@require_POST
def feed_delete(request: HttpRequest, pk: int) -> HttpResponse:
    feed = editable_in_rack(request, power_feed_visible_to(request.user), pk)
    name = feed.name
    return delete_and_redirect(
        request,
        feed,
        lambda: services.power_feed_delete(feed=feed),
        back=feed.rack,
        out_of_date=_("The page was out of date; check the feed and try again."),
        stale=_(
            "Someone else changed the feed “%(name)s” after this page was loaded; it was not "
            "deleted."
        )
        % {"name": name},
        done=_("The feed “%(name)s” was deleted.") % {"name": name},
    )
