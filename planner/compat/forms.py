"""The compatibility page's GET form: the same keys as the API question, flat."""

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from catalog.models import Accelerator


def accelerator_choices() -> list[tuple[str, str]]:
    return [("", "—"), *Accelerator.objects.order_by("vendor", "name").values_list("slug", "name")]


def release_field(label: Any, help_text: Any, *, max_length: int = 20) -> forms.CharField:
    """An installed release as its tool prints it (a driver, a toolkit, a framework); blank
    when unknown, and the rules it touches say so."""
    return forms.CharField(label=label, required=False, max_length=max_length, help_text=help_text)


class CompatForm(forms.Form):
    accelerator = forms.ChoiceField(label=_("Accelerator"), required=False)
    driver = release_field(_("Driver"), _("e.g. 550.54.15 or 525"))
    torch = release_field(_("PyTorch"), _("e.g. 2.5.1+cu124 or 2.5"), max_length=40)
    cuda = release_field(_("CUDA"), _("the build's CUDA, e.g. 12.4"), max_length=10)
    framework = forms.ChoiceField(
        label=_("Framework"),
        required=False,
        choices=[
            ("", "—"),
            ("vllm", "vLLM"),
            ("tensorrt-llm", "TensorRT-LLM"),
            ("mindspore", "MindSpore"),
        ],
        help_text=_("a serving framework or MindSpore, with its version below"),
    )
    framework_version = release_field(_("Framework version"), _("e.g. 0.8.5"))
    rocm = release_field(_("ROCm"), _("installed release, e.g. 6.2"), max_length=10)
    amdgpu = release_field(_("ROCm kernel driver (amdgpu)"), _("e.g. 6.3"), max_length=10)
    cann = release_field(_("CANN"), _("e.g. 8.0.RC3"))
    npu_driver = release_field(_("Ascend driver (HDK)"), _("as npu-smi reports it, e.g. 24.1.RC3"))
    nvidia_smi = forms.CharField(
        label=_("nvidia-smi output"),
        required=False,
        max_length=20000,
        widget=forms.Textarea(attrs={"rows": 8, "cols": 90}),
        help_text=_("paste the whole table"),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["accelerator"].choices = accelerator_choices()

    def question(self) -> dict:
        """The API question from the cleaned fields (blank ones left out); the framework and
        its version become the question's `framework` object."""
        question = {k: v for k, v in self.cleaned_data.items() if v}
        name = question.pop("framework", None)
        version = question.pop("framework_version", None)
        if name or version:
            question["framework"] = {"name": name or "", "version": version or ""}
        return question
