"""Serializers every planner API shares: JSON bodies held to the types the schema states, and
the bodies of history, conflict and precondition answers."""

from collections.abc import Mapping

from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers
from rest_framework.exceptions import PermissionDenied

from planner.api.responses import AnyJsonField


def _json_types(field: serializers.Field) -> tuple[type, ...] | None:
    """The JSON types the schema gives `field`'s values (decimals are strings there)."""
    if isinstance(field, serializers.BooleanField):
        return (bool,)
    if isinstance(field, serializers.IntegerField | serializers.PrimaryKeyRelatedField):
        return (int,)
    if isinstance(field, serializers.FloatField):
        return (int, float)
    if isinstance(
        field, serializers.DecimalField | serializers.CharField | serializers.ChoiceField
    ):
        return (str,)
    if isinstance(field, serializers.ManyRelatedField):
        return (list,)
    return None


class JsonTypesMixin:
    """A JSON body must give each value the type the schema states. DRF alone would read 0 as
    the text "0" and "4" as the number 4; a client with that bug hears it as a 400 naming the
    field instead. Form bodies carry only text, so they are left to the fields."""

    def to_internal_value(self, data):
        request = self.context.get("request")
        if (
            request is not None
            and isinstance(data, Mapping)
            and request.content_type.startswith("application/json")
        ):
            errors = {}
            for name, field in self.fields.items():
                value = data.get(name)
                types = _json_types(field)
                if field.read_only or value is None or types is None:
                    continue
                # bool is an int in Python, never a number in JSON.
                if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
                    errors[name] = [_("Expected a JSON %(type)s.") % {"type": _json_name(types)}]
            if errors:
                raise serializers.ValidationError(errors)
        return super().to_internal_value(data)


class ParentRowMixin:
    """A record's link to the row it lives in (its site, rack group or rack): offered among the
    rows the user may see, so another team's private one "does not exist" (a 400, never a hint
    that it does), and refused with a 403 where the user may read the parent but not change
    it. A serializer names the field (`parent_field`), says which rows the user sees
    (`parent_choices`) and may change (`parent_editable`) and what a read-only one is told
    (`parent_read_only`), and checks with `validate_<field> = ParentRowMixin.check_parent`."""

    parent_field: str

    def parent_choices(self, user) -> QuerySet:
        raise NotImplementedError

    def parent_editable(self, user, parent) -> bool:
        raise NotImplementedError

    def parent_read_only(self, parent) -> str:
        raise NotImplementedError

    def get_fields(self):
        fields = super().get_fields()  # type: ignore[misc]
        request = self.context.get("request")  # type: ignore[attr-defined]
        if request is not None:
            fields[self.parent_field].queryset = self.parent_choices(request.user)
        return fields

    def check_parent(self, parent):
        if not self.parent_editable(self.context["request"].user, parent):  # type: ignore[attr-defined]
            raise PermissionDenied(self.parent_read_only(parent))
        return parent


def catalog_slug_field(queryset: QuerySet, help_text: str, *, many: bool = False):
    """An optional link to catalog rows by their slugs: one, or null for none; with `many`, a
    list, empty for none."""
    if many:
        return serializers.SlugRelatedField(
            many=True, slug_field="slug", queryset=queryset, required=False, help_text=help_text
        )
    return serializers.SlugRelatedField(
        slug_field="slug", queryset=queryset, allow_null=True, required=False, help_text=help_text
    )


def _json_name(types: tuple[type, ...]) -> str:
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "array"}[
        types[-1]
    ]


class HistoryChangeSerializer(serializers.Serializer):
    field = serializers.CharField()
    old = AnyJsonField(help_text="Value before the change")
    new = AnyJsonField(help_text="Value after the change")


class HistoryEntrySerializer(serializers.Serializer):
    who = serializers.CharField(
        allow_null=True, help_text="Username; null for changes made outside a request"
    )
    when = serializers.DateTimeField()
    kind = serializers.ChoiceField(["created", "changed", "deleted"])
    changes = HistoryChangeSerializer(many=True, help_text="Empty for the first version")


class ConflictSerializer(serializers.Serializer):
    """`{"field": "name", "detail": "..."}`: another row already holds this value."""

    field = serializers.CharField(
        allow_null=True,
        help_text="The field whose value is already taken; null when other rows still use this one",
    )
    detail = serializers.CharField()


class PreconditionFailedSerializer(serializers.Serializer):
    """412: the row changed (or went) since the client read it; nothing was written."""

    detail = serializers.CharField()
    current_version = serializers.IntegerField(
        allow_null=True, help_text="The row's version now; null when it was deleted"
    )
    current_etag = serializers.CharField(
        allow_null=True,
        help_text="The ETag to send in If-Match after reading the row again; null when deleted",
    )
