"""POST /api/v1/netbox/import/: the NetBox import, as the page and the command run it."""

from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import FacilityWrites
from planner.api.responses import UNAUTHENTICATED, DetailSerializer
from planner.netbox.api.serializers import (
    NetboxImportRefusedSerializer,
    NetboxImportRequestSerializer,
    NetboxImportResultSerializer,
)
from planner.netbox.formats import ImportRefused
from planner.netbox.readers import NetboxFile
from planner.netbox.results import ImportOptions
from planner.netbox.services import netbox_import
from planner.versioning import StaleVersionError


class NetboxImportView(APIView):
    permission_classes = [FacilityWrites]
    parser_classes = [MultiPartParser]
    throttle_scope = "compute"

    @extend_schema(
        tags=["netbox"],
        summary="Import racks, power feeds and devices from NetBox's files",
        request={"multipart/form-data": NetboxImportRequestSerializer},
        responses={
            200: NetboxImportResultSerializer,
            400: OpenApiResponse(
                NetboxImportRefusedSerializer, "A file has problems; nothing was written"
            ),
            401: UNAUTHENTICATED,
            403: OpenApiResponse(DetailSerializer, "Not a facility engineer of a team"),
            409: OpenApiResponse(DetailSerializer, "The import would write other than `expected`"),
        },
    )
    def post(self, request: Request) -> Response:
        form = NetboxImportRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        files = [NetboxFile(f.name, f.read()) for f in data.pop("files")]
        dry_run, expected = data.pop("dry_run"), data.pop("expected", None)
        try:
            result = netbox_import(
                user=request.user,
                files=files,
                options=ImportOptions.of(data),
                dry_run=dry_run,
                expected=expected,
            )
        except PermissionDenied as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_403_FORBIDDEN)
        except ImportRefused as refused:
            problems = [
                {
                    "file": p.where.file,
                    "line": p.where.line,
                    "column": p.where.column,
                    "field": p.where.name,
                    "message": p.message,
                }
                for p in refused.problems
            ]
            detail = _("The files cannot be imported; nothing was written.")
            return Response(
                {"detail": detail, "problems": problems}, status=status.HTTP_400_BAD_REQUEST
            )
        except StaleVersionError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(result.as_json() | {"fingerprint": result.fingerprint()})
