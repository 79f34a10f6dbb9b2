"""The plan pages' questions: workloads (three kinds of job), the plan form whose cleaned data
becomes the recommend question of `planner.plans`, and the five weights that re-order a plan.

Validation beyond the field types is the engine's: a workload is checked by the same
contract the plan runs, and a plan's `RequestError` is put beside the field it names
(`PlanForm.error_field`), so the pages, the API and `manage.py recommend` answer the same
errors. Workload writes are in planner/workloads.py; reads in planner/selectors.py."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from catalog.choices import Currency, SoftwareStack
from catalog.models import Accelerator, ModelArchitecture
from planner.engine import RequestError
from planner.engine.scoring import DIMENSIONS
from planner.messages.render import error_line, error_message
from planner.models import Plan, Site, Workload
from planner.plans.figures import DIMENSION_LABELS
from planner.plans.question import workload_request
from planner.plans.selectors import WEIGHT_SCALE, default_weights
from planner.sites.selectors import site_visible_to
from planner.web.fields import DEFAULT_MODEL, METHOD_CHOICES
from planner.web.widgets import decimal_text, number_input

# The top-level keys of the recommend question a workload carries besides "workload" itself.
TARGET_KEYS = ("deadline_days", "target_rps", "ttft_ms", "tpot_ms")
# The engine's own bound on accelerators per plan (planner.plans: count.max).
MAX_COUNT = 100_000

TRAINING_PRECISION_CHOICES = [("bf16", "BF16"), ("fp16", "FP16"), ("fp8", "FP8"), ("fp32", "FP32")]
SERVING_PRECISION_CHOICES = [
    ("bf16", "BF16"),
    ("fp16", "FP16"),
    ("fp8", "FP8"),
    ("int8", _("INT8 quantised")),
    ("int4", _("INT4 weights (AWQ/GPTQ)")),
]


# --- workloads -------------------------------------------------------------------------------


class WorkloadForm(forms.Form):
    """A job to plan for. Subclasses add their fields, `TASK`, `FIELDSETS` and `_question()`;
    `spec()` is what the Workload row keeps."""

    TASK: str
    KIND_LABEL: Any
    FIELDSETS: tuple
    # Engine error paths that name a form field under another name.
    ERROR_FIELDS: dict[str, str] = {}

    name = forms.CharField(label=_("Name"), max_length=200)
    model = forms.ModelChoiceField(
        label=_("Model"),
        queryset=ModelArchitecture.objects.order_by("family", "params"),
        to_field_name="slug",
        empty_label=None,
        initial=DEFAULT_MODEL,
    )

    def __init__(self, *args, team=None, instance: Workload | None = None, **kwargs):
        self.team, self.instance = team, instance
        if instance is not None and "initial" not in kwargs:
            kwargs["initial"] = self.initial_from(instance)
        super().__init__(*args, **kwargs)

    @classmethod
    def initial_from(cls, workload: Workload) -> dict[str, Any]:
        """The form's fields from a saved spec (the inverse of `spec()`)."""
        question = workload.spec.get("workload", {})
        values = {"name": workload.name, **question, **question.get("inference", {})}
        values.update({key: workload.spec[key] for key in TARGET_KEYS if key in workload.spec})
        return {
            # 2e12 stays 2e+12 in a text box, not 2000000000000.0.
            name: f"{values[name]:g}" if isinstance(values[name], float) else values[name]
            for name in cls.base_fields
            if name in values
        }

    def fieldsets(self):
        return [(legend, [self[name] for name in names]) for legend, names in self.FIELDSETS]

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        taken = Workload.objects.filter(team=self.team, name=name)
        if self.instance is not None:
            taken = taken.exclude(pk=self.instance.pk)
        if self.team is not None and taken.exists():
            raise forms.ValidationError(gettext("Your team already has a workload of this name."))
        return name

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if self.errors:
            return cleaned
        try:
            # The plan picks accelerator and count per candidate; the contract checks the rest
            # now, as the plan will.
            workload_request(data=self._question())
        except RequestError as exc:
            field = self.ERROR_FIELDS.get(exc.field, exc.field.removeprefix("inference."))
            self.add_error(
                field if field in self.fields else None,
                error_message(exc) if field in self.fields else error_line(exc),
            )
        return cleaned

    def _question(self) -> dict[str, Any]:
        raise NotImplementedError

    def spec(self) -> dict[str, Any]:
        """`{"workload": the estimate question, **the targets}`: a fragment of the recommend
        question, with only the values given so the engine's defaults apply to the rest."""
        spec: dict[str, Any] = {"workload": self._question()}
        spec.update(
            {
                key: self.cleaned_data[key]
                for key in TARGET_KEYS
                if self.cleaned_data.get(key) is not None
            }
        )
        return spec

    @staticmethod
    def _filled(question: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
        question.update({key: value for key, value in values.items() if value is not None})
        return question


class TrainWorkloadForm(WorkloadForm):
    """Pre-training: so many tokens, by a deadline."""

    TASK = "train"
    KIND_LABEL = _("Pre-train")

    tokens = forms.FloatField(
        label=_("Training tokens"),
        min_value=1,
        required=False,
        widget=decimal_text("2e12"),
        help_text=_("Default: 20 per parameter (Chinchilla)."),
    )
    seq_len = forms.IntegerField(label=_("Sequence length (tokens)"), min_value=1, initial=4096)
    global_batch = forms.IntegerField(
        label=_("Global batch (sequences)"),
        min_value=1,
        required=False,
        widget=number_input(1024),
    )
    precision = forms.ChoiceField(
        label=_("Precision"), choices=TRAINING_PRECISION_CHOICES, initial="bf16"
    )
    deadline_days = forms.FloatField(
        label=_("Deadline (days)"),
        min_value=0.001,
        required=False,
        help_text=_("Builds that take longer are rejected."),
    )

    FIELDSETS = (
        (_("Workload"), ("name", "model", "precision")),
        (_("Training"), ("tokens", "seq_len", "global_batch", "deadline_days")),
    )

    def _question(self) -> dict[str, Any]:
        data = self.cleaned_data
        return self._filled(
            {
                "task": self.TASK,
                "model": data["model"].slug,
                "precision": data["precision"],
                "seq_len": data["seq_len"],
            },
            {"tokens": data["tokens"], "global_batch": data["global_batch"]},
        )


class FinetuneWorkloadForm(WorkloadForm):
    """Fine-tuning: full, LoRA or QLoRA, over so many tokens, by a deadline."""

    TASK = "finetune"
    KIND_LABEL = _("Fine-tune")

    method = forms.ChoiceField(label=_("Method"), choices=METHOD_CHOICES, initial="lora")
    tokens = forms.FloatField(
        label=_("Training tokens"),
        min_value=1,
        required=False,
        widget=decimal_text("1e8"),
        help_text=_("Default: 100 million."),
    )
    deadline_days = forms.FloatField(
        label=_("Deadline (days)"),
        min_value=0.001,
        required=False,
        help_text=_("Builds that take longer are rejected."),
    )

    FIELDSETS = (
        (_("Workload"), ("name", "model", "method")),
        (_("Training"), ("tokens", "deadline_days")),
    )

    def _question(self) -> dict[str, Any]:
        data = self.cleaned_data
        return self._filled(
            {"task": self.TASK, "model": data["model"].slug, "method": data["method"]},
            {"tokens": data["tokens"]},
        )


class ServeWorkloadForm(WorkloadForm):
    """Serving: a request rate to sustain within latency targets."""

    TASK = "inference"
    KIND_LABEL = _("Serve")

    precision = forms.ChoiceField(
        label=_("Precision or quantisation"), choices=SERVING_PRECISION_CHOICES, initial="bf16"
    )
    target_rps = forms.FloatField(
        label=_("Requests per second"),
        min_value=0.001,
        widget=decimal_text("20"),
        help_text=_("Builds that serve fewer are rejected."),
    )
    prompt_len = forms.IntegerField(label=_("Prompt length (tokens)"), min_value=1, initial=512)
    output_len = forms.IntegerField(label=_("Output length (tokens)"), min_value=1, initial=128)
    batch = forms.IntegerField(
        label=_("Concurrent requests per replica"),
        min_value=1,
        required=False,
        widget=number_input(1),
        help_text=_("The batch each replica decodes at once."),
    )
    ttft_ms = forms.FloatField(
        label=_("Time to first token target, TTFT p99 (ms)"),
        min_value=0.001,
        required=False,
        widget=decimal_text("500"),
    )
    tpot_ms = forms.FloatField(
        label=_("Time per output token target, TPOT p99 (ms)"),
        min_value=0.001,
        required=False,
        widget=decimal_text("50"),
    )

    FIELDSETS = (
        (_("Workload"), ("name", "model", "precision")),
        (_("Load"), ("target_rps", "prompt_len", "output_len", "batch")),
        (_("Service level"), ("ttft_ms", "tpot_ms")),
    )

    def _question(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "task": self.TASK,
            "model": data["model"].slug,
            "precision": data["precision"],
            "inference": self._filled(
                {"prompt_len": data["prompt_len"], "output_len": data["output_len"]},
                {"batch": data["batch"]},
            ),
        }


WORKLOAD_FORMS: dict[str, type[WorkloadForm]] = {
    "train": TrainWorkloadForm,
    "finetune": FinetuneWorkloadForm,
    "serve": ServeWorkloadForm,
}
FORM_FOR_TASK = {form.TASK: form for form in WORKLOAD_FORMS.values()}


def workload_form_class(workload: Workload) -> type[WorkloadForm]:
    return FORM_FOR_TASK.get(workload.task, TrainWorkloadForm)


# --- the plan question -----------------------------------------------------------------------


class AcceleratorsField(forms.ModelMultipleChoiceField):
    def label_from_instance(self, obj: Accelerator) -> str:
        return f"{obj.vendor} {obj.name}"


class PlanForm(forms.Form):
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
    capex = forms.FloatField(
        label=_("Capex budget"),
        min_value=0,
        required=False,
        widget=decimal_text("5e6"),
        help_text=_("Purchase price of servers and accelerators, in the currency below."),
    )
    tco = forms.FloatField(
        label=_("Total cost of ownership budget"),
        min_value=0,
        required=False,
        widget=decimal_text("8e6"),
        help_text=_("Capex plus energy over the years of ownership."),
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
    rent_per_gpu_hour = forms.FloatField(
        label=_("Cloud price per GPU-hour"),
        min_value=0,
        required=False,
        widget=decimal_text("2.5"),
        help_text=_("Optional, in the currency above: shows when buying beats renting."),
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

    def fieldsets(self):
        return [(legend, [self[name] for name in names]) for legend, names in self.FIELDSETS]

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


class RangeInput(forms.NumberInput):
    input_type = "range"


class WeightsForm(forms.Form):
    """The five weights, 0-100 each; a zero leaves its dimension out. Bound only when the query
    string carries a weight, so a plain link shows the plan's defaults."""

    def __init__(self, query=None, *, plan: Plan):
        self.defaults = default_weights(plan=plan)
        bound = query is not None and any(name in query for name in DIMENSIONS)
        super().__init__(query if bound else None, initial=self.defaults)
        for name in DIMENSIONS:
            self.fields[name] = forms.FloatField(
                label=DIMENSION_LABELS[name],
                min_value=0,
                max_value=WEIGHT_SCALE,
                required=False,
                widget=RangeInput(attrs={"min": 0, "max": WEIGHT_SCALE, "step": 1}),
            )

    def weights(self) -> dict[str, float]:
        """The weights to rank by: those given, the defaults for the rest (and for all of them
        while the form has errors)."""
        if not self.is_bound or not self.is_valid():
            return dict(self.defaults)
        return {
            name: self.defaults[name] if value is None else value
            for name, value in self.cleaned_data.items()
        }

    def values(self) -> list[dict[str, Any]]:
        """Each slider with the value it shows, its label and errors."""
        current = self.weights()
        return [
            {"field": self[name], "value": current[name], "label": DIMENSION_LABELS[name]}
            for name in DIMENSIONS
        ]
