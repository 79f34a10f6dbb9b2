"""The fault guide's list, shared by the page and the API: search in both languages, category,
and whose entries (the guide's or the team's)."""

import django_filters
from django.utils.translation import gettext_lazy as _

from planner.choices import FaultCategory
from planner.faults.selectors import fault_search
from planner.models import FaultEntry

WHOSE = (("guide", _("The guide")), ("team", _("My team's")))


class FaultEntryFilterSet(django_filters.FilterSet):
    q = django_filters.CharFilter(
        method="filter_q", label=_("Search"), help_text=_("Words of a message, a symptom or a fix")
    )
    category = django_filters.ChoiceFilter(choices=FaultCategory.choices, label=_("Category"))
    whose = django_filters.ChoiceFilter(choices=WHOSE, method="filter_whose", label=_("Whose"))
    xid = django_filters.NumberFilter(method="filter_xid", label=_("Xid code"), min_value=1)

    class Meta:
        model = FaultEntry
        fields = []

    def filter_q(self, queryset, name, value):
        return fault_search(queryset, value)

    def filter_whose(self, queryset, name, value):
        return queryset.filter(team__isnull=value == "guide")

    def filter_xid(self, queryset, name, value):
        code = str(int(value))
        matching = [e.pk for e in queryset if code in e.xid_codes.split()]
        return queryset.filter(pk__in=matching)
