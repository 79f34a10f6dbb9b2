"""Forms for the facility pages: a site, a rack group, and a CSV upload of rack groups.

The model forms validate everything the model states (validators, check constraints), plus the
uniqueness rules the model form leaves out because `team` and `site` are not form fields, so
the inline validation can report a duplicate name before anything is saved."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from catalog.models import Fabric
from planner.choices import RackCooling
from planner.models import RackGroup, Site
from planner.sites.services import CSV_COLUMNS
from planner.web.editing import NameFreeWithin, VersionedModelForm, free_name
from planner.web.forms import FieldsetsMixin
from planner.web.imports import CsvUploadForm


class SiteForm(VersionedModelForm):
    """A site's own fields; the team is the signed-in user's and is never chosen here."""

    class Meta:
        model = Site
        fields = [
            "name",
            "location",
            "visibility",
            "currency",
            "electricity_price_per_kwh",
            "pue",
            "notes",
        ]
        labels = {
            "electricity_price_per_kwh": _("Electricity price (per kWh, in the site's currency)"),
            "pue": _("PUE (facility power ÷ IT power)"),
        }
        widgets = {"notes": forms.Textarea(attrs={"rows": 3})}

    def __init__(self, *args, team=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.team = team if team is not None else getattr(self.instance, "team", None)

    def clean_name(self) -> str:
        if self.team is None:  # said above the form: an account outside every team
            return self.cleaned_data["name"].strip()
        return free_name(
            self,
            within={"team": self.team},
            taken_message=_("Your team already has a site with this name."),
        )


class RackGroupForm(NameFreeWithin, FieldsetsMixin, VersionedModelForm):
    """A row of identical racks; every figure is per rack."""

    NAME_WITHIN = "site"
    NAME_TAKEN = _("This site already has a rack group with this name.")

    fabrics = forms.ModelMultipleChoiceField(
        queryset=Fabric.objects.order_by("name"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label=_("Fabrics offered"),
    )

    class Meta:
        model = RackGroup
        fields = list(RackGroup.STATED_FIELDS)
        labels = {
            "count": _("Racks (count)"),
            "units": _("Usable space per rack (U)"),
            "max_kg": _("Maximum load per rack (kg)"),
            "inlet_c": _("Inlet air temperature (°C)"),
        }

    FIELDSETS = (
        (_("Racks"), ("name", "count", "units", "max_kg")),
        (_("Power"), ("power_kw", "feeds")),
        (_("Cooling"), ("cooling_kw", "cooling", "inlet_c", "liquid_loops")),
        (_("Network"), ("fabrics",)),
    )

    def __init__(self, *args, site: Site, **kwargs):
        super().__init__(*args, **kwargs)
        self.instance.site = site

    def clean(self):
        cleaned = super().clean()
        # The model's check constraint says the same; stating it here puts the message beside
        # the checkbox instead of above the form.
        if cleaned.get("cooling") == RackCooling.LIQUID and not cleaned.get("liquid_loops"):
            self.add_error("liquid_loops", _("Direct liquid cooling needs liquid loops."))
        return cleaned


class RackImportForm(CsvUploadForm):
    """A CSV of rack groups, checked in full before anything is saved."""

    columns = CSV_COLUMNS
