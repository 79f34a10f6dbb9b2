"""What hardware and hours cost, and where each figure comes from.

Data-centre hardware has no public list price (teams buy on quotes) while cloud hours do, so a
price is data a team owns, over a reference list shipped in catalog/data/prices that every team
reads. One table holds both kinds:

- a purchase price is per unit of its item: one accelerator, server, complete system, NIC,
  switch port, cable, transceiver or rack; with optional support (a share of the price per
  year) and depreciation years;
- a rent price is per accelerator-hour, always for an accelerator, from a provider on given
  terms; the instance it comes in costs `amount` x `accelerators_per_instance` per hour.

Electricity and PUE are not here: they belong to a site."""

from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator, URLValidator
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from catalog.choices import Currency
from planner.choices import NETWORK_ITEMS, PriceItem, PriceKind, RentTerms
from planner.models.base import URL_SCHEMES, Sourced, TeamOrReference, VersionedRecord
from planner.models.fields import (
    Figure,
    choice_rule,
    optional_link,
    optional_text,
    read_on_field,
    reference_key_field,
    reference_key_rules,
    source_field,
    team_link,
    version_rule,
)

# A system written off over more than 15 years is a typo, not a plan.
MAX_DEPRECIATION_YEARS = 15
# The largest servers hold 16 cards and a rack-scale slice 72; more per instance is a typo.
MAX_ACCELERATORS_PER_INSTANCE = 128
# Support and maintenance per year, as a share of the price.
SUPPORT_SHARE = Figure(models.DecimalField, 0, 1)
DEPRECIATION_YEARS = Figure(models.PositiveSmallIntegerField, 1, MAX_DEPRECIATION_YEARS)
ACCELERATORS_PER_INSTANCE = Figure(
    models.PositiveSmallIntegerField, 1, MAX_ACCELERATORS_PER_INSTANCE
)
# Up to ten billion in the currency, to a millionth: cloud price lists give hourly rates to six
# decimals (AWS: 21.957642 per p4d.24xlarge-hour, 2.744705 per A100-hour).
AMOUNT_DIGITS, AMOUNT_DECIMALS = 16, 6

# What each item names. Accelerators, bare servers and systems are catalog rows; network items
# a catalog fabric or a free-text name (a cable SKU); racks only a name.
CATALOG_FIELD = {
    PriceItem.ACCELERATOR: "accelerator",
    PriceItem.SERVER: "server",
    PriceItem.SYSTEM: "server",
}


def _item_rule(item_kinds, condition: Q, name: str, message: str) -> models.CheckConstraint:
    return models.CheckConstraint(
        condition=~Q(item_kind__in=item_kinds) | condition,
        name=name,
        violation_error_message=message,
    )


