"""The power feed pages: add a feed (or an A/B pair) to a rack, change one, delete one. Writes
through planner.racks.feeds; facility people of the rack's team only."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from planner.models import PowerFeed, Rack
from planner.racks import feeds as services
from planner.racks.forms import PowerFeedForm
from planner.racks.selectors import power_feed_visible_to
from planner.racks.views.access import editable_in_rack, editable_rack, rack_context
from planner.web.editing import bound_form, record_form_page
from planner.web.records import KeptRecord


def _write(form: PowerFeedForm) -> PowerFeed:
    """Save the feed, with its B side when a new one asks for it."""
    if form.instance.pk is None and form.cleaned_data.get("add_b_side"):
        return services.power_feed_pair_create(feed=form.instance)[0]
    return services.power_feed_save(feed=form.instance)


def _form_page(request: HttpRequest, rack: Rack, feed: PowerFeed | None) -> HttpResponse:
    form = bound_form(request, PowerFeedForm, feed, rack=rack)
    return record_form_page(
        request,
        form,
        lambda: _write(form),
        template="planner/racks/feed_form.html",
        record=feed,
        context={**rack_context(rack), "feed": feed},
        saved_message=_("The power feed was saved."),
        conflict_message=PowerFeedForm.NAME_TAKEN,
    )


def _editable_feed(request: HttpRequest, pk: int) -> PowerFeed:
    return editable_in_rack(request, power_feed_visible_to(request.user), pk)


FEEDS = KeptRecord(editable_rack, _editable_feed, "rack", gettext_lazy("power feed"))
feed_create, feed_edit = FEEDS.form_views(_form_page)
feed_delete = FEEDS.delete_view(lambda feed: services.power_feed_delete(feed=feed))
