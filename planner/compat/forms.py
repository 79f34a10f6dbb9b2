"""The compatibility page's GET form: the same keys as the API question, flat."""

from django import forms
from django.utils.translation import gettext_lazy as _

from catalog.models import Accelerator


def accelerator_choices() -> list[tuple[str, str]]:
    return [("", "—"), *Accelerator.objects.order_by("vendor", "name").values_list("slug", "name")]


class CompatForm(forms.Form):
    accelerator = forms.ChoiceField(label=_("Accelerator"), required=False)
    driver = forms.CharField(
        label=_("Driver"), required=False, max_length=20, help_text=_("e.g. 550.54.15 or 525")
    )
    torch = forms.CharField(
        label=_("PyTorch"), required=False, max_length=40, help_text=_("e.g. 2.5.1+cu124 or 2.5")
    )
    cuda = forms.CharField(
        label=_("CUDA"), required=False, max_length=10, help_text=_("the build's CUDA, e.g. 12.4")
    )
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
    framework_version = forms.CharField(
        label=_("Framework version"), required=False, max_length=20, help_text=_("e.g. 0.8.5")
    )
    rocm = forms.CharField(
        label=_("ROCm"), required=False, max_length=10, help_text=_("installed release, e.g. 6.2")
    )
    amdgpu = forms.CharField(
        label=_("ROCm kernel driver (amdgpu)"),
        required=False,
        max_length=10,
        help_text=_("e.g. 6.3"),
    )
    cann = forms.CharField(
        label=_("CANN"), required=False, max_length=20, help_text=_("e.g. 8.0.RC3")
    )
    npu_driver = forms.CharField(
        label=_("Ascend driver (HDK)"),
        required=False,
        max_length=20,
        help_text=_("as npu-smi reports it, e.g. 24.1.RC3"),
    )
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
