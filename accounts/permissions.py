"""DRF permissions by role: reading needs a role that reads, writing one that writes."""

from rest_framework.permissions import SAFE_METHODS, BasePermission

from accounts.roles import Role, has_any_role, has_role


class RolePermission(BasePermission):
    read_role = Role.VIEWER
    write_role = Role.ADMIN

    def has_permission(self, request, view) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        role = self.read_role if request.method in SAFE_METHODS else self.write_role
        return has_role(request.user, role)


class FacilityWrites(RolePermission):
    write_role = Role.FACILITY


class PlannerWrites(RolePermission):
    write_role = Role.PLANNER


class PlanWrites(RolePermission):
    """Plans are made by planners, and by facility people fitting them into their racks."""

    def has_permission(self, request, view) -> bool:
        if request.method in SAFE_METHODS or not (request.user and request.user.is_authenticated):
            return super().has_permission(request, view)
        return has_any_role(request.user, (Role.PLANNER, Role.FACILITY))


class AnyRole(RolePermission):
    """Computations that change nothing (POST included): any signed-in role may run them."""

    write_role = Role.VIEWER
