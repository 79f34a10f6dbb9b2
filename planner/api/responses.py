"""Responses every planner endpoint documents the same way."""

from drf_spectacular.utils import OpenApiResponse

from planner.api.site_serializers import DetailSerializer

UNAUTHENTICATED = OpenApiResponse(
    DetailSerializer, description="No credentials, or a wrong or revoked token."
)
