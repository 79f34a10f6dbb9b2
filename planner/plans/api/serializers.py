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

from catalog.choices import Currency
from planner.engine.scoring import DIMENSIONS
from planner.estimates.api.serializers import (
    EngineRequestSerializer,
    EstimateRequestSerializer,
    EstimateResponseSerializer,
    FitRackSerializer,
)
from planner.models import Plan
from planner.plans.selectors import default_weights, ranked_candidates

DEFAULT_PAGE_SIZE = 25
MAX_PAGE_SIZE = 200

# --- the question ----------------------------------------------------------------------------


class WorkloadQuestionSerializer(EstimateRequestSerializer):
    """The job: an estimate question without accelerator and count (the plan picks them)."""

    accelerator = None
    count = None
    per_node = None
    parallelism = None


class RackGroupQuestionSerializer(FitRackSerializer):
    """One row of identical racks. Plain strings for the choices: the fit API's rack and the
    rack group model already name their enums, and a third user would leave them unnamed."""

    name = serializers.CharField(required=False)
    count = serializers.IntegerField(min_value=1, required=False, default=1, help_text="Racks")
    cooling = serializers.CharField(
        required=False, default="air", help_text="air, rdhx (rear-door) or liquid"
    )
    feeds = serializers.CharField(required=False, default="single", help_text="single or 2n")


class InlineSiteSerializer(EngineRequestSerializer):
    racks = RackGroupQuestionSerializer(many=True, required=False)
    pue = serializers.FloatField(min_value=1, max_value=3, required=False, default=1.3)
    price_per_kwh = serializers.FloatField(
        min_value=0, required=False, help_text="Electricity price per kWh, in `currency`"
    )
    currency = serializers.ChoiceField(Currency.choices, required=False, default="USD")


class BudgetSerializer(EngineRequestSerializer):
    capex = serializers.FloatField(min_value=0, required=False, help_text="Purchase budget")
    tco = serializers.FloatField(
        min_value=0, required=False, help_text="Capex plus energy over `years`"
    )
    currency = serializers.ChoiceField(
        Currency.choices, required=False, help_text="Default: the site's currency, else USD"
    )


class CountRangeSerializer(EngineRequestSerializer):
    min = serializers.IntegerField(min_value=1, required=False, default=1)
    max = serializers.IntegerField(min_value=1, required=False, help_text="Default max(min, 1024)")


class WeightsSerializer(EngineRequestSerializer):
    """0-100 each; a dimension left out keeps the task's default."""

    memory_capacity = serializers.FloatField(min_value=0, max_value=100, required=False)
    memory_bandwidth = serializers.FloatField(min_value=0, max_value=100, required=False)
    interconnect = serializers.FloatField(min_value=0, max_value=100, required=False)
    cooling = serializers.FloatField(min_value=0, max_value=100, required=False)
    software = serializers.FloatField(min_value=0, max_value=100, required=False)


class PlanQuestionSerializer(EngineRequestSerializer):
    """The recommend question, as `manage.py recommend` takes it, plus `site_id`."""

    name = serializers.CharField(required=False, max_length=200, default="Plan")
    workload = WorkloadQuestionSerializer()
    site_id = serializers.IntegerField(
        required=False,
        help_text="A saved site you can see; or give `site` inline, not both. Null: none",
    )
    site = InlineSiteSerializer(required=False, help_text="Racks given inline")
    budget = BudgetSerializer(required=False)
    years = serializers.FloatField(
        min_value=0.25, max_value=15, required=False, default=4, help_text="Years of ownership"
    )
    count = CountRangeSerializer(required=False, help_text="Accelerators in all")
    vendors = serializers.ListField(child=serializers.CharField(), required=False)
    stacks = serializers.ListField(
        child=serializers.ChoiceField(["cuda", "rocm", "oneapi", "cann", "synapseai"]),
        required=False,
    )
    accelerators = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="Only these catalog slugs"
    )
    deadline_days = serializers.FloatField(
        min_value=0.001, required=False, help_text="Training: reject builds slower than this"
    )
    target_rps = serializers.FloatField(
        min_value=0.001, required=False, help_text="Serving: requests per second to sustain"
    )
    ttft_ms = serializers.FloatField(min_value=0.001, required=False, help_text="ms")
    tpot_ms = serializers.FloatField(min_value=0.001, required=False, help_text="ms")
    rent_per_gpu_hour = serializers.FloatField(
        min_value=0, required=False, help_text="Cloud price, in the budget's currency"
    )
    weights = WeightsSerializer(required=False)
    limit = serializers.IntegerField(
        min_value=1, max_value=1000, required=False, help_text="Ignored: plans keep every build"
    )


# --- the answer ------------------------------------------------------------------------------


class ScoresSerializer(serializers.Serializer):
    memory_capacity = serializers.FloatField()
    memory_bandwidth = serializers.FloatField()
    interconnect = serializers.FloatField()
    cooling = serializers.FloatField()
    software = serializers.FloatField()


class ReasonsSerializer(serializers.Serializer):
    memory_capacity = serializers.CharField()
    memory_bandwidth = serializers.CharField()
    interconnect = serializers.CharField()
    cooling = serializers.CharField()
    software = serializers.CharField()


