"""One FilterSet per planner model, shared by the HTML lists and the API."""

import django_filters
from django import forms
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from catalog.choices import Currency
from catalog.filtersets import TrueFalseFilter, WholeNumberFilter
from planner.choices import Feeds, RackCooling, Visibility
from planner.models import RackGroup, Site


class SiteFilterSet(django_filters.FilterSet):
    q = django_filters.CharFilter(method="filter_q", label=_("Search"))
    currency = django_filters.ChoiceFilter(choices=Currency.choices, label=_("Currency"))
    visibility = django_filters.ChoiceFilter(choices=Visibility.choices, label=_("Visibility"))
    ordering = django_filters.OrderingFilter(
        fields=("name", "pue", "electricity_price_per_kwh", "updated_at"), label=_("Sort by")
    )

    class Meta:
        model = Site
        fields = []

    def filter_q(self, queryset, name, value):
        return queryset.filter(Q(name__icontains=value) | Q(location__icontains=value))


class RackGroupFilterSet(django_filters.FilterSet):
    site = WholeNumberFilter(field_name="site_id", label=_("Site"))
    cooling = django_filters.MultipleChoiceFilter(
        choices=RackCooling.choices, widget=forms.CheckboxSelectMultiple, label=_("Cooling")
    )
    feeds = django_filters.ChoiceFilter(choices=Feeds.choices, label=_("Feeds"))
    power_kw_min = django_filters.NumberFilter(
        field_name="power_kw", lookup_expr="gte", label=_("Power per rack at least (kW)")
    )
    liquid_loops = TrueFalseFilter(label=_("Liquid loops"))
    ordering = django_filters.OrderingFilter(
        fields=("name", "count", "power_kw", "cooling_kw", "units", "max_kg"), label=_("Sort by")
    )

    class Meta:
        model = RackGroup
        fields = []
