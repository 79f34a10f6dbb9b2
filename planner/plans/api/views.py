"""Plans over the API: POST a recommend question to rank every build (201 with the plan and its
first page of candidates), GET the team's plans or one, and page through a plan's candidates
re-ordered by weights given as query parameters.

Validation is the engine's (planner.plans.plan_question), shared with the plan pages and
`manage.py recommend`; every write goes through `plan_create`, every re-ordering through
`plan_ranking`. The serializers here describe the contract for the OpenAPI document."""

from __future__ import annotations

import io
from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiResponse,
    extend_schema,
)
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import PlannerWrites, PlanWrites
from accounts.services import user_team
from planner.api.responses import (
    UNAUTHENTICATED,
    collection_docs,
    create_docs,
    detail_response,
    field_errors_example,
    field_errors_response,
    row_docs,
)
from planner.api.views import VisibleListCreateView, VisibleRowsMixin
from planner.engine.contract.answers import CandidatePage, RankedCandidate
from planner.engine.contract.plan import PlanRequest
from planner.engine.scoring import DIMENSIONS
from planner.messages.answers import localise_candidate
from planner.models import Plan
from planner.plans.api.serializers import (
    CandidatesQuerySerializer,
    OrderQuerySerializer,
    PlanSerializer,
    PlanSummarySerializer,
    PurchaseListSerializer,
    candidate_page,
)
from planner.plans.figures import build_names
from planner.plans.purchases import purchase_rows, purchase_total, write_purchase_csv
from planner.plans.selectors import default_weights, plan_candidate, plan_visible_to
from planner.plans.services import plan_create
from planner.sites.selectors import site_visible_to
from planner.web.downloads import as_download

# --- documentation ---------------------------------------------------------------------------

FORBIDDEN = detail_response(
    "Your role may not create plans (planner or facility), or you have no team."
)
NOT_FOUND = detail_response("No such plan in your team.")
EXAMPLES = [
    OpenApiExample(
        "Pre-train Llama 3 70B in 60 days on 64-512 accelerators",
        value={
            "name": "Llama 3 70B pre-training",
            "workload": {
                "task": "train",
                "model": "meta-llama-3-70b",
                "tokens": 2e12,
                "seq_len": 4096,
            },
            "deadline_days": 60,
            "count": {"min": 64, "max": 512},
            "site_id": 3,
            "budget": {"capex": 30000000, "currency": "USD"},
            "vendors": ["NVIDIA", "AMD"],
        },
        request_only=True,
    ),
    OpenApiExample(
        "Serve Llama 3 8B at 20 requests/s within 500 ms TTFT",
        value={
            "workload": {
                "task": "inference",
                "model": "meta-llama-3-8b",
                "precision": "fp8",
                "inference": {"batch": 32, "prompt_len": 1024, "output_len": 256},
            },
            "target_rps": 20,
            "ttft_ms": 500,
            "tpot_ms": 50,
            "count": {"min": 1, "max": 64},
            "site": {
                "racks": [{"name": "Row A", "count": 4, "power_kw": 20, "units": 42}],
                "price_per_kwh": 0.65,
                "currency": "CNY",
            },
        },
        request_only=True,
    ),
    field_errors_example({"workload.model": ["unknown model 'no-such'"]}),
]


# --- views -----------------------------------------------------------------------------------


def plans_with_team_visible_to(user):
    return plan_visible_to(user).select_related("team")


def _site(request: Request, data: Any):
    """The saved site `site_id` names, or None; 400 naming `site_id` when it is not one."""
    if not isinstance(data, dict) or data.get("site_id") is None:
        return None
    site_id = data["site_id"]
    if "site" in data:
        raise serializers.ValidationError(
            {"site_id": [_("Give a saved site or inline racks in site, not both.")]}
        )
    if isinstance(site_id, bool) or not isinstance(site_id, int):
        raise serializers.ValidationError({"site_id": [_("Must be the id of a site.")]})
    site = site_visible_to(request.user).filter(pk=site_id).first()
    if site is None:
        raise serializers.ValidationError(
            {"site_id": [_("No site with this id is visible to you.")]}
        )
    return site


