"""Role checks for the pages that write."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext as _

from accounts.roles import Role, has_any_role, has_role
from accounts.services import user_team


def require_role(user, role: str = Role.PLANNER) -> None:
    if not has_role(user, role):  # admins hold every role
        raise PermissionDenied


def require_any_role(user, roles) -> None:
    if not has_any_role(user, roles):
        raise PermissionDenied


def writer_team(user, role: str = Role.PLANNER):
    """The team a user writes for with `role`; an account outside every team owns nothing."""
    require_role(user, role)
    team = user_team(user)
    if team is None:
        raise PermissionDenied(_("Your account belongs to no team."))
    return team
