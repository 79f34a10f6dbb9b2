"""The probe report upload."""

from __future__ import annotations

from typing import Any

from django import forms
from django.template.defaultfilters import filesizeformat
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from config.json_input import JsonInputError, loads

# A probe report is a few kilobytes (tests/fixtures/h200-probe.json is 4 KB); anything near
# this is not one, and is refused before it is read.
MAX_UPLOAD_BYTES = 2 * 1024 * 1024


class CalibrationUploadForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("Probe report (JSON)"),
        help_text=gettext_lazy("The file flopfit-probe wrote; at most 2 MB."),
        widget=forms.ClearableFileInput(attrs={"accept": "application/json,.json"}),
    )
    name = forms.CharField(
        label=gettext_lazy("Name"),
        max_length=200,
        required=False,
        help_text=gettext_lazy("Optional; by default the device and the probe's date."),
    )

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        if upload.size > MAX_UPLOAD_BYTES:  # known from the upload itself, before any read
            raise forms.ValidationError(
                _("The file is %(size)s; a probe report is at most %(limit)s.")
                % {"size": filesizeformat(upload.size), "limit": filesizeformat(MAX_UPLOAD_BYTES)}
            )
        try:
            return loads(upload.read())
        except ValueError as exc:
            message = _("This is not JSON; upload the report flopfit-probe wrote.")
            if isinstance(exc, JsonInputError):  # say which value, and what is wrong with it
                message = f"{message} ({exc})"
            raise forms.ValidationError(message) from None
