"""The create, edit and delete views of a record kept inside a parent the writer may change (a
rack group in its site, a rack in its group, a feed or a piece of equipment in its rack): one
rule for who reaches the page, the feature says only what differs (its form page, its delete
service, where the delete goes back to and how it words the outcome)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from planner.web.editing import delete_and_redirect

View = Callable[[HttpRequest, int], HttpResponse]
# The record `pk` the writer may change: 404 when they may not see it, 403 when they may only
# read it (the feature's access rules, e.g. planner.racks.views.access).
Lookup = Callable[[HttpRequest, int], Any]
# The form page of a record within its parent; the record is None on a create.
FormPageOf = Callable[[HttpRequest, Any, Any], HttpResponse]


@dataclass(frozen=True)
class DeleteWording:
    """What a delete (or remove) button's page says, lazily translated with the record's
    `%(noun)s` and `%(name)s`: the post named no version, someone changed the record first, or
    it is gone."""

    out_of_date: Any
    stale: Any
    done: Any

    def said(self, noun: Any, name: str) -> dict[str, str]:
        values = {"noun": noun, "name": name}
        return {
            "out_of_date": str(self.out_of_date) % values,
            "stale": str(self.stale) % values,
            "done": str(self.done) % values,
        }


OUT_OF_DATE = gettext_lazy("The page was out of date; check the %(noun)s and try again.")
DELETED = DeleteWording(
    out_of_date=OUT_OF_DATE,
    stale=gettext_lazy(
        "Someone else changed the %(noun)s “%(name)s” after this page was loaded, so it was not "
        "deleted. Check its new values and delete it again if you still mean to."
    ),
    done=gettext_lazy("The %(noun)s “%(name)s” was deleted."),
)
# Removed equipment keeps its row and history (planner.racks.equipment.equipment_remove).
REMOVED = DeleteWording(
    out_of_date=OUT_OF_DATE,
    stale=gettext_lazy(
        "Someone else changed the %(noun)s “%(name)s” after this page was loaded, so it was not "
        "removed. Check its new values and remove it again if you still mean to."
    ),
    done=gettext_lazy("The %(noun)s “%(name)s” was removed."),
)


@dataclass(frozen=True)
class KeptRecord:
    """How a writer reaches a record kept in a parent: `parent(request, pk)` and
    `record(request, pk)` are the ones they may change; `parent_field` is the record's field
    naming its parent; `noun` (lazily translated) names the record in what its pages say."""

    parent: Lookup
    record: Lookup
    parent_field: str
    noun: Any

    def form_views(self, form_page: FormPageOf) -> tuple[View, View]:
        """The create view (the `pk` is the parent's) and the edit view (the record's) of one
        form page, which binds the form to the parent and names it in its crumbs."""

        @require_http_methods(["GET", "POST"])
        def create(request: HttpRequest, pk: int) -> HttpResponse:
            return form_page(request, self.parent(request, pk), None)

        @require_http_methods(["GET", "POST"])
        def edit(request: HttpRequest, pk: int) -> HttpResponse:
            row = self.record(request, pk)
            return form_page(request, getattr(row, self.parent_field), row)

        return create, edit

    def delete_view(
        self,
        delete: Callable[[Any], object],
        *,
        back: Callable[[Any], Any] | None = None,
        wording: DeleteWording = DELETED,
    ) -> View:
        """The POST of the record's delete button: `delete(row)` at the version the page showed
        (planner.web.editing.delete_and_redirect), then back to `back(row)` (by default its
        parent), saying how it went."""

        @require_POST
        def view(request: HttpRequest, pk: int) -> HttpResponse:
            row = self.record(request, pk)
            return delete_and_redirect(
                request,
                row,
                lambda: delete(row),
                back=back(row) if back else getattr(row, self.parent_field),
                **wording.said(self.noun, row.name),
            )

        return view
