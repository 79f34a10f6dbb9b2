"""Bodies and responses every planner endpoint documents the same way."""

from drf_spectacular.utils import OpenApiResponse, extend_schema_field
from rest_framework import serializers


@extend_schema_field({"type": ["object", "null"]})
class ObjectOrNullField(serializers.JSONField):
    """A stored JSON object, or null. OpenAPI 3.1 says so as one type list; drf-spectacular's
    own rendering of a nullable JSON field (oneOf any-or-null) matches null twice."""

    def __init__(self, **kwargs):
        super().__init__(read_only=True, **kwargs)


@extend_schema_field({})
class AnyJsonField(serializers.JSONField):
    """Any JSON value, null included."""


class DetailSerializer(serializers.Serializer):
    detail = serializers.CharField()


class FieldErrorsSerializer(serializers.Serializer):
    """`{"<field path>": ["message"]}`, e.g. `{"parallelism.tp": ["must divide the model's 32 attention heads"]}`."""

    field = serializers.ListField(child=serializers.CharField(), required=False)


UNAUTHENTICATED = OpenApiResponse(
    DetailSerializer, description="No credentials, or a wrong or revoked token."
)
