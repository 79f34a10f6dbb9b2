"""A model by its Hugging Face config.json on a form: a box to paste the file into and a field
to upload it, shared by the estimate page and the workload forms. Either becomes the contract's
`"model": {"hf_config": {...}}`, in place of the model chosen from the catalog."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from config.json_input import JsonInputError, loads
from planner.web.fields import model_field

# The largest config.json the forms read; published ones are a few KiB.
MAX_CONFIG_BYTES = 256 * 1024
HF_CONFIG_FIELDS = ("hf_config", "hf_config_file")


def config_from_text(text: str) -> dict[str, Any]:
    """The JSON object in `text`, or a `ValidationError` saying what is wrong with it."""
    try:
        value = loads(text)
    except JsonInputError as exc:
        raise forms.ValidationError(str(exc)) from None
    except json.JSONDecodeError as exc:
        raise forms.ValidationError(
            gettext("Not valid JSON: %(problem)s at line %(line)d, column %(column)d.")
            % {"problem": exc.msg, "line": exc.lineno, "column": exc.colno}
        ) from None
    if not isinstance(value, dict):
        raise forms.ValidationError(gettext("A config.json holds one JSON object { ... }."))
    return value


class HfConfigField(forms.CharField):
    """The pasted config.json, cleaned to its object (None when left blank)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            label=_("Or paste its Hugging Face config.json"),
            required=False,
            max_length=MAX_CONFIG_BYTES,
            strip=True,
            widget=forms.Textarea(
                attrs={"rows": 4, "spellcheck": "false", "placeholder": '{"model_type": ...}'}
            ),
            help_text=_(
                "Any model on the Hub: its layers, widths, heads and experts are read from the "
                "file, and its parameters counted. When given, it replaces the model chosen "
                "above."
            ),
            **kwargs,
        )

    def clean(self, value: Any) -> dict[str, Any] | None:
        text = super().clean(value)
        return config_from_text(text) if text else None


class HfConfigFileField(forms.FileField):
    """An uploaded config.json, cleaned to its object and its text (None when none was sent)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            label=_("Or upload it"),
            required=False,
            widget=forms.ClearableFileInput(attrs={"accept": ".json,application/json"}),
            **kwargs,
        )

    def clean(self, data: Any, initial: Any = None) -> tuple[dict[str, Any], str] | None:
        upload = super().clean(data, initial)
        if not upload:
            return None
        if upload.size > MAX_CONFIG_BYTES:
            raise forms.ValidationError(
                gettext("A config.json is at most %(kib)d KiB; this file is larger.")
                % {"kib": MAX_CONFIG_BYTES // 1024}
            )
        try:
            text = upload.read().decode("utf-8")
        except UnicodeDecodeError:
            raise forms.ValidationError(gettext("The file is not UTF-8 text.")) from None
        return config_from_text(text), text


def keep_upload_in_box(form: forms.Form) -> None:
    """After an upload, the box shows the file, so the next question (a GET, or the form
    posted again) carries it without a second upload."""
    upload = form.cleaned_data.get("hf_config_file")
    if upload:
        form.data = form.data.copy()
        form.data["hf_config"] = upload[1]
        form.cleaned_data["hf_config"] = upload[0]


class ModelAskedForm(forms.Form):
    """A question about one model: chosen from the catalog, or its config.json pasted or
    uploaded (`model_given` says which the contract gets); an upload stays in the box."""

    model = model_field()
    hf_config = HfConfigField()
    # Read only from a POSTed upload form; a GET form has no file to send.
    hf_config_file = HfConfigFileField()

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        keep_upload_in_box(self)
        return cleaned


def add_config_error(form: forms.Form, path: str, message: str) -> bool:
    """Put a contract error about the config beside the paste box, naming the key
    (`hidden_size: is required`); False when the error is about something else."""
    where = config_error_field(path)
    if where is None:
        return False
    field, key = where
    form.add_error(field, f"{key}: {message}" if key else message)
    return True


def model_given(cleaned: dict[str, Any]) -> str | dict[str, Any]:
    """The contract's model: the uploaded or pasted config.json when there is one (the upload
    first), else the catalog model's slug."""
    upload = cleaned.get("hf_config_file")
    if upload:
        return {"hf_config": upload[0]}
    if cleaned.get("hf_config"):
        return {"hf_config": cleaned["hf_config"]}
    return str(cleaned["model"].slug)


def config_error_field(path: str) -> tuple[str, str] | None:
    """Where a contract error about the config goes on the form, and the key it names:
    `model.hf_config.hidden_size` -> ("hf_config", "hidden_size")."""
    prefix = "model.hf_config"
    if path == prefix:
        return "hf_config", ""
    if path.startswith(prefix + "."):
        return "hf_config", path.removeprefix(prefix + ".")
    return None
