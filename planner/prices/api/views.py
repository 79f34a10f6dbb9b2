"""Prices over the API: `/api/v1/prices/`. Reads go through the visibility selector (a team's
own prices and the reference list; another team's price is a 404); every write goes through
planner.prices.services, so the API and the HTML pages share one set of rules. Prices are
retired, never deleted: DELETE with If-Match retires one, which stays readable."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.response import Response

from accounts.permissions import PlannerWrites
from planner.api.record_docs import (
    CONFLICT,
    INVALID,
    PRECONDITION_FAILED,
    PRECONDITION_REQUIRED,
    etag_header,
    if_match_header,
    record_docs,
)
from planner.api.responses import UNAUTHENTICATED, detail_response
from planner.api.versioned import (
    EditableRowsOnly,
    RecordRows,
    RecordViewSet,
    representation_etag,
    service_errors,
)
from planner.api.views import writer_team
from planner.prices import selectors, services
from planner.prices.api.serializers import PriceSerializer
from planner.prices.filtersets import PriceFilterSet

FORBIDDEN = detail_response(
    "Your role may not write (writes need planner), or the price is a reference price (only "
    "admins change those: copy it into your team's prices instead)."
)
NOT_FOUND = detail_response("No such price, or it belongs to another team.")


class PriceEditable(EditableRowsOnly):
    """Writes need a price the user may change: their own team's (admins: any). Copying needs
    only to see the price."""

    message = _("Reference prices are read-only: copy one into your team's prices to change it.")
    open_actions = ("copy",)


# A price is retired, never deleted, and can be copied: its DELETE and `copy` documented here.
RETIRE_AND_COPY_DOCS = {
    "destroy": extend_schema(
        summary="Retire a price: no price book uses it any more; it stays, with its history",
        description="A price is never deleted. Once retired it is still readable by its id "
        "and listed with `status=retired`, but no longer changes; copy it to use it again.",
        parameters=[if_match_header("price"), etag_header("price", [412])],
        responses={
            204: None,
            400: INVALID,
            401: UNAUTHENTICATED,
            403: FORBIDDEN,
            404: NOT_FOUND,
            412: PRECONDITION_FAILED,
            428: PRECONDITION_REQUIRED,
        },
    ),
    "copy": extend_schema(
        summary="Copy a price (a reference price, say) into your team's prices, with changes",
        description="The body holds the fields to change, e.g. a quote's amount, date and "
        "source; the rest is copied. Answers the new price, owned by your team.",
        parameters=[etag_header("price", [201])],
        request=PriceSerializer(partial=True),
        responses={
            201: PriceSerializer,
            400: INVALID,
            401: UNAUTHENTICATED,
            403: FORBIDDEN,
            404: NOT_FOUND,
            409: CONFLICT,
        },
    ),
}


@record_docs(
    "prices",
    forbidden=FORBIDDEN,
    not_found=NOT_FOUND,
    **RETIRE_AND_COPY_DOCS,
)
class PriceViewSet(RecordViewSet):
    """Prices with their sources: your team's own (quotes, negotiated rates) and the shipped
    reference list of public prices, which every team reads. Purchase amounts are per unit,
    rent amounts per accelerator-hour. Everyone reads; planners write their team's prices;
    only admins change reference prices. The list takes the price page's filters and leaves
    retired prices out unless `status` asks for them. DELETE retires a price; it is kept."""

    serializer_class = PriceSerializer
    permission_classes = [PlannerWrites, PriceEditable]
    filterset_class = PriceFilterSet
    noun = "price"
    # DELETE retires: the price stays, with its history, out of every price book.
    rows = RecordRows(
        selectors, services, "price", row_arg="price", delete="retire", names_writer=True
    )
    conflict_message = _("Another change got in first; read the price again and retry.")

    def filter_queryset(self, queryset):
        # The filters (retired prices left out among them) are the list's; one price is
        # reachable by its id whatever its state.
        return super().filter_queryset(queryset) if self.action == "list" else queryset

    @action(detail=True, methods=["post"])
    def copy(self, request, pk=None) -> Response:
        """A new price of your team's from this one, with the body's changes."""
        original = self.get_object()
        team = writer_team(request)
        serializer = self.get_serializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        with service_errors(**self.conflict_args(serializer.validated_data, original)):
            price = services.price_copy(
                price=original, team=team, user=request.user, **serializer.validated_data
            )
        data = self.get_serializer(price).data
        return Response(
            data,
            status=status.HTTP_201_CREATED,
            headers={"ETag": representation_etag(self.etag_kind, data)},
        )
