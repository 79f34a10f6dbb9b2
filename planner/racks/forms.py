"""Forms for the racks pages. The model form validates what the model states; the name's
uniqueness within the group is checked here so it shows beside the field."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from planner.models import Rack, RackGroup
from planner.web.editing import EditsOneVersion, preserve_inputs
from planner.web.forms import FieldsetsMixin


class RackForm(FieldsetsMixin, EditsOneVersion, forms.ModelForm):
    """One rack; an empty figure keeps its group's."""

    class Meta:
        model = Rack
        fields = list(Rack.STATED_FIELDS)

    FIELDSETS = (
        (_("Rack"), ("name", "position", "notes")),
        (
            _("Limits where this rack differs from its group"),
            ("units", "power_kw", "cooling_kw", "max_kg"),
        ),
    )

    def __init__(self, *args, rack_group: RackGroup, **kwargs):
        super().__init__(*args, **kwargs)
        self.instance.rack_group = rack_group
        for name in ("units", "power_kw", "cooling_kw", "max_kg"):
            self.fields[name].widget.attrs["placeholder"] = str(getattr(rack_group, name))
        preserve_inputs(self)
        self._add_version_field()

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        taken = Rack.objects.filter(rack_group=self.instance.rack_group, name=name).exclude(
            pk=self.instance.pk
        )
        if taken.exists():
            raise ValidationError(
                _("This rack group already has a rack with this name."), code="unique"
            )
        return name

    def clean(self):
        cleaned = super().clean()
        self._clean_version()
        return cleaned
