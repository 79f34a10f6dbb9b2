"""The OpenAPI document from the contract's pydantic declarations: request bodies in pydantic's
validation mode (what a client may send: defaults optional), responses in serialization mode
(what it gets back), nested models as shared components."""

from __future__ import annotations

from typing import Any

from drf_spectacular.contrib.pydantic import PydanticExtension
from drf_spectacular.plumbing import ResolvedComponent
from pydantic.json_schema import model_json_schema


class ContractExtension(PydanticExtension):
    """drf-spectacular's pydantic extension always uses serialization mode; a request body is
    what the contract validates, so it is described in validation mode."""

    priority = 1

    def map_serializer(self, auto_schema: Any, direction: str) -> dict[str, Any]:
        mode = "validation" if direction == "request" else "serialization"
        # drf-spectacular names request components "<name>Request" (COMPONENT_SPLIT_REQUEST);
        # the nested ones registered here follow the same rule.
        suffix = "Request" if direction == "request" else ""
        schema = model_json_schema(
            self.target, ref_template="#/components/schemas/{model}" + suffix, mode=mode
        )
        defs = schema.pop("$defs", {})
        if direction == "request":
            for part in (schema, *defs.values()):
                _optional_may_be_null(part)
        for sub_name, sub_schema in defs.items():
            auto_schema.registry.register_on_missing(
                ResolvedComponent(
                    name=sub_name + suffix,
                    type=ResolvedComponent.SCHEMA,
                    object=sub_name + suffix,
                    schema=sub_schema,
                )
            )
        return schema


def _allows_null(prop: dict[str, Any]) -> bool:
    return prop.get("type") == "null" or any(
        option.get("type") == "null" for option in prop.get("anyOf", [])
    )


def _optional_may_be_null(schema: dict[str, Any]) -> None:
    """The contract reads an optional key given as null as its default, as if left out; the
    document says so, so that a client sending null is not told it broke the schema."""
    required = set(schema.get("required", []))
    for name, prop in schema.get("properties", {}).items():
        if name in required or _allows_null(prop):
            continue
        default = prop.pop("default", None)
        title, description = prop.pop("title", None), prop.pop("description", None)
        wrapped: dict[str, Any] = {"anyOf": [prop, {"type": "null"}]}
        for key, value in (("default", default), ("title", title), ("description", description)):
            if value is not None:
                wrapped[key] = value
        schema["properties"][name] = wrapped
