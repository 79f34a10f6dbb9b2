"""Form fields and choices the estimate, workload and simulation forms share."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from catalog.models import Accelerator

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


class AcceleratorChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Accelerator) -> str:
        return f"{obj.vendor} {obj.name}"
