"""The workload forms: a job to plan for, in three kinds, checked by the contract the plan runs."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from planner.engine import RequestError
from planner.messages.render import error_line, error_message
from planner.models import Workload
from planner.plans.question import workload_request
from planner.web.fields import (
    METHOD_CHOICES,
    compile_field,
    figure_field,
    framework_field,
    global_batch_field,
    param_dtype_field,
    stack_values,
)
from planner.web.forms import FieldsetsMixin, filled
from planner.web.hf_config import ModelAskedForm, add_config_error, model_given
from planner.web.widgets import number_input

# The software stack a training workload names; serving names no parameter storage.
TRAINING_STACK = ("framework", "compile", "param_dtype")
SERVING_STACK = ("framework", "compile")
# The top-level keys of the recommend question a workload carries besides "workload" itself.
TARGET_KEYS = ("deadline_days", "target_rps", "ttft_ms", "tpot_ms")

TRAINING_PRECISION_CHOICES = [("bf16", "BF16"), ("fp16", "FP16"), ("fp8", "FP8"), ("fp32", "FP32")]
SERVING_PRECISION_CHOICES = [
    ("bf16", "BF16"),
    ("fp16", "FP16"),
    ("fp8", "FP8"),
    ("int8", _("INT8 quantised")),
    ("int4", _("INT4 weights (AWQ/GPTQ)")),
]


def deadline_field() -> forms.FloatField:
    return forms.FloatField(
        label=_("Deadline (days)"),
        min_value=0.001,
        required=False,
        help_text=_("Builds that take longer are rejected."),
    )


class WorkloadForm(FieldsetsMixin, ModelAskedForm):
    """A job to plan for. Subclasses add their fields, `TASK`, `FIELDSETS` and `_question()`;
    `spec()` is what the Workload row keeps."""

    TASK: str
    KIND_LABEL: Any
    # Engine error paths that name a form field under another name.
    ERROR_FIELDS: dict[str, str] = {}

    name = forms.CharField(label=_("Name"), max_length=200)

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
        model = values.get("model")
        if isinstance(model, dict) and "hf_config" in model:
            values["hf_config"] = json.dumps(model["hf_config"], indent=2)
            del values["model"]
        return {
            # 2e12 stays 2e+12 in a text box, not 2000000000000.0.
            name: f"{values[name]:g}" if isinstance(values[name], float) else values[name]
            for name in cls.base_fields
            if name in values
        }

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
            if add_config_error(self, exc.field, error_message(exc)):
                return cleaned
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


class TrainingWorkloadForm(WorkloadForm):
    """What pre-training and fine-tuning both ask besides their tokens: a deadline and the
    training software stack (TRAINING_STACK)."""

    deadline_days = deadline_field()
    framework = framework_field(("training",))
    compile = compile_field()
    param_dtype = param_dtype_field()


class TrainWorkloadForm(TrainingWorkloadForm):
    """Pre-training: so many tokens, by a deadline."""

    TASK = "train"
    KIND_LABEL = _("Pre-train")

    tokens = figure_field(
        _("Training tokens"),
        min_value=1,
        placeholder="2e12",
        help_text=_("Default: 20 per parameter (Chinchilla)."),
    )
    seq_len = forms.IntegerField(label=_("Sequence length (tokens)"), min_value=1, initial=4096)
    global_batch = global_batch_field()
    precision = forms.ChoiceField(
        label=_("Precision"), choices=TRAINING_PRECISION_CHOICES, initial="bf16"
    )

    FIELDSETS = (
        (_("Workload"), ("name", "model", "hf_config", "hf_config_file", "precision")),
        (_("Training"), ("tokens", "seq_len", "global_batch", "deadline_days")),
        (_("Software stack"), TRAINING_STACK),
    )

    def _question(self) -> dict[str, Any]:
        data = self.cleaned_data
        return filled(
            {
                "task": self.TASK,
                "model": model_given(data),
                "precision": data["precision"],
                "seq_len": data["seq_len"],
            },
            {
                "tokens": data["tokens"],
                "global_batch": data["global_batch"],
                **stack_values(data, TRAINING_STACK),
            },
        )


class FinetuneWorkloadForm(TrainingWorkloadForm):
    """Fine-tuning: full, LoRA or QLoRA, over so many tokens, by a deadline."""

    TASK = "finetune"
    KIND_LABEL = _("Fine-tune")

    method = forms.ChoiceField(label=_("Method"), choices=METHOD_CHOICES, initial="lora")
    tokens = figure_field(
        _("Training tokens"), min_value=1, placeholder="1e8", help_text=_("Default: 100 million.")
    )

    FIELDSETS = (
        (_("Workload"), ("name", "model", "hf_config", "hf_config_file", "method")),
        (_("Training"), ("tokens", "deadline_days")),
        (_("Software stack"), TRAINING_STACK),
    )

    def _question(self) -> dict[str, Any]:
        data = self.cleaned_data
        return filled(
            {"task": self.TASK, "model": model_given(data), "method": data["method"]},
            {"tokens": data["tokens"], **stack_values(data, TRAINING_STACK)},
        )


class ServeWorkloadForm(WorkloadForm):
    """Serving: a request rate to sustain within latency targets."""

    TASK = "inference"
    KIND_LABEL = _("Serve")

    precision = forms.ChoiceField(
        label=_("Precision or quantisation"), choices=SERVING_PRECISION_CHOICES, initial="bf16"
    )
    target_rps = figure_field(
        _("Requests per second"),
        min_value=0.001,
        required=True,
        placeholder="20",
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
    ttft_ms = figure_field(
        _("Time to first token target, TTFT p99 (ms)"), min_value=0.001, placeholder="500"
    )
    tpot_ms = figure_field(
        _("Time per output token target, TPOT p99 (ms)"), min_value=0.001, placeholder="50"
    )
    framework = framework_field(("inference",))
    compile = compile_field()

    FIELDSETS = (
        (_("Workload"), ("name", "model", "hf_config", "hf_config_file", "precision")),
        (_("Load"), ("target_rps", "prompt_len", "output_len", "batch")),
        (_("Service level"), ("ttft_ms", "tpot_ms")),
        (_("Software stack"), SERVING_STACK),
    )

    def _question(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "task": self.TASK,
            "model": model_given(data),
            "precision": data["precision"],
            **stack_values(data, SERVING_STACK),
            "inference": filled(
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
