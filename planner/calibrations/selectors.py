"""Reads of calibration profiles, always through what a user may see."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from accounts.services import user_team
from planner.models import CalibrationProfile


def calibration_visible_to(user) -> QuerySet[CalibrationProfile]:
    """The user's team's profiles and the shared ones (no team: stored by `manage.py
    calibrate`); another team's profile is a 404, whatever the role."""
    team = user_team(user)
    shared = Q(team__isnull=True)
    rows = CalibrationProfile.objects.filter(shared | Q(team=team) if team else shared)
    return rows.select_related("accelerator")
