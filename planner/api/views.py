"""What the planner's API views share: rows read through a feature's visibility selector, and
the team a write is for."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import Model, QuerySet
from django.utils.translation import gettext as _
from rest_framework import generics
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import Serializer

from accounts.permissions import PlannerWrites
from accounts.services import user_team
from config.json_input import StrictJSONParser
from planner.api.responses import created


# Rows come from the feature's selector `visible_to(user)`, so a row the user may not see is a
# 404, never a hint that it exists. Any signed-in role reads; planners and admins write. (No
# docstring: the OpenAPI document would show it as the description of every view using this.)
class VisibleRowsMixin:
    permission_classes = [PlannerWrites]
    visible_to: Callable[[Any], QuerySet]  # a selector, set as staticmethod(...)

    def get_queryset(self: Any) -> QuerySet:
        return self.visible_to(self.request.user)


# A feature's list of visible rows that a JSON POST adds to; a hostile body is a 400 naming
# where it goes wrong. `make(request)` calls the feature's service and gives the row and the
# status to answer with; the answer is the row as `answer_serializer` writes it, at
# `detail_view` (planner.api.responses.created). No docstring, as above.
class VisibleListCreateView(VisibleRowsMixin, generics.ListCreateAPIView):
    parser_classes = [StrictJSONParser]
    answer_serializer: type[Serializer]
    detail_view: str  # the route of one row, e.g. "plan-detail"

    def make(self, request: Request) -> tuple[Model, int]:
        raise NotImplementedError

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        context = self.get_serializer_context()
        return created(
            lambda: self.make(request),
            serialize=lambda row: self.answer_serializer(row, context=context).data,
            detail_view=self.detail_view,
        )


def writer_team(request: Any) -> Any:
    """The team a written row will belong to: always the writer's, never taken from the body;
    400 naming `team` for an account outside every team."""
    team = user_team(request.user)
    if team is None:
        raise ValidationError({"team": [_("Your account belongs to no team; ask an admin.")]})
    return team
