"""A plan's hold on its site's racks over the API: commit a build, release, list what it
holds, and rank the plan again in the site's free capacity as it is now. The same services as
the plan pages (planner.plans.services, planner.racks.commitments)."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import PlannerWrites, PlanWrites
from planner.api.responses import (
    NO_BODY,
    UNAUTHENTICATED,
    detail_response,
    field_errors,
    field_errors_response,
)
from planner.engine import RequestError
from planner.models import Plan, RackCommitment
from planner.plans.api.serializers import PlanSerializer, RackCommitmentSerializer
from planner.plans.selectors import plan_visible_to
from planner.plans.services import plan_build_commit, plan_rerank
from planner.racks.commitments import plan_release

NOT_FOUND = detail_response("No such plan in your team.")
FORBIDDEN = detail_response("Your role may not do this (committing and releasing: planner).")
BAD_FIELD = field_errors_response('No such build in the plan ({"build": [...]}), or a bad field.')
REFUSED = detail_response(
    "The build does not fit in the free racks (the message names the limit), the plan has "
    "no site, or it holds racks already."
)


def _no_fields(request: Request) -> None:
    if request.data:
        raise ValidationError(
            {"request": [_("This operation takes no fields; send {} or nothing.")]}
        )


def _plan(request: Request, pk: int) -> Plan:
    _no_fields(request)
    plan = plan_visible_to(request.user).select_related("site").filter(pk=pk).first()
    if plan is None:
        raise NotFound(_("No such plan in your team."))
    return plan


@extend_schema(tags=["plans"])
class PlanCommitmentsView(generics.ListAPIView):
    """The racks a plan holds, and held before (released ones with their date)."""

    permission_classes = [PlannerWrites]
    serializer_class = RackCommitmentSerializer
    queryset = RackCommitment.objects.none()  # per request: get_queryset

    @extend_schema(
        summary="The plan's rack commitments",
        responses={200: RackCommitmentSerializer(many=True), 404: NOT_FOUND},
    )
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        plan = _plan(self.request, self.kwargs["pk"])
        return (
            RackCommitment.objects.filter(plan=plan)
            .select_related("rack__rack_group", "server")
            .order_by("created_at", "pk")
        )


@extend_schema(tags=["plans"])
class PlanCommitView(APIView):
    """Hold room in the plan's site for the servers of one build, rack by rack as the fit
    places them; of two commits racing for the last room, one is refused."""

    permission_classes = [PlannerWrites]

    @extend_schema(
        summary="Commit a build to the site's racks",
        request=NO_BODY,
        responses={
            201: RackCommitmentSerializer(many=True),
            400: BAD_FIELD,
            401: UNAUTHENTICATED,
            403: FORBIDDEN,
            404: NOT_FOUND,
            409: REFUSED,
        },
    )
    def post(self, request: Request, pk: int, cid: int) -> Response:
        plan = _plan(request, pk)
        try:
            held = plan_build_commit(plan=plan, candidate_id=cid, user=request.user)
        except RequestError as exc:
            return field_errors(exc)
        except DjangoValidationError as exc:
            return Response({"detail": " ".join(exc.messages)}, status=status.HTTP_409_CONFLICT)
        return Response(
            RackCommitmentSerializer(held, many=True).data, status=status.HTTP_201_CREATED
        )


@extend_schema(tags=["plans"])
class PlanReleaseView(APIView):
    """Give back every rack the plan holds; the commitments stay, released, in history."""

    permission_classes = [PlannerWrites]

    @extend_schema(
        summary="Release the racks a plan holds",
        request=NO_BODY,
        responses={
            200: inline_serializer(
                "Released", {"released": serializers.IntegerField(help_text="Commitments released")}
            ),
            401: UNAUTHENTICATED,
            403: FORBIDDEN,
            404: NOT_FOUND,
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        return Response({"released": plan_release(plan=_plan(request, pk))})


@extend_schema(tags=["plans"])
class PlanRankView(APIView):
    """Rank the plan's question again in its site's free capacity as it is now (nothing ranks
    a plan again on its own)."""

    permission_classes = [PlanWrites]

    @extend_schema(
        summary="Rank a plan again",
        request=NO_BODY,
        responses={
            200: OpenApiResponse(PlanSerializer, description="Ranked again."),
            400: BAD_FIELD,
            401: UNAUTHENTICATED,
            403: FORBIDDEN,
            404: NOT_FOUND,
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        try:
            plan = plan_rerank(plan=_plan(request, pk), user=request.user)
        except RequestError as exc:
            return field_errors(exc)
        return Response(PlanSerializer(plan, context={"request": request}).data)
