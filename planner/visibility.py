"""Who reads and who changes a team's rows, for the features whose rows belong to a team: the
team's own rows, the shipped rows every team reads (no team), and admins, who see every row."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from accounts.roles import Role, has_role
from accounts.services import user_team


def team_rows(rows: QuerySet, user) -> QuerySet:
    """The rows of the user's team; admins see every row, an account outside every team none."""
    if has_role(user, Role.ADMIN):
        return rows
    team = user_team(user)
    return rows.filter(team=team) if team is not None else rows.none()


def team_and_shipped_rows(rows: QuerySet, user) -> QuerySet:
    """The shipped rows (no team), which everyone reads, and the user's team's own; admins see
    every row."""
    if has_role(user, Role.ADMIN):
        return rows
    team = user_team(user)
    if team is None:
        return rows.filter(team__isnull=True)
    return rows.filter(Q(team=team) | Q(team__isnull=True))


def team_rows_editable_by(rows: QuerySet, user, *, role: str = Role.PLANNER) -> QuerySet:
    """The rows a user may change: those of their team, given `role`; admins any of `rows`."""
    if has_role(user, Role.ADMIN):
        return rows
    team = user_team(user)
    if team is None or not has_role(user, role):
        return rows.none()
    return rows.filter(team=team)
