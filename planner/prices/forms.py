"""Forms of the price pages: one price (new, edited or copied) and a CSV upload of prices.

The model form validates what the model states (validators, the cross-field rules in
`Price.clean`, the check constraints), so the inline validation can say which field is wrong
before anything is saved."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from catalog.models import Fabric, ServerPlatform
from planner.models import Price
from planner.prices.csv_rows import CSV_COLUMNS
from planner.web.editing import VersionedModelForm
from planner.web.fields import accelerator_field
from planner.web.forms import FieldsetsMixin
from planner.web.imports import CsvUploadForm
from planner.web.widgets import date_input, decimal_text


class PriceForm(FieldsetsMixin, VersionedModelForm):
    """A price's own fields; the team is the signed-in user's and is never chosen here."""

    accelerator = accelerator_field(
        optional=True,
        by_slug=False,
        help_text=_("For an accelerator or rent price; for a system, the cards it comes with"),
    )

    class Meta:
        model = Price
        fields = list(Price.STATED_FIELDS)
        labels = {
            "amount": _("Amount (purchase: per unit; rent: per accelerator-hour)"),
            "support_share_per_year": _("Support per year (share of the price, 0-1)"),
        }
        widgets = {
            "amount": decimal_text("32000"),
            "support_share_per_year": decimal_text("0.15"),
            "price_date": date_input(),
            "valid_until": date_input(),
            "read_on": date_input(),
            "source": forms.TextInput(
                attrs={"placeholder": _("https://… or quote from <vendor>, ref <number>")}
            ),
            "notes": forms.Textarea(attrs={"rows": 3}),
        }

    FIELDSETS = (
        (_("What"), ("kind", "item_kind", *Price.ITEM_FIELDS)),
        (_("Price"), Price.AMOUNT_FIELDS),
        (_("Source"), (*Price.SOURCE_FIELDS, "notes")),
        (_("Purchase"), Price.PURCHASE_FIELDS),
        (_("Rent"), Price.RENT_FIELDS),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["server"].queryset = ServerPlatform.objects.order_by("vendor", "name")
        self.fields["fabric"].queryset = Fabric.objects.order_by("name")


class PriceImportForm(CsvUploadForm):
    """A CSV of a team's prices, checked in full before anything is saved."""

    columns = CSV_COLUMNS