@collection_docs(
    "plans",
    summary="Your team's plans, newest first",
    post=create_docs(
        summary="Rank every build for a workload, a site and a budget",
        description="Every accelerator x server x count the filters allow is estimated, fitted "
        "into the site's racks, costed and scored on five dimensions (memory capacity, memory "
        "bandwidth, interconnect, cooling, software), 0-100 each. The plan keeps every build; "
        "the answer carries the first page, best first, and those that break a hard "
        "constraint (memory, racks, budget, deadline, latency, rate) under `rejected`. "
        "Planners, facility people and admins.",
        request=PlanRequest,
        responses={201: OpenApiResponse(PlanSerializer, description="Ranked and saved.")},
        invalid='A field is missing or wrong; the key names it, e.g. {"workload.model": '
        '["..."]}, {"budget.capex": ["..."]} or {"site_id": ["..."]}.',
        forbidden=FORBIDDEN,
        examples=EXAMPLES,
    ),
)
class PlanListView(VisibleListCreateView):
    """Any signed-in role of the team reads; planners, facility people and admins create."""

    permission_classes = [PlanWrites]
    serializer_class = PlanSummarySerializer
    visible_to = staticmethod(plans_with_team_visible_to)
    throttle_scope = "compute"  # POST ranks every build
    answer_serializer = PlanSerializer
    detail_view = "plan-detail"

    def make(self, request) -> tuple[Plan, int]:
        team = user_team(request.user)
        if team is None:
            raise PermissionDenied(_("Your account belongs to no team."))
        data = request.data
        site = _site(request, data)
        if isinstance(data, dict):
            data = {key: value for key, value in data.items() if key != "site_id"}
        plan = plan_create(data=data, user=request.user, team=team, site=site)
        return plan, status.HTTP_201_CREATED


@row_docs(
    "plans",
    summary="One plan: its question, rejected builds and first page of the ranking",
    not_found=NOT_FOUND,
)
class PlanDetailView(VisibleRowsMixin, generics.RetrieveAPIView):
    serializer_class = PlanSerializer
    visible_to = staticmethod(plans_with_team_visible_to)


def _plan_and_order(
    request: Request, pk: int, query_serializer: type[serializers.Serializer]
) -> tuple[Plan, dict[str, Any], dict[str, float]]:
    """The visible plan (404 otherwise), the validated query, and the weights: the plan's own
    with the dimensions the query gives replacing them."""
    plan = plan_visible_to(request.user).filter(pk=pk).first()
    if plan is None:
        raise NotFound(_("No such plan in your team."))
    query = query_serializer(data=request.query_params)
    query.is_valid(raise_exception=True)
    given = {k: v for k, v in query.validated_data.items() if k in DIMENSIONS}
    return plan, query.validated_data, {**default_weights(plan=plan), **given}


@extend_schema(tags=["plans"])
class PlanCandidatesView(APIView):
    """The plan's viable builds, re-ordered by the weights given (nothing is re-estimated)."""

    permission_classes = [PlannerWrites]

    @extend_schema(
        summary="Page through a plan's ranking by another objective or new weights",
        description="`objective` orders the builds (cost, capex, rent, time, devices, "
        "tokens_per_joule, score); the weights break its ties, or rank outright under score. "
        "Weights are 0-100 query parameters; a dimension left out keeps the "
        "plan's weight (the task's default unless the question set one), and a zero leaves "
        "it out: with only `software` above zero the order follows the software score.",
        parameters=[CandidatesQuerySerializer],
        responses={
            200: CandidatePage,
            400: field_errors_response('A bad query value, e.g. {"software": ["..."]}.'),
            401: UNAUTHENTICATED,
            404: NOT_FOUND,
        },
    )
    def get(self, request: Request, pk: int) -> Response:
        plan, query, weights = _plan_and_order(request, pk, CandidatesQuerySerializer)
        return Response(
            candidate_page(
                plan=plan,
                weights=weights,
                page=query["page"],
                page_size=query["page_size"],
                request=request,
                objective=query.get("objective"),
            )
        )


