"""The simulations list's filters, shared by the page and the API."""

import django_filters
from django.utils.translation import gettext_lazy as _

from planner.choices import SimulationKind, SimulationStatus
from planner.models import Simulation


class SimulationFilterSet(django_filters.FilterSet):
    kind = django_filters.ChoiceFilter(choices=SimulationKind.choices, label=_("Kind"))
    status = django_filters.ChoiceFilter(choices=SimulationStatus.choices, label=_("Status"))

    class Meta:
        model = Simulation
        fields = []
