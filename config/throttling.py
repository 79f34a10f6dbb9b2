"""A tighter rate for the writes that cost seconds of CPU each (estimates, plans, simulation
starts), on top of the per-user and per-address rates every request counts against."""

from rest_framework.permissions import SAFE_METHODS
from rest_framework.throttling import ScopedRateThrottle


class ComputeRateThrottle(ScopedRateThrottle):
    """ScopedRateThrottle for the unsafe methods of views that set `throttle_scope`: reading a
    plan list is cheap, ranking a new plan is not, and both live on one view."""

    def allow_request(self, request, view) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return super().allow_request(request, view)
