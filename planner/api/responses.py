"""Bodies and responses every planner endpoint documents the same way."""

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers


class DetailSerializer(serializers.Serializer):
    detail = serializers.CharField()


class FieldErrorsSerializer(serializers.Serializer):
    """`{"<field path>": ["message"]}`, e.g. `{"parallelism.tp": ["must divide the model's 32 attention heads"]}`."""

    field = serializers.ListField(child=serializers.CharField(), required=False)


UNAUTHENTICATED = OpenApiResponse(
    DetailSerializer, description="No credentials, or a wrong or revoked token."
)
