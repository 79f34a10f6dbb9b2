"""One FilterSet per list of the racks feature, shared by the pages and the API."""

import django_filters
from django.utils.translation import gettext_lazy as _

from catalog.filtersets import TrueFalseFilter, WholeNumberFilter
from planner.models import Equipment, PowerFeed, Rack


class RackFilterSet(django_filters.FilterSet):
    site = WholeNumberFilter(field_name="rack_group__site_id", label=_("Site"))
    rack_group = WholeNumberFilter(field_name="rack_group_id", label=_("Rack group"))
    q = django_filters.CharFilter(field_name="name", lookup_expr="icontains", label=_("Search"))
    ordering = django_filters.OrderingFilter(fields=("name", "position"), label=_("Sort by"))

    class Meta:
        model = Rack
        fields = []


class KeptInRackFilterSet(django_filters.FilterSet):
    """What a list of things kept in racks (equipment, power feeds) is filtered by first: the
    site and the rack they stand in."""

    site = WholeNumberFilter(field_name="rack__rack_group__site_id", label=_("Site"))
    rack = WholeNumberFilter(field_name="rack_id", label=_("Rack"))


class EquipmentFilterSet(KeptInRackFilterSet):
    installed = TrueFalseFilter(
        field_name="removed_at", lookup_expr="isnull", label=_("Still installed")
    )

    class Meta:
        model = Equipment
        fields = []


class PowerFeedFilterSet(KeptInRackFilterSet):
    class Meta:
        model = PowerFeed
        fields = []