class PurchaseCsvRenderer(BaseRenderer):
    """A purchase list as CSV (planner.plans.purchases writes it), headers in the request's
    language; any other answer (404, 401) as one line of text."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None) -> bytes:
        out = io.StringIO()
        if isinstance(data, dict) and "lines" in data:
            write_purchase_csv(out, data["lines"])
        else:
            out.write(str((data or {}).get("detail", "")) + "\n")
        return out.getvalue().encode(self.charset)


def _visible_candidate(request: Request, pk: int, cid: int) -> tuple[Plan, dict[str, Any]]:
    plan, query, weights = _plan_and_order(request, pk, OrderQuerySerializer)
    candidate = plan_candidate(
        plan=plan, candidate_id=cid, weights=weights, objective=query.get("objective")
    )
    if candidate is None:
        raise NotFound(_("No such build in this plan."))
    return plan, candidate


NO_BUILD = detail_response("No such plan in your team, or no such build in it.")


@extend_schema(tags=["plans"])
class PlanCandidateView(APIView):
    """One viable build of a plan, by its id (its place in the stored ranking)."""

    permission_classes = [PlannerWrites]

    @extend_schema(
        operation_id="v1_plans_candidate_retrieve",
        summary="One build of a plan: estimate, site fit, cost lines with their prices, scores",
        description="The build's `id` stays the same whatever the order; `rank` is its place "
        "under the objective and weights given (the plan's own when none are).",
        parameters=[OrderQuerySerializer],
        responses={200: RankedCandidate, 401: UNAUTHENTICATED, 404: NO_BUILD},
    )
    def get(self, request: Request, pk: int, cid: int) -> Response:
        _plan, candidate = _visible_candidate(request, pk, cid)
        return Response(localise_candidate(candidate))


@extend_schema(tags=["plans"])
class PlanPurchaseListView(APIView):
    """A build's purchase list, as JSON or CSV."""

    permission_classes = [PlannerWrites]
    renderer_classes = [JSONRenderer, PurchaseCsvRenderer]

    @extend_schema(
        operation_id="v1_plans_candidate_purchase_list_retrieve",
        summary="A build's purchase list: what to order, how many, unit prices and sources",
        description="Complete systems, or cards and servers; NICs, switch ports, cables and "
        "transceivers; racks: each with its quantity, unit price in the plan's currency, the "
        "price as quoted, and the price's origin, source and date. `?format=csv` or "
        "`Accept: text/csv` answers CSV with headers in the request's language.",
        parameters=[OrderQuerySerializer],
        responses={
            (200, "application/json"): PurchaseListSerializer,
            (200, "text/csv"): OpenApiTypes.STR,
            401: UNAUTHENTICATED,
            404: NO_BUILD,
        },
    )
    def get(self, request: Request, pk: int, cid: int) -> Response:
        plan, candidate = _visible_candidate(request, pk, cid)
        rows = purchase_rows(plan, candidate, build_names(plan))
        total = purchase_total(rows)
        response = Response(
            {
                "plan": plan.pk,
                "candidate": candidate["id"],
                "accelerator": candidate["accelerator"],
                "server": candidate["server"],
                "count": candidate["count"],
                "nodes": candidate["nodes"],
                "currency": plan.currency,
                "total": total["amount"],
                "missing": [str(item) for item in total["missing"]],
                "lines": rows,
            }
        )
        if request.accepted_renderer.format == "csv":
            name = f"plan-{plan.pk}-build-{cid}-purchase.csv"
            as_download(response, name)
        return response
