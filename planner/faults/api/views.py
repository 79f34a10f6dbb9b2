"""The fault guide and a team's fault table over the API, and the diagnosis of a pasted text:
`/api/v1/diagnose/`, `/api/v1/fault-entries/`, `/api/v1/fault-incidents/`. Reads go through
the visibility selectors (another team's rows are a 404); writes through planner.faults.services,
so the API and the pages share one set of rules."""

from __future__ import annotations

from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import AnyRole, PlannerWrites
from accounts.services import user_team
from config.json_input import StrictJSONParser
from planner.api.record_docs import INVALID, record_docs
from planner.api.responses import UNAUTHENTICATED, detail_response, documented
from planner.api.versioned import EditableRowsOnly, RecordRows, RecordViewSet
from planner.faults import selectors, services
from planner.faults.api.serializers import (
    DiagnoseRequestSerializer,
    DiagnosisSerializer,
    FaultEntrySerializer,
    FaultIncidentSerializer,
)
from planner.faults.filtersets import FaultEntryFilterSet
from planner.faults.selectors import diagnosis_json, fault_diagnosis, fault_entry_visible_to
from planner.models import Site

XID_79 = (
    "NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
)


class EditableOnly(EditableRowsOnly):
    """Writes need a row the user may change: their own team's (admins: any team's). The guide
    is read-only here; it is changed in catalog/data/faults."""

    message = _("The guide's entries are read-only; add your team's own entry instead.")


@documented(
    "faults",
    post=extend_schema(
        summary="Diagnose a pasted log: the known faults it shows, best first",
        description="Reads a kernel log, nvidia-smi -q output, a Python traceback or NCCL "
        "output and answers the guide's and your team's entries it matches, ranked, each with "
        "the line that matched, the likely causes, the commands to check and the fixes, in the "
        "request's language (Accept-Language). Your team's incidents of an entry rank it higher "
        "and are listed with it. `matches` is empty when nothing matches.",
        request=DiagnoseRequestSerializer,
        responses={
            200: DiagnosisSerializer,
            400: INVALID,
            401: UNAUTHENTICATED,
        },
        examples=[OpenApiExample("Xid 79", value={"text": XID_79}, request_only=True)],
    ),
)
class DiagnoseView(APIView):
    # A pasted log travels as a JSON string; form bodies would blur an empty field into "not
    # given", which the schema does not say.
    parser_classes = [StrictJSONParser]  # JSON only: a form body has no place in its schema
    permission_classes = [AnyRole]
    throttle_scope = "compute"

    def post(self, request) -> Response:
        serializer = DiagnoseRequestSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        text = data.pop("text")
        diagnosis = fault_diagnosis(text=text, user=request.user, job=data)
        return Response(diagnosis_json(diagnosis, absolute=request.build_absolute_uri))


ENTRY_FORBIDDEN = detail_response(
    "Your role may not write (writes need planner), or the entry is the guide's."
)
ENTRY_NOT_FOUND = detail_response("No such entry, or it belongs to another team.")


@record_docs("faults", forbidden=ENTRY_FORBIDDEN, not_found=ENTRY_NOT_FOUND)
class FaultEntryViewSet(RecordViewSet):
    """The fault guide (shipped, every team reads it) and your team's own entries: the lines
    that betray a fault, its symptoms, likely causes, checks and fixes. Everyone reads;
    planners write their team's entries. The list takes the guide page's filters."""

    serializer_class = FaultEntrySerializer
    permission_classes = [PlannerWrites, EditableOnly]
    filterset_class = FaultEntryFilterSet
    noun = "fault entry"
    rows = RecordRows(selectors, services, "fault_entry", row_arg="entry")


INCIDENT_FORBIDDEN = detail_response("Your role may not write (writes need planner).")
INCIDENT_NOT_FOUND = detail_response("No such incident, or it belongs to another team.")


@record_docs("faults", forbidden=INCIDENT_FORBIDDEN, not_found=INCIDENT_NOT_FOUND)
class FaultIncidentViewSet(RecordViewSet):
    """Your team's incidents: what happened, when, on which site and hardware, what fixed it.
    Only your team sees them; planners write them. Each is kept with its history."""

    serializer_class = FaultIncidentSerializer
    permission_classes = [PlannerWrites, EditableOnly]
    noun = "fault incident"
    rows = RecordRows(selectors, services, "fault_incident", row_arg="incident")

    def choosable(self):
        """The entries and sites an incident of the user's team may name."""
        team = user_team(self.request.user)
        entries = fault_entry_visible_to(self.request.user).filter(
            Q(team=team) | Q(team__isnull=True)
        )
        return entries, Site.objects.filter(team=team)
