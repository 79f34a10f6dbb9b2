"""One FilterSet per catalog model, shared by the HTML lists and the API."""

import django_filters
from django import forms
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from catalog.choices import (
    AcceleratorKind,
    Cooling,
    FabricKind,
    FormFactor,
    Precision,
    Segment,
    SoftwareStack,
    Topology,
)
from catalog.models import Accelerator, Fabric, ModelArchitecture, ServerPlatform

# The widest integer a PostgreSQL bigint holds: a filter value past it is refused with 400
# naming the filter, never sent to the database.
BIGINT_MAX = 2**63 - 1


class WholeNumberFilter(django_filters.NumberFilter):
    """A NumberFilter for an integer column: whole numbers within bigint only."""

    field_class = forms.IntegerField

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("min_value", -BIGINT_MAX)
        kwargs.setdefault("max_value", BIGINT_MAX)
        super().__init__(*args, **kwargs)


# What the API sends (true, false) and what the pages' yes/no/any select sends (unknown, or
# nothing).
BOOLEAN_WORDS = {"true", "false", "unknown", ""}


class _TrueFalseSelect(forms.NullBooleanSelect):
    """The yes/no/any select, passing on a value it does not know so the field can refuse it
    (Django's would read it as "any" and filter nothing)."""

    def value_from_datadict(self, data, files, name):
        raw = data.get(name)
        if isinstance(raw, str) and raw.lower() not in BOOLEAN_WORDS:
            return raw
        return super().value_from_datadict(data, files, name)


class _TrueFalseField(forms.NullBooleanField):
    widget = _TrueFalseSelect

    def to_python(self, value):
        if isinstance(value, str) and value.lower() not in BOOLEAN_WORDS:
            raise forms.ValidationError(_("Enter true or false."), code="invalid")
        return super().to_python(value)


class TrueFalseFilter(django_filters.BooleanFilter):
    """A BooleanFilter that answers 400 for anything but true, false and blank."""

    field_class = _TrueFalseField


def _vendor_choices():
    return [
        (v, v)
        for v in Accelerator.objects.order_by("vendor").values_list("vendor", flat=True).distinct()
    ]


class AcceleratorFilterSet(django_filters.FilterSet):
    q = django_filters.CharFilter(method="filter_q", label=_("Search"))
    vendor = django_filters.MultipleChoiceFilter(
        widget=forms.CheckboxSelectMultiple, choices=_vendor_choices, label=_("Vendor")
    )
    kind = django_filters.MultipleChoiceFilter(
        widget=forms.CheckboxSelectMultiple, choices=AcceleratorKind.choices, label=_("Kind")
    )
    segment = django_filters.MultipleChoiceFilter(
        widget=forms.CheckboxSelectMultiple, choices=Segment.choices, label=_("Segment")
    )
    memory_gib_min = django_filters.NumberFilter(
        field_name="memory_gib", lookup_expr="gte", label=_("Memory at least (GiB)")
    )
    precision = django_filters.ChoiceFilter(
        choices=Precision.choices, method="filter_precision", label=_("Supports precision")
    )
    form_factor = django_filters.MultipleChoiceFilter(
        widget=forms.CheckboxSelectMultiple, choices=FormFactor.choices, label=_("Form factor")
    )
    cooling = django_filters.MultipleChoiceFilter(
        widget=forms.CheckboxSelectMultiple, choices=Cooling.choices, label=_("Cooling")
    )
    software_stack = django_filters.MultipleChoiceFilter(
        widget=forms.CheckboxSelectMultiple,
        choices=SoftwareStack.choices,
        label=_("Software stack"),
    )
    ordering = django_filters.OrderingFilter(
        fields=(
            ("name", "name"),
            ("vendor", "vendor"),
            ("memory_gib", "memory_gib"),
            ("memory_bw_gb_s", "memory_bw_gb_s"),
            ("bf16_tflops", "bf16_tflops"),
            ("fp8_tflops", "fp8_tflops"),
            ("board_power_w", "board_power_w"),
            ("launch_year", "launch_year"),
        ),
        field_labels={
            "name": _("Name"),
            "vendor": _("Vendor"),
            "memory_gib": _("Memory"),
            "memory_bw_gb_s": _("Memory bandwidth"),
            "bf16_tflops": _("BF16 TFLOP/s"),
            "fp8_tflops": _("FP8 TFLOP/s"),
            "board_power_w": _("Board power"),
            "launch_year": _("Launch year"),
        },
        label=_("Sort by"),
    )

    class Meta:
        model = Accelerator
        fields = []

    def filter_q(self, queryset, name, value):
        return queryset.filter(
            Q(name__icontains=value) | Q(slug__icontains=value) | Q(architecture__icontains=value)
        )

    def filter_precision(self, queryset, name, value):
        return queryset.filter(**{f"{value}_tflops__isnull": False})


