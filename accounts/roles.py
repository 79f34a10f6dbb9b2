"""The four roles, as Django groups. Admins can do everything the others can."""

from django.db import models
from django.utils.translation import pgettext_lazy


class Role(models.TextChoices):
    VIEWER = "viewer", pgettext_lazy("role", "Viewer")  # reads everything their team may see
    PLANNER = (
        "planner",
        pgettext_lazy("role", "Planner"),
    )  # creates workloads, plans and simulations
    FACILITY = "facility", pgettext_lazy("role", "Facility")  # edits sites and rack groups
    ADMIN = "admin", pgettext_lazy("role", "Admin")


def roles_of(user) -> set[str]:
    if not getattr(user, "is_authenticated", False):
        return set()
    names = {g.name for g in user.groups.all()}
    if user.is_superuser or Role.ADMIN in names:
        return set(Role.values)
    if names & {Role.PLANNER, Role.FACILITY}:
        names.add(Role.VIEWER)
    return names & set(Role.values)


def has_role(user, role: str) -> bool:
    return role in roles_of(user)


def has_any_role(user, roles) -> bool:
    return bool(roles_of(user) & set(roles))
