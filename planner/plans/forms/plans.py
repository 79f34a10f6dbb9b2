"""The plan form, whose cleaned data becomes the recommend question `plan_create` takes, and the
five weights that re-order a plan's ranking."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from catalog.choices import Currency, SoftwareStack
from catalog.models import Accelerator
from planner.engine.recommend import OBJECTIVES
from planner.engine.scoring import DIMENSIONS
from planner.models import Plan, Site, Workload
from planner.plans.builds import SWEEP_DEFAULT, SWEEP_MAX, SWEEP_MIN
from planner.plans.figures import DIMENSION_LABELS
from planner.plans.forms.workloads import TARGET_KEYS
from planner.plans.selectors import WEIGHT_SCALE, default_weights, plan_objective
from planner.sites.selectors import site_visible_to
from planner.web.fields import figure_field
from planner.web.forms import FieldsetsMixin
from planner.web.widgets import range_input

# The engine's own bound on accelerators per plan (planner.plans: count.max).
MAX_COUNT = 100_000


class AcceleratorsField(forms.ModelMultipleChoiceField):
    def label_from_instance(self, obj: Accelerator) -> str:
        return f"{obj.vendor} {obj.name}"


def amount_field(label: Any, placeholder: str, help_text: Any) -> forms.FloatField:
    """An optional amount of money in the plan's currency: never negative, typed as a figure
    (5e6 reads as it is written)."""
    return figure_field(label, min_value=0, placeholder=placeholder, help_text=help_text)


class PlanForm(FieldsetsMixin, forms.Form):
    """A purchase question: a saved workload, a site or none, a budget and the builds allowed.
    `question()` is the recommend question `plan_create` takes."""

    name = forms.CharField(
        label=_("Name"),
        max_length=200,
        required=False,
        help_text=_("Default: the workload's name."),
    )
    workload = forms.ModelChoiceField(label=_("Workload"), queryset=Workload.objects.none())
    site = forms.ModelChoiceField(
        label=_("Site"),
        queryset=Site.objects.none(),  # the sites the user may see, set in __init__
        required=False,
        empty_label=_("No site constraints"),
        help_text=_("Its racks bound power, cooling, space and weight; its price costs energy."),
    )
    capex = amount_field(
        _("Capex budget"),
        "5e6",
        _("Purchase price of servers and accelerators, in the currency below."),
    )
    tco = amount_field(
        _("Total cost of ownership budget"),
        "8e6",
        _("Capex plus energy over the years of ownership."),
    )
    currency = forms.ChoiceField(
        label=_("Currency"),
        choices=[("", _("The site's currency (USD without a site)")), *Currency.choices],
        required=False,
    )
    vendors = forms.MultipleChoiceField(
        label=_("Vendors allowed"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("None ticked: every vendor."),
    )
    stacks = forms.MultipleChoiceField(
        label=_("Software stacks allowed"),
        choices=SoftwareStack.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("None ticked: every stack."),
    )
    accelerators = AcceleratorsField(
        label=_("Only these accelerators"),
        queryset=Accelerator.objects.order_by("vendor", "name"),
        to_field_name="slug",
        required=False,
        widget=forms.SelectMultiple(attrs={"size": 8}),
        help_text=_("None selected: every accelerator the filters above allow."),
    )
    count_min = forms.IntegerField(
        label=_("Accelerators, at least"), min_value=1, max_value=MAX_COUNT, initial=8
    )
    count_max = forms.IntegerField(
        label=_("Accelerators, at most"), min_value=1, max_value=MAX_COUNT, initial=512
    )
    years = forms.FloatField(label=_("Years of ownership"), min_value=0.25, max_value=15, initial=4)
    rent_per_gpu_hour = amount_field(
        _("Cloud price per GPU-hour"),
        "2.5",
        _("Optional, in the currency above: shows when buying beats renting."),
    )

    FIELDSETS = (
        (_("The job"), ("workload", "name")),
        (_("Where"), ("site",)),
        (_("Budget"), ("capex", "tco", "currency", "years", "rent_per_gpu_hour")),
        (_("Builds allowed"), ("count_min", "count_max", "vendors", "stacks", "accelerators")),
    )
    # Engine error paths (planner.plans) that name a form field under another name.
    ERROR_FIELDS = {
        "budget.capex": "capex",
        "budget.tco": "tco",
        "budget.currency": "currency",
        "count.min": "count_min",
        "count.max": "count_max",
    }

    def __init__(self, *args, user, team, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["workload"].queryset = Workload.objects.filter(team=team).order_by("name")
        self.fields["site"].queryset = site_visible_to(user).order_by("name")
        vendors = Accelerator.objects.order_by("vendor").values_list("vendor", flat=True)
        self.fields["vendors"].choices = [(v, v) for v in dict.fromkeys(vendors)]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        low, high = cleaned.get("count_min"), cleaned.get("count_max")
        if low is not None and high is not None and high < low:
            self.add_error("count_max", gettext("Must be at least the lowest count."))
        return cleaned

    def error_field(self, path: str) -> str | None:
        """The form field an engine error path names, or None for an error about the whole."""
        name = self.ERROR_FIELDS.get(path)
        if name is None and (path.startswith("workload") or path in TARGET_KEYS):
            name = "workload"  # the saved workload's own question or targets
        if name is None and path.startswith("site"):
            name = "site"
        return name or (path if path in self.fields else None)

    def question(self) -> dict[str, Any]:
        data = self.cleaned_data
        workload: Workload = data["workload"]
        budget = {
            key: data[key]
            for key in ("capex", "tco", "currency")
            if data.get(key) not in (None, "")
        }
        question: dict[str, Any] = {
            "name": data["name"].strip() or workload.name,
            **workload.spec,
            "count": {"min": data["count_min"], "max": data["count_max"]},
            "years": data["years"],
        }
        if budget:
            question["budget"] = budget
        for key in ("vendors", "stacks"):
            if data[key]:
                question[key] = list(data[key])
        if data["accelerators"]:
            question["accelerators"] = [a.slug for a in data["accelerators"]]
        if data["rent_per_gpu_hour"] is not None:
            question["rent_per_gpu_hour"] = data["rent_per_gpu_hour"]
        return question


# --- weights ---------------------------------------------------------------------------------


OBJECTIVE_LABELS = {
    "cost": _("Lowest cost (TCOs first, then the rent of the job where nothing is priced to own)"),
    "capex": _("Lowest purchase price"),
    "rent": _("Lowest rent for the job"),
    "time": _("Shortest time"),
    "devices": _("Fewest devices"),
    "tokens_per_joule": _("Most tokens per joule"),
    "score": _("Highest score under the weights"),
}


class WeightsForm(forms.Form):
    """What orders the ranking: the objective, and the five weights, 0-100 each (a zero leaves
    its dimension out; they break ties, or rank outright under the score objective). Bound only
    when the query string carries one of them, so a plain link shows the plan's own order."""

    def __init__(self, query=None, *, plan: Plan):
        self.defaults = default_weights(plan=plan)
        self.default_objective = plan_objective(plan)
        names = (*DIMENSIONS, "objective")
        bound = query is not None and any(name in query for name in names)
        initial = {**self.defaults, "objective": self.default_objective}
        super().__init__(query if bound else None, initial=initial)
        self.fields["objective"] = forms.ChoiceField(
            label=_("Order by"),
            choices=[(key, OBJECTIVE_LABELS[key]) for key in OBJECTIVES],
            required=False,
        )
        for name in DIMENSIONS:
            self.fields[name] = forms.FloatField(
                label=DIMENSION_LABELS[name],
                min_value=0,
                max_value=WEIGHT_SCALE,
                required=False,
                widget=range_input(min=0, max=WEIGHT_SCALE, step=1),
            )

    def objective(self) -> str:
        """The objective asked for, else the plan's own."""
        if self.is_bound and self.is_valid() and self.cleaned_data.get("objective"):
            return str(self.cleaned_data["objective"])
        return self.default_objective

    def weights(self) -> dict[str, float]:
        """The weights to rank by: those given, the defaults for the rest (and for all of them
        while the form has errors)."""
        if not self.is_bound or not self.is_valid():
            return dict(self.defaults)
        return {
            name: self.defaults[name]
            if self.cleaned_data[name] is None
            else self.cleaned_data[name]
            for name in DIMENSIONS
        }

    def values(self) -> list[dict[str, Any]]:
        """Each slider with the value it shows, its label and errors."""
        current = self.weights()
        return [
            {"field": self[name], "value": current[name], "label": DIMENSION_LABELS[name]}
            for name in DIMENSIONS
        ]


class SweepForm(forms.Form):
    """How many of the plan's top builds to simulate side by side, under the order on the page
    (the objective and weights travel as hidden fields)."""

    top = forms.IntegerField(
        label=_("Builds to sweep"),
        min_value=SWEEP_MIN,
        max_value=SWEEP_MAX,
        initial=SWEEP_DEFAULT,
        help_text=_("The top builds under the order shown, simulated side by side."),
    )

    def __init__(self, data=None, *, plan: Plan):
        super().__init__(data, initial={"top": SWEEP_DEFAULT})
        self.order = WeightsForm(data, plan=plan)

    def weights(self) -> dict[str, float]:
        return self.order.weights()

    def objective(self) -> str:
        return self.order.objective()