class ServerPlatformFilterSet(django_filters.FilterSet):
    q = django_filters.CharFilter(method="filter_q", label=_("Search"))
    vendor = django_filters.CharFilter(lookup_expr="iexact", label=_("Vendor"))
    topology = django_filters.MultipleChoiceFilter(
        widget=forms.CheckboxSelectMultiple, choices=Topology.choices, label=_("Topology")
    )
    form_factor = django_filters.ChoiceFilter(
        choices=FormFactor.choices, method="filter_form_factor", label=_("Takes form factor")
    )
    max_power_kw_max = django_filters.NumberFilter(
        field_name="max_power_kw", lookup_expr="lte", label=_("Power at most (kW)")
    )
    ordering = django_filters.OrderingFilter(
        fields=("name", "vendor", "max_power_kw", "rack_units", "accelerator_slots"),
        label=_("Sort by"),
    )

    class Meta:
        model = ServerPlatform
        fields = ["cooling"]

    def filter_q(self, queryset, name, value):
        return queryset.filter(Q(name__icontains=value) | Q(slug__icontains=value))

    def filter_form_factor(self, queryset, name, value):
        # JSON containment is not portable to SQLite; the list is short, so filter in Python.
        pks = [s.pk for s in queryset if value in s.form_factors]
        return queryset.filter(pk__in=pks)


class FabricFilterSet(django_filters.FilterSet):
    kind = django_filters.MultipleChoiceFilter(
        widget=forms.CheckboxSelectMultiple, choices=FabricKind.choices, label=_("Kind")
    )
    port_gbps_min = django_filters.NumberFilter(
        field_name="port_gbps", lookup_expr="gte", label=_("Port speed at least (Gbit/s)")
    )
    ordering = django_filters.OrderingFilter(
        fields=("name", "port_gbps", "latency_us"), label=_("Sort by")
    )

    class Meta:
        model = Fabric
        fields = []


class ModelArchitectureFilterSet(django_filters.FilterSet):
    q = django_filters.CharFilter(method="filter_q", label=_("Search"))
    family = django_filters.CharFilter(lookup_expr="iexact", label=_("Family"))
    moe = TrueFalseFilter(method="filter_moe", label=_("Mixture of experts"))
    params_min = WholeNumberFilter(
        field_name="params", lookup_expr="gte", label=_("Parameters at least")
    )
    params_max = WholeNumberFilter(
        field_name="params", lookup_expr="lte", label=_("Parameters at most")
    )
    ordering = django_filters.OrderingFilter(
        fields=("name", "family", "params", "layers", "context"), label=_("Sort by")
    )

    class Meta:
        model = ModelArchitecture
        fields = []

    def filter_q(self, queryset, name, value):
        return queryset.filter(Q(name__icontains=value) | Q(slug__icontains=value))

    def filter_moe(self, queryset, name, value):
        return queryset.filter(experts__gt=1) if value else queryset.filter(experts=1)
