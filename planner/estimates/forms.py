"""The estimate page's question: a GET form whose cleaned data becomes the estimate contract."""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import QueryDict
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from planner.engine.contract.estimate import DEFAULT_FINETUNE_TOKENS, TOKENS_PER_PARAM
from planner.engine.specs import InferenceSpec
from planner.web.fields import (
    DEFAULT_COUNT,
    DEFAULT_SEQ_LEN,
    METHOD_CHOICES,
    PRECISION_CHOICES,
    TASK_CHOICES,
    accelerator_field,
    compile_field,
    fabric_field,
    figure_field,
    framework_field,
    global_batch_field,
    param_dtype_field,
    stack_values,
)
from planner.web.forms import FieldsetsMixin
from planner.web.hf_config import ModelAskedForm, model_given
from planner.web.widgets import number_input

RECOMPUTE_CHOICES = [
    ("", _("Searched")),
    ("none", _("None")),
    ("selective", _("Selective")),
    ("full", _("Full")),
]
ZERO_STAGE_CHOICES = [
    ("", _("Searched")),
    (0, _("0 (none)")),
    (1, _("1 (optimizer states)")),
    (2, _("2 (+ gradients)")),
    (3, _("3 (+ weights)")),
]

# Fields the engine reads under the contract's "inference" object.
INFERENCE_FIELDS = ("batch", "prompt_len", "output_len")
# The software stack: each left out of the contract when blank, so the engine's default applies.
STACK_FIELDS = ("framework", "compile", "param_dtype")
# Optional fields copied to the contract only when filled, so the engine's defaults apply.
OPTIONAL_TOP_LEVEL = ("per_node", "global_batch", "tokens", "recompute", "zero_stage")


class EstimateForm(FieldsetsMixin, ModelAskedForm):
    """One estimate question. Field names follow the contract's keys (inference ones flattened)."""

    task = forms.ChoiceField(label=_("Task"), choices=TASK_CHOICES, initial="train")
    accelerator = accelerator_field()
    count = forms.IntegerField(label=_("Devices"), min_value=1, initial=DEFAULT_COUNT)
    per_node = forms.IntegerField(
        label=_("Devices per server"),
        min_value=1,
        required=False,
        widget=number_input(_("up to 8")),
    )
    fabric = fabric_field()
    precision = forms.ChoiceField(label=_("Precision"), choices=PRECISION_CHOICES, initial="bf16")
    method = forms.ChoiceField(label=_("Method"), choices=METHOD_CHOICES, initial="full")
    seq_len = forms.IntegerField(
        label=_("Sequence length (tokens)"), min_value=1, initial=DEFAULT_SEQ_LEN
    )
    framework = framework_field()
    compile = compile_field()
    param_dtype = param_dtype_field()
    global_batch = global_batch_field()
    tokens = figure_field(
        _("Training tokens"),
        min_value=1,
        placeholder="1e12",
        help_text=format_lazy(
            _("Default: {per_param} per parameter pre-training, {finetune:,.0f} fine-tuning."),
            per_param=TOKENS_PER_PARAM,
            finetune=DEFAULT_FINETUNE_TOKENS,
        ),
    )
    recompute = forms.ChoiceField(
        label=_("Activation recompute"), choices=RECOMPUTE_CHOICES, required=False
    )
    zero_stage = forms.TypedChoiceField(
        label=_("ZeRO stage"),
        choices=ZERO_STAGE_CHOICES,
        coerce=int,
        empty_value=None,
        required=False,
    )
    batch = forms.IntegerField(
        label=_("Concurrent requests"),
        min_value=1,
        required=False,
        widget=number_input(InferenceSpec.batch),
    )
    prompt_len = forms.IntegerField(
        label=_("Prompt length (tokens)"),
        min_value=1,
        required=False,
        widget=number_input(InferenceSpec.prompt_len),
    )
    output_len = forms.IntegerField(
        label=_("Output length (tokens)"),
        min_value=1,
        required=False,
        widget=number_input(InferenceSpec.output_len),
    )

    FIELDSETS = (
        (_("Workload"), ("task", "model", "hf_config", "precision", "method", "seq_len")),
        (_("Hardware"), ("accelerator", "count", "per_node", "fabric")),
        (_("Software stack"), STACK_FIELDS),
        (_("Training"), ("global_batch", "tokens", "recompute", "zero_stage")),
        (_("Inference"), INFERENCE_FIELDS),
    )

    @classmethod
    def from_query(cls, query: QueryDict, files: Any = None) -> EstimateForm:
        """Bind to a query string (or the upload form's POST and its file); a key left out of
        it (a short bookmark) takes the initial value the empty page shows, while a key sent
        empty stays empty."""
        data = query.copy()
        for name, field in cls.base_fields.items():
            if name not in data and field.initial is not None:
                data[name] = str(field.initial)
        return cls(data, files)

    @classmethod
    def is_submitted(cls, query: QueryDict) -> bool:
        return any(name in query for name in cls.base_fields)

    def contract(self) -> dict[str, Any]:
        """The estimate contract's JSON question, leaving out what was not filled in."""
        data = self.cleaned_data
        question: dict[str, Any] = {
            "task": data["task"],
            "model": model_given(data),
            "accelerator": data["accelerator"].slug,
            "count": data["count"],
            "precision": data["precision"],
            "method": data["method"],
            "seq_len": data["seq_len"],
        }
        if data.get("fabric") is not None:
            question["fabric"] = data["fabric"].slug
        for name in OPTIONAL_TOP_LEVEL:
            if data.get(name) not in (None, ""):
                question[name] = data[name]
        question.update(stack_values(data, STACK_FIELDS))
        if data["task"] == "inference":
            inference = {
                name: data[name] for name in INFERENCE_FIELDS if data.get(name) is not None
            }
            if inference:
                question["inference"] = inference
        return question
