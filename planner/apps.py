from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PlannerConfig(AppConfig):
    name = "planner"
    verbose_name = _("Planner")

    def ready(self) -> None:
        # Registers the OpenAPI extension that documents the contract's pydantic models.
        from planner.api import schema  # noqa: F401
