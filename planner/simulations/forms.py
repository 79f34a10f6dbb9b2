"""The simulation pages' questions: two forms whose cleaned data becomes the simulation JSON of
`planner.engine.simulate.question`, and the FilterSet the HTML list and the API share.

Validation beyond the field types is the engine's: the view passes the JSON to
`simulation_start` and puts the `RequestError` it may raise beside the field it names
(`error_field`), so the form, the API and `manage.py simulate` answer the same errors."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from planner.choices import SimulationKind
from planner.engine.simulate.question import MAX_REQUESTS, MAX_TRIALS
from planner.engine.specs import InferenceSpec, ReliabilitySpec
from planner.web.fields import (
    DEFAULT_SEQ_LEN,
    METHOD_CHOICES,
    PRECISION_CHOICES,
    accelerator_field,
    fabric_field,
    figure_field,
    model_field,
)
from planner.web.forms import FieldsetsMixin, filled
from planner.web.widgets import number_input

# The engine's defaults when a key is left out (planner/engine/simulate/request.py).
DEFAULT_TRIALS = 10_000
DEFAULT_REQUESTS = 20_000
# Fewer draws than this say nothing about a tail (the contract's lower bound on both).
MIN_DRAWS = 10
SECONDS_PER_MINUTE = 60

LENGTH_KIND_CHOICES = [
    ("fixed", _("Fixed")),
    ("uniform", _("Uniform between lowest and highest")),
    ("lognormal", _("Log-normal (mean and sigma of the log)")),
]
ARRIVAL_CHOICES = [
    ("poisson", _("Poisson (steady)")),
    ("bursty", _("Bursty (alternating busy and quiet spells)")),
]


def draws_field(label: Any, *, most: int, default: int, help_text: Any = "") -> forms.IntegerField:
    """How many random draws a simulation makes (campaigns, requests), within the contract's
    bounds (at least MIN_DRAWS); blank, the engine draws its `default`, shown as placeholder."""
    return forms.IntegerField(
        label=label,
        min_value=MIN_DRAWS,
        max_value=most,
        required=False,
        widget=number_input(default),
        help_text=help_text,
    )


class SimulationForm(FieldsetsMixin, forms.Form):
    """The hardware both kinds share. Subclasses add their fields, `FIELDSETS`, `ERROR_FIELDS`
    and `question()`."""

    kind: str
    TASK: str
    # Engine error paths that name a form field under another name; the rest go above the form.
    ERROR_FIELDS: dict[str, str] = {}

    model = model_field()
    accelerator = accelerator_field()
    count = forms.IntegerField(label=_("Devices"), min_value=1, initial=8)
    precision = forms.ChoiceField(label=_("Precision"), choices=PRECISION_CHOICES, initial="bf16")

    @classmethod
    def initial_from(cls, query: Any) -> dict[str, Any]:
        """A query string's values of the form's own fields, to prefill it ("simulate this
        build" links here); the form validates them only when submitted."""
        return {name: query[name] for name in cls.base_fields if query.get(name, "") != ""}

    def error_field(self, path: str) -> str | None:
        """The form field an engine error path names, or None for an error about the whole."""
        name = self.ERROR_FIELDS.get(path)
        if name is None and path.startswith("estimate."):
            name = path.removeprefix("estimate.")
        if name is None:
            name = path.replace(".", "_")
        return name if name in self.fields else None

    def _estimate(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "task": self.TASK,
            "model": data["model"].slug,
            "accelerator": data["accelerator"].slug,
            "count": data["count"],
            "precision": data["precision"],
        }


class TrainingSimulationForm(SimulationForm):
    """A training campaign: the estimate's throughput, then failures, checkpoints and restarts
    drawn over many trials."""

    kind = SimulationKind.TRAINING
    TASK = "train"

    task = forms.ChoiceField(
        label=_("Task"),
        choices=[("train", _("Pre-train")), ("finetune", _("Fine-tune"))],
        initial="train",
        required=False,
    )
    method = forms.ChoiceField(
        label=_("Method"),
        choices=METHOD_CHOICES,
        initial="full",
        required=False,
        help_text=_("LoRA and QLoRA fine-tune only."),
    )
    seq_len = forms.IntegerField(
        label=_("Sequence length (tokens)"),
        min_value=1,
        required=False,
        widget=number_input(DEFAULT_SEQ_LEN),
    )
    fabric = fabric_field()
    tokens = figure_field(
        _("Training tokens"),
        min_value=1,
        placeholder="1e12",
        help_text=_("Default: 20 per parameter."),
    )
    failures_per_gpu_hour = figure_field(
        _("Failures per GPU-hour"),
        min_value=0,
        max_value=1,
        placeholder=f"{ReliabilitySpec.failures_per_gpu_hour:g}",
        help_text=_("Llama 3 saw about 2e-5 on 16,384 H100s."),
    )
    checkpoint_gb_s = figure_field(
        _("Checkpoint write bandwidth (GB/s)"),
        min_value=0.001,
        placeholder="",
        help_text=_(
            "Aggregate, to checkpoint storage. Default: about 1 GB/s per server (Llama 3 wrote "
            "at 2 TB/s from 2,048 servers)."
        ),
    )
    restart_min = figure_field(
        _("Restart after a failure (minutes)"),
        min_value=0,
        placeholder=f"{ReliabilitySpec.restart_s / SECONDS_PER_MINUTE:g}",
    )
    trials = draws_field(
        _("Trials"),
        most=MAX_TRIALS,
        default=DEFAULT_TRIALS,
        help_text=_("Campaigns drawn; more trials, smoother tails."),
    )

    FIELDSETS = (
        (_("Workload"), ("task", "model", "method", "tokens", "seq_len", "precision")),
        (_("Hardware"), ("accelerator", "count", "fabric")),
        (
            _("Reliability"),
            ("failures_per_gpu_hour", "checkpoint_gb_s", "restart_min", "trials"),
        ),
    )
    ERROR_FIELDS = {"restart_s": "restart_min"}

    def question(self) -> dict[str, Any]:
        data = self.cleaned_data
        estimate = filled(
            self._estimate(),
            {
                "task": data["task"] or None,
                "method": None if data["method"] in ("", "full") else data["method"],
                "seq_len": data["seq_len"],
                "fabric": data["fabric"].slug if data["fabric"] else None,
                "tokens": data["tokens"],
            },
        )
        restart_min = data["restart_min"]
        return filled(
            {"kind": self.kind, "estimate": estimate},
            {
                "failures_per_gpu_hour": data["failures_per_gpu_hour"],
                "checkpoint_gb_s": data["checkpoint_gb_s"],
                "restart_s": None if restart_min is None else restart_min * SECONDS_PER_MINUTE,
                "trials": data["trials"],
            },
        )


def _length_kind(what: str) -> forms.ChoiceField:
    return forms.ChoiceField(
        label=format_lazy(_("{what}: distribution"), what=what),
        choices=LENGTH_KIND_CHOICES,
        initial="fixed",
    )


def _length_value(what: str, default: int) -> forms.IntegerField:
    return forms.IntegerField(
        label=format_lazy(_("{what}: length or mean (tokens)"), what=what),
        min_value=1,
        required=False,
        widget=number_input(default),
        help_text=_("Fixed: the length. Log-normal: the mean."),
    )


def _length_bound(what: str, *, highest: bool) -> forms.IntegerField:
    return forms.IntegerField(
        label=format_lazy(
            _("{what}: highest (tokens)") if highest else _("{what}: lowest (tokens)"), what=what
        ),
        min_value=1,
        required=False,
        widget=number_input(),
        help_text=_("Uniform; log-normal: optional cap.") if highest else _("Uniform only."),
    )


def _length_sigma(what: str) -> forms.FloatField:
    return figure_field(
        format_lazy(_("{what}: sigma of the log"), what=what),
        min_value=0.01,
        max_value=5,
        placeholder="1.0",
        help_text=_("Log-normal only."),
    )


class ServingSimulationForm(SimulationForm):
    """Serving under load: requests arrive, are batched continuously within the KV-cache
    budget, and each step takes the estimate's time."""

    kind = SimulationKind.SERVING
    TASK = "inference"

    count = forms.IntegerField(
        label=_("Devices"),
        min_value=1,
        initial=1,
        help_text=_("Split into replicas of the estimate's tensor-parallel size."),
    )
    rate_per_s = figure_field(
        _("Arrival rate (requests/s)"),
        min_value=0.001,
        max_value=1e6,
        required=True,
        initial=5,
        placeholder="5",
    )
    arrival = forms.ChoiceField(label=_("Arrivals"), choices=ARRIVAL_CHOICES, initial="poisson")
    prompt_kind = _length_kind(_("Prompt"))
    prompt_value = _length_value(_("Prompt"), InferenceSpec.prompt_len)
    prompt_lo = _length_bound(_("Prompt"), highest=False)
    prompt_hi = _length_bound(_("Prompt"), highest=True)
    prompt_sigma = _length_sigma(_("Prompt"))
    output_kind = _length_kind(_("Output"))
    output_value = _length_value(_("Output"), InferenceSpec.output_len)
    output_lo = _length_bound(_("Output"), highest=False)
    output_hi = _length_bound(_("Output"), highest=True)
    output_sigma = _length_sigma(_("Output"))
    ttft_slo_ms = figure_field(
        _("Time to first token SLO, TTFT (ms)"), min_value=0.001, placeholder="500"
    )
    tpot_slo_ms = figure_field(
        _("Time per output token SLO, TPOT (ms)"), min_value=0.001, placeholder="50"
    )
    requests = draws_field(_("Requests simulated"), most=MAX_REQUESTS, default=DEFAULT_REQUESTS)
    target_rate = figure_field(
        _("Find replicas for this rate (requests/s)"),
        min_value=0.001,
        placeholder="",
        help_text=_("Optional: the fewest replicas that meet the SLOs at this rate."),
    )

    FIELDSETS = (
        (_("Workload"), ("model", "precision")),
        (_("Hardware"), ("accelerator", "count")),
        (_("Load"), ("rate_per_s", "arrival", "requests")),
        (
            _("Prompt length"),
            ("prompt_kind", "prompt_value", "prompt_lo", "prompt_hi", "prompt_sigma"),
        ),
        (
            _("Output length"),
            ("output_kind", "output_value", "output_lo", "output_hi", "output_sigma"),
        ),
        (_("Service level"), ("ttft_slo_ms", "tpot_slo_ms", "target_rate")),
    )
    ERROR_FIELDS = {
        "prompt": "prompt_kind",
        "output": "output_kind",
        "prompt.mean": "prompt_value",
        "output.mean": "output_value",
        "search": "target_rate",
        "search.target_rate": "target_rate",
    }

    def _length(self, prefix: str) -> dict[str, Any] | None:
        """One length distribution as the engine reads it; None (the estimate's length) for a
        fixed one left blank. Parameters the kind does not use are left out."""
        data = self.cleaned_data
        kind = data[f"{prefix}_kind"]
        value = data[f"{prefix}_value"]
        if kind == "fixed":
            return None if value is None else {"kind": "fixed", "value": value}
        if kind == "uniform":
            keys = {"lo": data[f"{prefix}_lo"], "hi": data[f"{prefix}_hi"]}
        else:
            keys = {"mean": value, "sigma": data[f"{prefix}_sigma"], "hi": data[f"{prefix}_hi"]}
        return filled({"kind": kind}, keys)

    def question(self) -> dict[str, Any]:
        data = self.cleaned_data
        target_rate = data["target_rate"]
        return filled(
            {
                "kind": self.kind,
                "estimate": self._estimate(),
                "rate_per_s": data["rate_per_s"],
                "arrival": data["arrival"],
            },
            {
                "prompt": self._length("prompt"),
                "output": self._length("output"),
                "ttft_slo_ms": data["ttft_slo_ms"],
                "tpot_slo_ms": data["tpot_slo_ms"],
                "requests": data["requests"],
                "search": None if target_rate is None else {"target_rate": target_rate},
            },
        )


FORMS: dict[str, type[SimulationForm]] = {
    SimulationKind.TRAINING: TrainingSimulationForm,
    SimulationKind.SERVING: ServingSimulationForm,
}
