"""Forms for the racks pages. The model form validates what the model states; the name's
uniqueness within the group is checked here so it shows beside the field."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from catalog.models import Accelerator, ServerPlatform
from planner.choices import FeedType
from planner.models import Equipment, PowerFeed, Rack, RackGroup, Site
from planner.racks.feeds import b_side_name
from planner.web.editing import NameFreeWithin, VersionedModelForm
from planner.web.forms import FieldsetsMixin

# More servers than this in one question is a hall, not a fit.
MAX_FIT_SERVERS = 10_000


class RackForm(NameFreeWithin, FieldsetsMixin, VersionedModelForm):
    """One rack; an empty figure keeps its group's."""

    NAME_WITHIN = "rack_group"
    NAME_TAKEN = _("This rack group already has a rack with this name.")

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


class EquipmentForm(FieldsetsMixin, VersionedModelForm):
    """A catalog server (its height, nameplate and weight from the catalog when left empty) or
    a free-form device; on an edit, `rack` moves it."""

    class Meta:
        model = Equipment
        fields = ["rack", *Equipment.STATED_FIELDS]

    FIELDSETS = (
        (_("What"), ("name", "server", "notes")),
        (_("Where"), ("rack", "position_u", "units")),
        (_("Power and weight"), ("nameplate_kw", "measured_kw", "weight_kg")),
    )

    def __init__(self, *args, rack: Rack, racks, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk is None:
            self.instance.rack = rack
            self.initial.setdefault("rack", rack.pk)
        self.fields["rack"].queryset = racks
        self.fields["server"].queryset = ServerPlatform.objects.order_by("name")
        for name in ("name", "units", "nameplate_kw", "weight_kg"):
            # Filled from the catalog server when one is chosen (planner.racks.equipment).
            self.fields[name].required = False

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("server") is None:
            for name in ("name", "units", "nameplate_kw", "weight_kg"):
                if cleaned.get(name) in (None, "") and name not in self.errors:
                    self.add_error(name, _("Required for a device that is not a catalog server."))
        return cleaned

    def _post_clean(self):
        # The catalog fills empty figures in the service; the model's own check waits for it.
        self.instance.rack = self.cleaned_data.get("rack") or self.instance.rack
        for name in Equipment.STATED_FIELDS:
            if name in self.cleaned_data:
                setattr(self.instance, name, self.cleaned_data[name])
        if not self.instance.name:
            self.instance.name = ""


class PowerFeedForm(NameFreeWithin, FieldsetsMixin, VersionedModelForm):
    """One power feed of a rack; a new primary feed may bring its redundant B side along."""

    NAME_WITHIN = "rack"
    NAME_TAKEN = _("This rack already has a feed with this name.")

    add_b_side = forms.BooleanField(
        label=_("Also add its B side"),
        required=False,
        help_text=_(
            "A redundant feed of the same rating, for an A/B pair: it takes the load when this "
            "one fails, so it adds nothing to the usable power"
        ),
    )

    class Meta:
        model = PowerFeed
        fields = list(PowerFeed.STATED_FIELDS)

    FIELDSETS = (
        (_("Feed"), ("name", "feed_type", "add_b_side")),
        (_("Rating"), ("supply", "phase", "voltage", "amperage", "max_utilisation")),
    )

    def __init__(self, *args, rack: Rack, **kwargs):
        super().__init__(*args, **kwargs)
        self.instance.rack = rack
        if self.instance.pk is not None:
            del self.fields["add_b_side"]

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("add_b_side"):
            if cleaned.get("feed_type") == FeedType.REDUNDANT:
                self.add_error(
                    "add_b_side", _("A B side goes with a primary feed: choose Primary as type.")
                )
            elif cleaned.get("name"):
                twin = b_side_name(cleaned["name"])
                if PowerFeed.objects.filter(rack=self.instance.rack, name=twin).exists():
                    self.add_error(
                        "add_b_side",
                        _("This rack already has a feed named “%(name)s”.") % {"name": twin},
                    )
        return cleaned


class FitForm(forms.Form):
    """The fit page's question: where (a site, or one of its rack groups), what (a catalog
    server, or a plan's build) and how many. Asked by GET: nothing is written."""

    site = forms.ModelChoiceField(queryset=Site.objects.none(), label=_("Site"))
    rack_group = forms.ModelChoiceField(
        queryset=RackGroup.objects.none(),
        required=False,
        label=_("Rack group"),
        help_text=_("Empty: every rack of the site"),
    )
    server = forms.ModelChoiceField(
        queryset=ServerPlatform.objects.order_by("name"),
        to_field_name="slug",
        label=_("Server"),
    )
    accelerator = forms.ModelChoiceField(
        queryset=Accelerator.objects.order_by("name"),
        to_field_name="slug",
        required=False,
        label=_("Accelerators in it"),
        help_text=_("Empty: the most power-hungry card the server takes"),
    )
    quantity = forms.IntegerField(
        label=_("How many more"), min_value=1, max_value=MAX_FIT_SERVERS, initial=1
    )

    def __init__(self, *args, sites, rack_groups, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["site"].queryset = sites
        self.fields["rack_group"].queryset = rack_groups.select_related("site")

    def clean(self):
        cleaned = super().clean()
        group, site = cleaned.get("rack_group"), cleaned.get("site")
        if group is not None and site is not None and group.site_id != site.pk:
            self.add_error("rack_group", _("This rack group is not in the chosen site."))
        server, card = cleaned.get("server"), cleaned.get("accelerator")
        if server is not None and card is not None and not server.takes(card):
            self.add_error(
                "accelerator",
                _("%(server)s does not take %(card)s.") % {"server": server, "card": card},
            )
        return cleaned
