"""The NetBox import page's form: NetBox's files, and what NetBox does not keep."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.utils.translation import gettext_lazy as _

from catalog.choices import Currency
from planner.choices import RackCooling
from planner.models.sites import MAX_RACK_KG, MAX_RACK_KW
from planner.netbox.readers import NETBOX_MAX_BYTES
from planner.netbox.results import ImportOptions

# The files wait in the session between the preview and the import: keep them small.
PAGE_MAX_BYTES = 1024 * 1024


class _MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class _MultipleFileField(forms.FileField):
    """Several files in one field (Django's documented way of uploading several files)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", _MultipleFileInput(attrs={"accept": ".csv,.json,.yaml,.yml"}))
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        single = super().clean
        if isinstance(data, list | tuple):
            return [single(item, initial) for item in data]
        return [single(data, initial)]


def _kw(label):
    return forms.FloatField(
        label=label,
        required=False,
        validators=[MinValueValidator(0.1), MaxValueValidator(MAX_RACK_KW)],
    )


class NetboxImportForm(forms.Form):
    files = _MultipleFileField(
        label=_("NetBox files"),
        help_text=_(
            "CSV, YAML or JSON; choose several at once. At most 1 MiB in all, 2 MiB per file "
            "on the command line."
        ),
    )
    site = forms.CharField(
        label=_("Only the NetBox site"),
        required=False,
        max_length=120,
        help_text=_("Empty: every site in the files"),
    )
    pue = forms.FloatField(
        label=_("PUE of new sites"),
        required=False,
        validators=[MinValueValidator(1.0), MaxValueValidator(3.0)],
        help_text=_("NetBox keeps none; needed when the files name a site you do not have"),
    )
    electricity_price_per_kwh = forms.DecimalField(
        label=_("Electricity price of new sites (per kWh)"),
        required=False,
        min_value=0,
        max_value=100,
        max_digits=8,
        decimal_places=4,
    )
    currency = forms.ChoiceField(
        label=_("Currency"), choices=Currency.choices, initial=Currency.CNY
    )
    cooling_kw = _kw(_("Cooling per rack of new rack groups (kW)"))
    cooling = forms.ChoiceField(
        label=_("Cooling of new rack groups"),
        choices=RackCooling.choices,
        initial=RackCooling.ROOM_AIR,
    )
    max_kg = forms.FloatField(
        label=_("Load per rack where NetBox states no max_weight (kg)"),
        required=False,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_RACK_KG)],
    )
    power_kw = _kw(_("Power per rack where racks have no feeds (kW)"))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["cooling_kw"].help_text = _(
            "NetBox keeps no cooling. Empty: as the site's other rack groups, else equal to the "
            "rack group's power"
        )

    def clean_files(self):
        files = self.cleaned_data["files"]
        total = sum(f.size for f in files)
        if total > PAGE_MAX_BYTES or any(f.size > NETBOX_MAX_BYTES for f in files):
            raise ValidationError(
                _("The files are %(size)d KiB; the limit is %(limit)d KiB."),
                code="too_big",
                params={"size": total // 1024, "limit": PAGE_MAX_BYTES // 1024},
            )
        return files

    def options(self) -> ImportOptions:
        return ImportOptions.of(self.cleaned_data)