class Price(VersionedRecord, Sourced, TeamOrReference):
    """One price of one item, with its currency, date, source and validity. Owned by a team
    (its quote or negotiated rate), or, with no team, a row of the shipped reference list."""

    detail_view = "planner:price_detail"

    # What a person states about a price, in groups: the form's fieldsets, the API's fields,
    # the columns of the CSV import and export and of the reference files are drawn from these.
    ITEM_FIELDS = ("accelerator", "server", "fabric", "item_name")
    AMOUNT_FIELDS = ("amount", "currency", "price_date", "valid_until")
    SOURCE_FIELDS = ("source", "read_on")
    PURCHASE_FIELDS = ("support_share_per_year", "depreciation_years")
    RENT_FIELDS = ("provider", "region", "terms", "instance_name", "accelerators_per_instance")
    STATED_FIELDS = (
        "kind",
        "item_kind",
        *ITEM_FIELDS,
        *AMOUNT_FIELDS,
        *SOURCE_FIELDS,
        *PURCHASE_FIELDS,
        *RENT_FIELDS,
        "notes",
    )

    kind = models.CharField(_("kind"), max_length=8, choices=PriceKind.choices)
    item_kind = models.CharField(_("item"), max_length=12, choices=PriceItem.choices)
    accelerator = optional_link(
        "catalog.Accelerator",
        _("accelerator"),
        related_name="prices",
        help_text=_("The card priced; for a complete system, the cards it comes with"),
    )
    server = optional_link(
        "catalog.ServerPlatform",
        _("server platform"),
        related_name="prices",
        help_text=_("For a bare server or a complete system"),
    )
    fabric = optional_link(
        "catalog.Fabric",
        _("fabric"),
        related_name="prices",
        help_text=_("For a NIC, switch port, cable or transceiver of a catalog fabric"),
    )
    item_name = optional_text(
        _("item name"),
        200,
        _("For items the catalog lacks: a rack model, a cable or transceiver SKU"),
    )
    amount = models.DecimalField(
        _("amount"),
        max_digits=AMOUNT_DIGITS,
        decimal_places=AMOUNT_DECIMALS,
        validators=[MinValueValidator(0)],
        help_text=_(
            "In the price's currency. Purchase: per unit (one card, server, system, port, "
            "cable, transceiver or rack). Rent: per accelerator-hour."
        ),
    )
    currency = models.CharField(
        _("currency"), max_length=3, choices=Currency.choices, default=Currency.USD
    )
    price_date = models.DateField(
        _("price date"), help_text=_("The day the price was quoted or published")
    )
    valid_until = models.DateField(
        _("valid until"),
        null=True,
        blank=True,
        help_text=_("The last day the price holds; empty when the source gives none"),
    )
    source = source_field(_("A URL, or “quote from <vendor>, ref <number>”"))
    read_on = read_on_field(help_text=_("The day someone last read the source"))
    notes = models.TextField(_("notes"), blank=True)
    support_share_per_year = SUPPORT_SHARE.optional(
        _("support per year (share of price)"),
        _("Purchase: support and maintenance per year, as a share of the price, 0-1"),
        max_digits=5,
        decimal_places=4,
    )
    depreciation_years = DEPRECIATION_YEARS.optional(
        _("depreciation (years)"), _("Purchase: years over which it is written off, 1-15")
    )
    provider = optional_text(
        _("provider"),
        120,
        _("Rent: the cloud or marketplace. Purchase: the vendor or reseller, if any"),
    )
    region = optional_text(_("region"), 120)
    terms = models.CharField(
        _("terms"),
        max_length=16,
        choices=RentTerms.choices,
        blank=True,
        help_text=_("Rent only"),
    )
    instance_name = optional_text(
        _("instance"), 120, _("Rent: the instance type or offer, e.g. p5.48xlarge")
    )
    accelerators_per_instance = ACCELERATORS_PER_INSTANCE.optional(
        _("accelerators per instance"),
        _("Rent: the instance costs this many times the amount per hour"),
    )
    team = team_link(
        "prices",
        optional=True,
        help_text=_("Empty for the shipped reference list, which every team reads"),
    )
    reference_key = reference_key_field(
        120, _("The row's key in catalog/data/prices; empty for a team's own prices")
    )
    copied_from = optional_link(
        "self", _("copied from"), related_name="copies", on_delete=models.SET_NULL, editable=False
    )
    # Editable, though no form offers it, so the history shows when a price was retired.
    retired_at = models.DateTimeField(
        _("retired"),
        null=True,
        blank=True,
        help_text=_("Retired prices stay, with their history, but no price book uses them"),
    )

    class Meta:
        verbose_name = _("price")
        verbose_name_plural = _("prices")
        ordering = ["item_kind", "-price_date", "pk"]
        indexes = [models.Index(fields=["team", "item_kind"], name="price_team_item_idx")]
        constraints = [
            choice_rule("price", "kind", PriceKind),
            choice_rule("price", "item_kind", PriceItem),
            choice_rule("price", "currency", Currency),
            models.CheckConstraint(
                condition=~Q(kind=PriceKind.RENT) | Q(item_kind=PriceItem.ACCELERATOR),
                name="price_rent_is_per_accelerator",
                violation_error_message=_("Rent is priced per accelerator-hour."),
            ),
            models.CheckConstraint(
                condition=~Q(kind=PriceKind.RENT)
                | (~Q(provider="") & Q(terms__in=RentTerms.values)),
                name="price_rent_names_provider_and_terms",
                violation_error_message=_("A rent price names its provider and terms."),
            ),
            models.CheckConstraint(
                condition=~Q(kind=PriceKind.RENT)
                | Q(support_share_per_year__isnull=True, depreciation_years__isnull=True),
                name="price_rent_has_no_purchase_terms",
                violation_error_message=_("Support and depreciation are for purchases."),
            ),
            models.CheckConstraint(
                condition=~Q(kind=PriceKind.PURCHASE)
                | Q(terms="", instance_name="", accelerators_per_instance__isnull=True),
                name="price_purchase_has_no_rent_terms",
                violation_error_message=_("Terms and instances are for rent."),
            ),
            _item_rule(
                [PriceItem.ACCELERATOR],
                Q(accelerator__isnull=False, server__isnull=True, fabric__isnull=True),
                "price_accelerator_names_accelerator",
                _("An accelerator price names the accelerator, and nothing else."),
            ),
            _item_rule(
                [PriceItem.SERVER],
                Q(server__isnull=False, accelerator__isnull=True, fabric__isnull=True),
                "price_server_names_server",
                _("A bare server price names the server platform, and no cards or fabric."),
            ),
            _item_rule(
                [PriceItem.SYSTEM],
                Q(server__isnull=False, fabric__isnull=True),
                "price_system_names_server",
                _("A system price names the server platform (and, if chosen, its cards)."),
            ),
            _item_rule(
                list(NETWORK_ITEMS),
                Q(accelerator__isnull=True, server__isnull=True)
                & (Q(fabric__isnull=False) | ~Q(item_name="")),
                "price_network_item_names_fabric_or_name",
                _("A network item names a catalog fabric or an item name."),
            ),
            _item_rule(
                [PriceItem.RACK],
                Q(accelerator__isnull=True, server__isnull=True, fabric__isnull=True)
                & ~Q(item_name=""),
                "price_rack_has_name",
                _("A rack price names the rack in the item name."),
            ),
            models.CheckConstraint(condition=Q(amount__gte=0), name="price_amount_non_negative"),
            SUPPORT_SHARE.rule(
                "price_support_share_within_0_1", "support_share_per_year", optional=True
            ),
            DEPRECIATION_YEARS.rule(
                "price_depreciation_years_sane", "depreciation_years", optional=True
            ),
            ACCELERATORS_PER_INSTANCE.rule(
                "price_accelerators_per_instance_sane", "accelerators_per_instance", optional=True
            ),
            models.CheckConstraint(
                condition=Q(valid_until__isnull=True) | Q(valid_until__gte=F("price_date")),
                name="price_valid_until_not_before_price_date",
                violation_error_message=_("A price cannot expire before its own date."),
            ),
            models.CheckConstraint(condition=~Q(source=""), name="price_has_source"),
            *reference_key_rules("price", only_where="on_reference"),
            version_rule("price"),
        ]

    def __str__(self) -> str:
        return f"{self.item_label} ({self.get_kind_display()})"

    @property
    def item(self):
        """The catalog row priced (accelerator, server or fabric), or None."""
        if self.item_kind in CATALOG_FIELD:
            return getattr(self, CATALOG_FIELD[self.item_kind])
        return self.fabric if self.item_kind in NETWORK_ITEMS else None

    @property
    def item_label(self) -> str:
        """The item as people name it: "DGX H100", "HGX server + H100 SXM5", "NDR switch port"."""
        item = self.item
        label = str(item) if item is not None else self.item_name
        if self.item_kind == PriceItem.SYSTEM and self.accelerator_id:
            label = f"{label} + {self.accelerator}"
        elif item is not None and self.item_name and self.item_kind in NETWORK_ITEMS:
            label = f"{label}: {self.item_name}"
        return label or "—"

    def clean(self) -> None:
        super().clean()
        errors: dict[str, str] = {}
        self.source = (self.source or "").strip()
        self._clean_source(errors)
        if self.kind == PriceKind.RENT:
            self._clean_rent(errors)
        elif self.kind == PriceKind.PURCHASE:
            self._clean_purchase(errors)
        self._clean_item(errors)
        if self.valid_until and self.price_date and self.valid_until < self.price_date:
            errors["valid_until"] = _("A price cannot expire before its own date.")
        if errors:
            raise ValidationError(errors)

    def _clean_source(self, errors: dict) -> None:
        if not self.source:
            errors["source"] = _(
                "Say where the price comes from: a URL, or “quote from <vendor>, ref <number>”."
            )
        elif self.source.startswith(URL_SCHEMES):
            try:
                URLValidator(schemes=["http", "https"])(self.source)
            except ValidationError:
                errors["source"] = _("This looks like a link but is not a valid URL.")

    def _clean_rent(self, errors: dict) -> None:
        if self.item_kind and self.item_kind != PriceItem.ACCELERATOR:
            errors["item_kind"] = _("Rent is priced per accelerator-hour: the item is a card.")
        if not self.provider.strip():
            errors["provider"] = _("Say who rents it out.")
        if not self.terms:
            errors["terms"] = _("Choose the terms: on demand, reserved, spot or capacity block.")
        if self.support_share_per_year is not None:
            errors["support_share_per_year"] = _(
                "Support is part of an hourly rate; leave it empty for rent."
            )
        if self.depreciation_years is not None:
            errors["depreciation_years"] = _("Rented hardware is not written off.")

    def _clean_purchase(self, errors: dict) -> None:
        if self.terms:
            errors["terms"] = _("Terms are for rent; leave them empty for a purchase.")
        if self.instance_name:
            errors["instance_name"] = _("Instances are for rent; leave it empty for a purchase.")
        if self.accelerators_per_instance is not None:
            errors["accelerators_per_instance"] = _(
                "Instances are for rent; leave it empty for a purchase."
            )

    def _clean_item(self, errors: dict) -> None:
        kind = self.item_kind
        needed = CATALOG_FIELD.get(kind)
        if needed and getattr(self, f"{needed}_id") is None:
            errors[needed] = _("Choose the %(item)s this price is for.") % {
                "item": self._meta.get_field(needed).verbose_name
            }
        allowed = {needed} if needed else set()
        if kind == PriceItem.SYSTEM:
            allowed.add("accelerator")
        if kind in NETWORK_ITEMS:
            allowed.add("fabric")
            if self.fabric_id is None and not self.item_name.strip():
                errors["item_name"] = _("Choose a fabric, or name the item.")
        if kind == PriceItem.RACK and not self.item_name.strip():
            errors["item_name"] = _("Name the rack (model or description).")
        for name in ("accelerator", "server", "fabric"):
            if name not in allowed and getattr(self, f"{name}_id") is not None:
                errors.setdefault(name, _("Leave this empty for this kind of item."))
        if (
            kind == PriceItem.SYSTEM
            and self.server_id
            and self.accelerator_id
            and not self.server.takes(self.accelerator)
        ):
            errors.setdefault(
                "accelerator", _("%(server)s does not take this card.") % {"server": self.server}
            )
