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
        """The API question from the cleaned fields (blank ones left out)."""
        return {k: v for k, v in self.cleaned_data.items() if v}
