"""Form fields and choices the estimate, workload, plan and simulation forms share."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from catalog.models import Accelerator, Fabric, ModelArchitecture
from planner.engine.batch import FINETUNING
from planner.engine.specs import FabricSpec
from planner.engine.stack import INFERENCE_FRAMEWORKS, PARAM_DTYPES, TRAINING_FRAMEWORKS
from planner.web.widgets import decimal_text

# The contract's own example question (docs and `manage.py estimate`), so the first page shows a
# sensible pair; when the catalog lacks either slug the select falls back to its first entry.
DEFAULT_MODEL = "meta-llama-3-8b"
DEFAULT_ACCELERATOR = "nvidia-h100-sxm5-80gb"
DEFAULT_COUNT = 8
DEFAULT_SEQ_LEN = 2048

TASK_CHOICES = [
    ("train", _("Pre-train")),
    ("finetune", _("Fine-tune")),
    ("inference", _("Inference")),
]
PRECISION_CHOICES = [
    ("bf16", "BF16"),
    ("fp16", "FP16"),
    ("fp8", "FP8"),
    ("fp32", "FP32"),
    ("int8", _("INT8 (inference)")),
    ("int4", _("INT4 weights (inference)")),
]
METHOD_CHOICES = [
    ("full", _("Full")),
    ("lora", _("LoRA (fine-tune)")),
    ("qlora", _("QLoRA (fine-tune)")),
]

# The software stacks the engine knows (planner.engine.stack), by the names people use.
FRAMEWORK_LABELS = {
    "megatron": "Megatron-LM / NeMo",
    "deepspeed": "DeepSpeed",
    "fsdp": "PyTorch FSDP",
    "torchtitan": "torchtitan",
    "hf": _("Hugging Face (eager PyTorch)"),
    "vllm": "vLLM",
    "sglang": "SGLang",
    "trt-llm": "TensorRT-LLM",
    "llama.cpp": "llama.cpp",
}
PARAM_DTYPE_LABELS = {
    "fp32": _("FP32 (mixed precision under autocast)"),
    "bf16": "BF16",
    "fp16": "FP16",
}
DEFAULT_STACK = _("Default: chosen from the task and scale (the answer says which and why)")


def framework_field(jobs: tuple[str, ...] = ("training", "inference")) -> forms.ChoiceField:
    """The software stack, blank for the engine's default; `jobs` picks the training
    frameworks, the serving ones, or both in two groups."""
    groups = {
        "training": (_("Training"), TRAINING_FRAMEWORKS),
        "inference": (_("Serving"), INFERENCE_FRAMEWORKS),
    }
    chosen = [groups[job] for job in jobs]
    options: list[Any] = [("", DEFAULT_STACK)]
    if len(chosen) == 1:
        options += [(name, FRAMEWORK_LABELS[name]) for name in chosen[0][1]]
    else:
        options += [
            (label, [(name, FRAMEWORK_LABELS[name]) for name in names]) for label, names in chosen
        ]
    return forms.ChoiceField(
        label=_("Framework"),
        choices=options,
        required=False,
        help_text=_("Sets kernel efficiency, launch overhead and memory layout."),
    )


def compile_field() -> forms.BooleanField:
    return forms.BooleanField(
        label=_("torch.compile"),
        required=False,
        help_text=_("PyTorch stacks: fused kernels, fewer launches."),
    )


def param_dtype_field() -> forms.ChoiceField:
    return forms.ChoiceField(
        label=_("Parameter storage"),
        choices=[("", DEFAULT_STACK), *((name, PARAM_DTYPE_LABELS[name]) for name in PARAM_DTYPES)],
        required=False,
        help_text=_("How trained parameters are stored; FP32 is the usual autocast recipe."),
    )


def stack_values(data: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """The stack fields of a form's cleaned data as the contract takes them: a blank choice or
    an unticked compile box leaves the key out, so the engine's default applies."""
    values = {name: data.get(name) or None for name in names}
    return {name: value for name, value in values.items() if value is not None}


class AcceleratorChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Accelerator) -> str:
        return f"{obj.vendor} {obj.name}"


def model_field(*, optional: bool = False) -> forms.ModelChoiceField:
    """The model architecture asked about, by slug; the contract's example is the first shown,
    unless the field is `optional` (then it starts empty)."""
    return forms.ModelChoiceField(
        label=_("Model"),
        queryset=ModelArchitecture.objects.order_by("family", "params"),
        to_field_name="slug",
        **_choice_options(optional, DEFAULT_MODEL),
    )


def accelerator_field(
    *, optional: bool = False, by_slug: bool = True, help_text: Any = ""
) -> AcceleratorChoiceField:
    """The accelerator asked about, labelled with its vendor, by slug (or, for a row's own
    link, by id); the contract's example is the first shown unless the field is `optional`."""
    return AcceleratorChoiceField(
        label=_("Accelerator"),
        queryset=Accelerator.objects.order_by("vendor", "name"),
        to_field_name="slug" if by_slug else None,
        help_text=help_text,
        **_choice_options(optional, DEFAULT_ACCELERATOR),
    )


def _choice_options(optional: bool, default: str) -> dict[str, Any]:
    """A required choice shows `default` first and no empty entry; an optional one starts empty."""
    return {"required": False} if optional else {"empty_label": None, "initial": default}


def fabric_field() -> forms.ModelChoiceField:
    """A scale-out fabric by slug, or none for the engine's default: FabricSpec's one 200 Gbit/s
    port per device."""
    return forms.ModelChoiceField(
        label=_("Scale-out fabric"),
        queryset=Fabric.objects.order_by("name"),
        to_field_name="slug",
        required=False,
        # GB/s x 8 = Gbit/s
        empty_label=format_lazy(
            _("Default ({gbit_s:g} Gbit/s per device)"), gbit_s=FabricSpec.per_gpu_gb_s * 8
        ),
    )


def figure_field(
    label: Any,
    *,
    placeholder: str,
    min_value: float | None = None,
    max_value: float | None = None,
    required: bool = False,
    initial: float | None = None,
    help_text: Any = "",
) -> forms.FloatField:
    """A figure typed as text, so 2e-5 and 1e12 are written as usual. Optional unless `required`:
    left blank, the question leaves it out and the engine's default applies."""
    return forms.FloatField(
        label=label,
        min_value=min_value,
        max_value=max_value,
        required=required,
        initial=initial,
        widget=decimal_text(placeholder),
        help_text=help_text,
    )


def global_batch_field() -> forms.IntegerField:
    """Left blank, the engine chooses the batch with the layout and says why; a placeholder
    would suggest a default that is not the one used."""
    return forms.IntegerField(
        label=_("Global batch (sequences)"),
        min_value=1,
        required=False,
        help_text=format_lazy(
            _(
                "Blank: chosen with the layout, by the model's size (pre-training) or "
                "{low}-{high} sequences (fine-tuning); the answer says which and why."
            ),
            low=FINETUNING.low,
            high=FINETUNING.high,
        ),
    )
