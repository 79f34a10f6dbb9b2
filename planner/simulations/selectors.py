"""Reads of simulations, always through what a user may see."""

from __future__ import annotations

from django.db.models import QuerySet

from accounts.roles import Role, has_role
from accounts.services import user_team
from planner.models import Simulation


def simulation_visible_to(user) -> QuerySet[Simulation]:
    """The simulations of the user's team; another team's run is a 404 to read and to cancel.
    Admins see every run, those with no team (started from the command line) included: they
    keep the queue running."""
    if has_role(user, Role.ADMIN):
        return Simulation.objects.all()
    team = user_team(user)
    return Simulation.objects.filter(team=team) if team else Simulation.objects.none()
