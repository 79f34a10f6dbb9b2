"""The plans API's serializers: what its endpoints take and answer, for the views and
the OpenAPI document."""

from __future__ import annotations

from typing import Any

from django.core.paginator import EmptyPage, Paginator
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.utils import (
    extend_schema_field,
)
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request

from planner.engine.contract.answers import CandidatePage, RejectedBuilds
from planner.engine.recommend import OBJECTIVES
from planner.engine.scoring import DIMENSIONS
from planner.messages.answers import localise_candidate, localise_rejected, plan_why_none
from planner.messages.render import render
from planner.models import Plan, RackCommitment
from planner.plans.selectors import default_weights, ranked_candidates

DEFAULT_PAGE_SIZE = 25
MAX_PAGE_SIZE = 200


class PlanSummarySerializer(serializers.ModelSerializer):
    team = serializers.CharField(source="team.name", read_only=True)
    site = serializers.PrimaryKeyRelatedField(
        read_only=True, allow_null=True, help_text="Saved site id, or null"
    )
    workload = serializers.PrimaryKeyRelatedField(
        read_only=True, allow_null=True, help_text="Saved workload id, or null"
    )
    evaluated = serializers.SerializerMethodField(help_text="Builds estimated")
    viable = serializers.SerializerMethodField(help_text="Builds that meet every constraint")

    class Meta:
        model = Plan
        fields = [
            "id",
            "name",
            "team",
            "site",
            "workload",
            "currency",
            "model_version",
            "evaluated",
            "viable",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    def get_evaluated(self, plan: Plan) -> int:
        return (plan.ranking or {}).get("evaluated", 0)

    def get_viable(self, plan: Plan) -> int:
        return len((plan.ranking or {}).get("candidates", []))


class PlanSerializer(PlanSummarySerializer):
    question = serializers.JSONField(read_only=True, help_text="The question as it was asked")
    why_none = serializers.SerializerMethodField(
        help_text="Why no build is viable; null when some are"
    )
    rejected = serializers.SerializerMethodField()
    candidates = serializers.SerializerMethodField(
        help_text="The first page of the ranking under the plan's own weights; page on with "
        "/api/v1/plans/{id}/candidates/"
    )

    class Meta(PlanSummarySerializer.Meta):
        fields = [
            *PlanSummarySerializer.Meta.fields,
            "question",
            "why_none",
            "rejected",
            "candidates",
        ]
        read_only_fields = fields

    def get_why_none(self, plan: Plan) -> str | None:
        return plan_why_none(plan.ranking)

    @extend_schema_field(RejectedBuilds)
    def get_rejected(self, plan: Plan) -> list[dict[str, Any]]:
        return [localise_rejected(c) for c in (plan.ranking or {}).get("rejected", [])]

    @extend_schema_field(CandidatePage)
    def get_candidates(self, plan: Plan) -> dict[str, Any]:
        return candidate_page(
            plan=plan,
            weights=default_weights(plan=plan),
            page=1,
            page_size=DEFAULT_PAGE_SIZE,
            request=self.context.get("request"),
        )


class OrderQuerySerializer(serializers.Serializer):
    """What orders a plan's builds: the objective and weights 0-100 (a dimension left out keeps
    the plan's weight; a zero leaves it out of the overall score)."""

    objective = serializers.ChoiceField(
        choices=list(OBJECTIVES),
        required=False,
        help_text="What orders the builds; default: the plan's own (cost unless it asked "
        "otherwise)",
    )
    memory_capacity = serializers.FloatField(min_value=0, max_value=100, required=False)
    memory_bandwidth = serializers.FloatField(min_value=0, max_value=100, required=False)
    interconnect = serializers.FloatField(min_value=0, max_value=100, required=False)
    cooling = serializers.FloatField(min_value=0, max_value=100, required=False)
    software = serializers.FloatField(min_value=0, max_value=100, required=False)


class CandidatesQuerySerializer(OrderQuerySerializer):
    """Query parameters of the candidates page: the order, and which page."""

    page = serializers.IntegerField(min_value=1, required=False, default=1)
    page_size = serializers.IntegerField(
        min_value=1, max_value=MAX_PAGE_SIZE, required=False, default=DEFAULT_PAGE_SIZE
    )


class PurchaseLineSerializer(serializers.Serializer):
    """One thing to order: how many, at which price, and where the price comes from."""

    item = serializers.CharField(
        help_text="system | accelerator | server | nic | switch_port | cable | transceiver | rack"
    )
    item_label = serializers.CharField(help_text="The item in the request's language")
    description = serializers.CharField(help_text="Catalog name of what to order")
    name = serializers.CharField(help_text="Catalog slug (the fabric's for network items)")
    quantity = serializers.IntegerField()
    unit = serializers.FloatField(allow_null=True, help_text="Per unit, plan currency")
    amount = serializers.FloatField(allow_null=True, help_text="quantity x unit, plan currency")
    currency = serializers.CharField(help_text="The plan's currency")
    own_unit = serializers.FloatField(allow_null=True, help_text="Per unit, as quoted")
    own_currency = serializers.CharField(help_text="The quote's currency")
    origin = serializers.CharField(help_text="team | reference | question | missing")
    origin_label = serializers.CharField()
    source = serializers.CharField(help_text="URL or quote reference")
    price_date = serializers.CharField(help_text="ISO date the source gives")
    price_id = serializers.IntegerField(allow_null=True, help_text="/api/v1/prices/{id}/")
    provider = serializers.CharField()
    stale = serializers.BooleanField(help_text="More than a year old")
    expired = serializers.BooleanField(help_text="Past its valid-until day")


class PurchaseListSerializer(serializers.Serializer):
    """A build's purchase list; `?format=csv` (or Accept: text/csv) answers it as CSV."""

    plan = serializers.IntegerField()
    candidate = serializers.IntegerField(help_text="The build's id in the plan")
    accelerator = serializers.CharField()
    server = serializers.CharField()
    count = serializers.IntegerField()
    nodes = serializers.IntegerField()
    currency = serializers.CharField()
    total = serializers.FloatField(allow_null=True, help_text="Sum of the priced lines")
    missing = serializers.ListField(
        child=serializers.CharField(), help_text="Items without a price"
    )
    lines = PurchaseLineSerializer(many=True)


def _page_url(
    request: Request | None, plan: Plan, page: int, page_size: int, weights, objective: str
) -> str:
    query = {
        "objective": objective,
        **{k: f"{weights[k]:g}" for k in DIMENSIONS},
        "page": page,
        "page_size": page_size,
    }
    path = reverse("plan-candidates", kwargs={"pk": plan.pk})
    url = request.build_absolute_uri(path) if request is not None else path
    return f"{url}?{'&'.join(f'{k}={v}' for k, v in query.items())}"


def candidate_page(
    *,
    plan: Plan,
    weights: dict[str, float],
    page: int,
    page_size: int,
    request: Request | None,
    objective: str | None = None,
) -> dict[str, Any]:
    """One page of the plan's viable builds ordered by the objective, then `weights`; NotFound
    past the end."""
    ordered = ranked_candidates(plan=plan, weights=weights, objective=objective)
    paginator = Paginator(ordered.candidates, page_size)
    try:
        current = paginator.page(page)
    except EmptyPage:
        if page == 1:  # no viable build: an empty first page, not a 404
            current = None
        else:
            raise NotFound(_("Invalid page.")) from None
    return {
        "count": paginator.count,
        "page": page,
        "page_size": page_size,
        "next": _page_url(request, plan, page + 1, page_size, weights, ordered.objective)
        if current is not None and current.has_next()
        else None,
        "previous": _page_url(request, plan, page - 1, page_size, weights, ordered.objective)
        if current is not None and current.has_previous()
        else None,
        "weights": weights,
        "objective": ordered.objective,
        "why_first": render(ordered.first) if ordered.first else None,
        "results": [localise_candidate(c) for c in current] if current is not None else [],
    }


class RackCommitmentSerializer(serializers.ModelSerializer):
    """Room a plan holds in one rack for servers of its build, until released."""

    rack_name = serializers.CharField(source="rack.name", read_only=True)
    rack_group = serializers.CharField(source="rack.rack_group.name", read_only=True)
    server = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True)

    class Meta:
        model = RackCommitment
        fields = [
            "id",
            "plan",
            "rack",
            "rack_name",
            "rack_group",
            "server",
            "servers",
            "power_kw",
            "units",
            "weight_kg",
            "created_at",
            "released_at",
        ]
        read_only_fields = fields
