"""The price list's filters, shared by the page and the API (`/api/v1/prices/?age=stale`)."""

import django_filters
from django import forms
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from catalog.choices import Currency
from planner.choices import PriceItem, PriceKind, RentTerms
from planner.models import Price
from planner.prices.book import STALE_AFTER

AGE_CHOICES = [
    ("stale", _("Older than a year")),
    ("expired", _("Past its validity")),
    ("current", _("Current (under a year old, still valid)")),
]
OWNER_CHOICES = [("team", _("Team prices")), ("reference", _("Reference list"))]
STATUS_CHOICES = [("retired", _("Retired only")), ("all", _("In use and retired"))]


class PriceFilterSet(django_filters.FilterSet):
    q = django_filters.CharFilter(method="filter_q", label=_("Search"))
    kind = django_filters.ChoiceFilter(choices=PriceKind.choices, label=_("Kind"))
    item_kind = django_filters.MultipleChoiceFilter(
        choices=PriceItem.choices, widget=forms.CheckboxSelectMultiple, label=_("Item kind")
    )
    item = django_filters.CharFilter(method="filter_item", label=_("Item (name or slug)"))
    provider = django_filters.CharFilter(lookup_expr="icontains", label=_("Provider"))
    terms = django_filters.MultipleChoiceFilter(
        choices=RentTerms.choices, widget=forms.CheckboxSelectMultiple, label=_("Terms")
    )
    currency = django_filters.ChoiceFilter(choices=Currency.choices, label=_("Currency"))
    age = django_filters.ChoiceFilter(choices=AGE_CHOICES, method="filter_age", label=_("Age"))
    owner = django_filters.ChoiceFilter(
        choices=OWNER_CHOICES, method="filter_owner", label=_("Whose")
    )
    status = django_filters.ChoiceFilter(
        choices=STATUS_CHOICES,
        method="filter_status",
        empty_label=_("In use"),
        label=_("Status"),
    )
    ordering = django_filters.OrderingFilter(
        fields=("price_date", "amount", "valid_until", "provider", "item_kind", "updated_at"),
        field_labels={
            "price_date": _("Price date"),
            "amount": _("Amount"),
            "valid_until": _("Valid until"),
            "provider": _("Provider"),
            "item_kind": _("Item kind"),
            "updated_at": _("Updated"),
        },
        label=_("Sort by"),
    )

    class Meta:
        model = Price
        fields = []

    def filter_queryset(self, queryset):
        # Retired prices stay out of the list unless the status filter asks for them.
        if not self.form.cleaned_data.get("status"):
            queryset = queryset.filter(retired_at__isnull=True)
        return super().filter_queryset(queryset)

    def filter_q(self, queryset, name, value):
        return self.filter_item(queryset, name, value) | queryset.filter(
            Q(provider__icontains=value) | Q(source__icontains=value) | Q(notes__icontains=value)
        )

    def filter_item(self, queryset, name, value):
        return queryset.filter(
            Q(accelerator__slug__icontains=value)
            | Q(accelerator__name__icontains=value)
            | Q(server__slug__icontains=value)
            | Q(server__name__icontains=value)
            | Q(fabric__slug__icontains=value)
            | Q(fabric__name__icontains=value)
            | Q(item_name__icontains=value)
        )

    def filter_age(self, queryset, name, value):
        today = timezone.localdate()
        old = Q(price_date__lt=today - STALE_AFTER)
        expired = Q(valid_until__lt=today)
        if value == "stale":
            return queryset.filter(old)
        if value == "expired":
            return queryset.filter(expired)
        return queryset.exclude(old).exclude(expired)

    def filter_owner(self, queryset, name, value):
        return queryset.filter(team__isnull=value == "reference")

    def filter_status(self, queryset, name, value):
        return queryset.filter(retired_at__isnull=False) if value == "retired" else queryset
