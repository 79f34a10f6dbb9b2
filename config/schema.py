"""The OpenAPI document's error responses, added to every operation from what its view does,
so no endpoint can answer a status its documentation leaves out. A view's own description of a
status (a 400 with its examples, a 409, a 503) is kept; only the missing ones are added."""

from __future__ import annotations

from typing import Any

import django_filters
from drf_spectacular.openapi import AutoSchema
from rest_framework import serializers
from rest_framework.permissions import AllowAny

BODY_METHODS = {"POST", "PUT", "PATCH"}


class ErrorSerializer(serializers.Serializer):
    """`{"detail": "..."}`: why the request was refused."""

    detail = serializers.CharField()


class ValidationErrorSerializer(serializers.Serializer):
    """`{"<field>": ["message", ...]}` for each field that is wrong (nested fields nest the
    same way), rules across fields under `non_field_errors`, or `{"detail": "..."}` when the
    body could not be read at all."""

    detail = serializers.CharField(required=False)
    non_field_errors = serializers.ListField(child=serializers.CharField(), required=False)


RETRY_AFTER_HEADER = {
    "Retry-After": {
        "schema": {"type": "integer"},
        "description": "Seconds to wait before the next request is let through",
    }
}


class ErrorDocumentingAutoSchema(AutoSchema):
    """drf-spectacular's AutoSchema, plus the error responses the view can give:

    - 400 when the operation reads a body or query parameters, which can be wrong;
    - 401 when the view authenticates: a wrong or revoked token is refused even where
      anonymous requests are allowed, and missing credentials where they are not;
    - 403 when a permission can deny (any permission other than AllowAny);
    - 404 for a path naming an object, and for a list's page past the end;
    - 413 and 415 for a body too large or not JSON;
    - 429 everywhere, since every request is throttled.
    """

    def _map_serializer_field(self, field, direction, bypass_extensions=False):
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if direction != "request" or field.read_only or schema.get("type") != "string":
            return schema
        # DRF reads a JSON number where it expects a decimal (given as a string) or plain text,
        # so the document says so: a number there is not bad data.
        if isinstance(field, serializers.DecimalField) or type(field) is serializers.CharField:
            return {"oneOf": [schema, {"type": "number"}]}
        return schema

    def get_operation(self, path, path_regex, path_prefix, method, registry):
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        self._allow_blank_choices(operation)
        responses = operation["responses"]
        for code, serializer, description in self._error_responses(operation):
            if code in responses:
                continue
            response = self._get_response_for_code(serializer, code)
            response["description"] = description
            if code == "429":
                response["headers"] = dict(RETRY_AFTER_HEADER)
            responses[code] = response
        operation["responses"] = dict(sorted(responses.items()))
        return operation

    def _allow_blank_choices(self, operation: dict[str, Any]) -> None:
        """A single-choice or ordering filter left blank means "any" (or the default order),
        as the pages' forms send it; the document's enum says so."""
        filterset = getattr(self.view, "filterset_class", None)
        if filterset is None:
            return
        for parameter in operation.get("parameters", []):
            given = filterset.base_filters.get(parameter["name"])
            if parameter["in"] != "query" or not isinstance(given, django_filters.ChoiceFilter):
                continue
            schema = parameter["schema"]
            enum = (
                schema["items"].get("enum") if schema.get("type") == "array" else schema.get("enum")
            )
            if enum is not None and "" not in enum:
                enum.append("")

    def _error_responses(self, operation: dict[str, Any]) -> list[tuple[str, type, str]]:
        parameters = operation.get("parameters", [])
        in_query = {p["name"] for p in parameters if p.get("in") == "query"}
        in_path = [p for p in parameters if p.get("in") == "path"]
        has_body = self.method in BODY_METHODS and "requestBody" in operation
        out: list[tuple[str, type, str]] = []
        if has_body or in_query:
            out.append(("400", ValidationErrorSerializer, "A field or query parameter is wrong."))
        if self.view.get_authenticators():
            out.append(
                ("401", ErrorSerializer, "Missing credentials, or a wrong or revoked token.")
            )
        if any(not isinstance(p, AllowAny) for p in self.view.get_permissions()):
            out.append(("403", ErrorSerializer, "Your role may not do this."))
        if in_path or "page" in in_query:
            out.append(("404", ErrorSerializer, "No such object, or no such page."))
        if has_body:
            out.append(("413", ErrorSerializer, "The request body is too large."))
            out.append(("415", ErrorSerializer, "The body is not in a supported media type."))
        out.append(("429", ErrorSerializer, "Too many requests; see Retry-After."))
        return out
