"""Reads of simulations, always through what a user may see."""

from __future__ import annotations

from django.db.models import QuerySet

from planner.models import Simulation
from planner.visibility import team_rows


def simulation_visible_to(user) -> QuerySet[Simulation]:
    """The simulations of the user's team; another team's run is a 404 to read and to cancel.
    Admins see every run, those with no team (started from the command line) included: they
    keep the queue running."""
    return team_rows(Simulation.objects.all(), user)
