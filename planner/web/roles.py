"""Role checks for the pages that write."""

from __future__ import annotations

from collections.abc import Iterable

from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext as _

from accounts.roles import Role, has_any_role, has_role
from accounts.services import user_team

# Who may make, rank and re-rank plans: planners, and facility people fitting plans into the
# racks they keep (admins hold every role).
PLAN_MAKERS = (Role.PLANNER, Role.FACILITY)


def require_role(user, role: str = Role.PLANNER) -> None:
    if not has_role(user, role):  # admins hold every role
        raise PermissionDenied


def require_any_role(user, roles: Iterable[str]) -> None:
    if not has_any_role(user, roles):
        raise PermissionDenied


def writer_team(user, role: str | tuple[str, ...] = Role.PLANNER):
    """The team a user writes for with `role` (or any of several); an account outside every
    team owns nothing."""
    require_any_role(user, (role,) if isinstance(role, str) else role)
    team = user_team(user)
    if team is None:
        raise PermissionDenied(_("Your account belongs to no team."))
    return team