class CostSerializer(serializers.Serializer):
    capex = serializers.FloatField(allow_null=True, help_text="Null without catalog prices")
    energy_per_year = serializers.FloatField(
        allow_null=True, help_text="Null without an electricity price"
    )
    tco = serializers.FloatField(allow_null=True, help_text="Capex + years x energy")
    years = serializers.FloatField()
    rent_per_year = serializers.FloatField(allow_null=True)
    breakeven_months = serializers.FloatField(
        allow_null=True, help_text="When buying overtakes renting"
    )
    notes = serializers.ListField(child=serializers.CharField())


class CandidateFitSerializer(serializers.Serializer):
    servers_per_rack = serializers.IntegerField()
    racks_needed = serializers.IntegerField(allow_null=True, help_text="Null without a site")
    binding = serializers.CharField(allow_null=True, help_text="The limit that binds first")
    hostable = serializers.BooleanField()
    site = serializers.BooleanField(help_text="Whether a site's racks were checked")
    it_power_kw = serializers.FloatField()
    facility_power_kw = serializers.FloatField()
    eta_thermal = serializers.FloatField()
    groups = serializers.ListField(child=serializers.DictField(), help_text="Racks used per group")
    warnings = serializers.ListField(child=serializers.CharField())


class CandidateEstimateSerializer(EstimateResponseSerializer):
    """The estimate contract's answer as a plan keeps it for each build."""

    explanations = serializers.DictField(
        child=serializers.CharField(), required=False, help_text="Not kept in a plan"
    )
    search = serializers.DictField(required=False, help_text="Not kept in a plan")


class CandidateSerializer(serializers.Serializer):
    rank = serializers.IntegerField(help_text="1 = best under the weights used")
    id = serializers.IntegerField(help_text="The same build whatever the weights")
    accelerator = serializers.CharField(help_text="Catalog slug")
    server = serializers.CharField(help_text="Catalog slug")
    count = serializers.IntegerField(help_text="Accelerators in all")
    nodes = serializers.IntegerField(help_text="Servers")
    estimate = CandidateEstimateSerializer(help_text="The estimate contract's answer")
    fit = CandidateFitSerializer()
    cost = CostSerializer(help_text="In the plan's currency")
    scores = ScoresSerializer(help_text="0-100 each")
    reasons = ReasonsSerializer(help_text="One line per score")
    overall = serializers.FloatField(help_text="Weighted mean of the scores, 0-100")
    failures = serializers.ListField(child=serializers.CharField())


class CandidatePageSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="Viable builds in all")
    page = serializers.IntegerField()
    page_size = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    weights = WeightsSerializer(help_text="The weights used, 0-100")
    results = CandidateSerializer(many=True)


class RejectedSerializer(serializers.Serializer):
    accelerator = serializers.CharField()
    server = serializers.CharField()
    count = serializers.IntegerField()
    nodes = serializers.IntegerField()
    reason = serializers.CharField(help_text="The hard constraints it breaks")


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
        return (plan.ranking or {}).get("why_none")

    @extend_schema_field(RejectedSerializer(many=True))
    def get_rejected(self, plan: Plan) -> list[dict[str, Any]]:
        return [
            {key: c[key] for key in ("accelerator", "server", "count", "nodes")}
            | {"reason": c.get("reason") or "; ".join(c.get("failures", []))}
            for c in (plan.ranking or {}).get("rejected", [])
        ]

    @extend_schema_field(CandidatePageSerializer)
    def get_candidates(self, plan: Plan) -> dict[str, Any]:
        return candidate_page(
            plan=plan,
            weights=default_weights(plan=plan),
            page=1,
            page_size=DEFAULT_PAGE_SIZE,
            request=self.context.get("request"),
        )


class CandidatesQuerySerializer(serializers.Serializer):
    """Query parameters of the candidates page: weights 0-100 (a dimension left out keeps the
    plan's weight; a zero leaves it out of the overall score)."""

    page = serializers.IntegerField(min_value=1, required=False, default=1)
    page_size = serializers.IntegerField(
        min_value=1, max_value=MAX_PAGE_SIZE, required=False, default=DEFAULT_PAGE_SIZE
    )
    memory_capacity = serializers.FloatField(min_value=0, max_value=100, required=False)
    memory_bandwidth = serializers.FloatField(min_value=0, max_value=100, required=False)
    interconnect = serializers.FloatField(min_value=0, max_value=100, required=False)
    cooling = serializers.FloatField(min_value=0, max_value=100, required=False)
    software = serializers.FloatField(min_value=0, max_value=100, required=False)


def _page_url(request: Request | None, plan: Plan, page: int, page_size: int, weights) -> str:
    query = {**{k: f"{weights[k]:g}" for k in DIMENSIONS}, "page": page, "page_size": page_size}
    path = reverse("plan-candidates", kwargs={"pk": plan.pk})
    url = request.build_absolute_uri(path) if request is not None else path
    return f"{url}?{'&'.join(f'{k}={v}' for k, v in query.items())}"


def candidate_page(
    *, plan: Plan, weights: dict[str, float], page: int, page_size: int, request: Request | None
) -> dict[str, Any]:
    """One page of the plan's viable builds ordered under `weights`; NotFound past the end."""
    paginator = Paginator(ranked_candidates(plan=plan, weights=weights), page_size)
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
        "next": _page_url(request, plan, page + 1, page_size, weights)
        if current is not None and current.has_next()
        else None,
        "previous": _page_url(request, plan, page - 1, page_size, weights)
        if current is not None and current.has_previous()
        else None,
        "weights": weights,
        "results": list(current) if current is not None else [],
    }
