"""Power feeds into a rack, stated the way an electrician states them."""

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from planner.choices import FeedPhase, FeedSupply, FeedType
from planner.engine.facility import DEFAULT_MAX_UTILISATION_PCT, feed_usable_kw
from planner.models.base import VersionedRow
from planner.models.fields import Figure, name_rules, parent_link, version_rule
from planner.models.racks import Rack

# What a form takes for a feed's voltage (V) and amperage (A), and for its utilisation (%).
RATING = Figure(models.FloatField, 1, 1000)
UTILISATION_PCT = Figure(models.FloatField, 1, 100)


class PowerFeed(VersionedRow):
    """One feed: voltage, amperage, phases, AC or DC, primary or redundant, and the share of
    its rating it may carry. Usable kW as NetBox computes it (planner.engine.facility)."""

    STATED_FIELDS = (
        "name",
        "supply",
        "phase",
        "voltage",
        "amperage",
        "feed_type",
        "max_utilisation",
    )

    rack = parent_link(Rack, _("rack"), related_name="feeds")
    name = models.CharField(_("name"), max_length=60)
    supply = models.CharField(
        _("supply"), max_length=2, choices=FeedSupply.choices, default=FeedSupply.AC
    )
    phase = models.CharField(
        _("phase"), max_length=6, choices=FeedPhase.choices, default=FeedPhase.SINGLE
    )
    voltage = RATING.field(_("voltage (V)"), _("Line to line for three-phase"))
    amperage = RATING.field(_("amperage (A)"))
    feed_type = models.CharField(
        _("type"), max_length=9, choices=FeedType.choices, default=FeedType.PRIMARY
    )
    max_utilisation = UTILISATION_PCT.field(
        _("maximum utilisation (%)"),
        _("Share of the breaker rating the feed may carry, in percent; 80 is the usual derating"),
        default=DEFAULT_MAX_UTILISATION_PCT,
    )

    class Meta:
        verbose_name = _("power feed")
        verbose_name_plural = _("power feeds")
        ordering = ["rack", "name"]
        constraints = [
            *name_rules("powerfeed", unique_within="rack"),
            models.CheckConstraint(
                condition=~Q(supply=FeedSupply.DC) | Q(phase=FeedPhase.SINGLE),
                name="powerfeed_dc_is_single_phase",
                violation_error_message=_("A DC feed has no phases: choose single-phase."),
            ),
            UTILISATION_PCT.rule("powerfeed_utilisation_sane", "max_utilisation"),
            models.CheckConstraint(
                condition=Q(voltage__gt=0, amperage__gt=0), name="powerfeed_rating_sane"
            ),
            version_rule("powerfeed"),
        ]

    def __str__(self) -> str:
        return f"{self.rack} / {self.name}"

    def get_absolute_url(self) -> str:
        return self.rack.get_absolute_url() + f"#feed-{self.pk}"

    @property
    def usable_kw(self) -> float:
        return feed_usable_kw(
            voltage_v=self.voltage,
            amperage_a=self.amperage,
            three_phase=self.phase == FeedPhase.THREE,
            max_utilisation_pct=self.max_utilisation,
        )
