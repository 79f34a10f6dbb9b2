"""What every catalog item has: a slug, where its figures come from, and notes. Prices are
not catalog figures: they live in the price book (planner.prices), per team."""

from django.core.validators import RegexValidator, URLValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

# Lowercase words joined by single hyphens or dots ("qwen2.5-72b", "nvidia-h100-sxm5-80gb").
SLUG_PATTERN = r"[a-z0-9]+(?:[.-][a-z0-9]+)*"
validate_catalog_slug = RegexValidator(
    rf"\A{SLUG_PATTERN}\Z",
    _("Use lowercase letters and digits joined by single hyphens or dots."),
    code="invalid_slug",
)


def validate_source_urls(value: str) -> None:
    """Each whitespace-separated entry must be an http(s) URL."""
    check = URLValidator(schemes=["http", "https"])
    for url in value.split():
        check(url)


def positive(field: str, *, nullable: bool = False) -> models.CheckConstraint:
    """A named CHECK constraint `field > 0` (or NULL where the figure may be unknown)."""
    condition = Q(**{f"{field}__gt": 0})
    if nullable:
        condition |= Q(**{f"{field}__isnull": True})
    return models.CheckConstraint(condition=condition, name=f"%(class)s_{field}_positive")


class CatalogItem(models.Model):
    slug = models.CharField(
        _("slug"),
        max_length=80,
        unique=True,
        validators=[validate_catalog_slug],
        help_text=_("vendor-model-variant, lowercase"),
    )
    name = models.CharField(_("name"), max_length=120)
    source_urls = models.TextField(
        _("sources"),
        validators=[validate_source_urls],
        help_text=_("Where the figures come from: URLs separated by spaces, datasheet first."),
    )
    notes = models.TextField(_("notes"), blank=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        abstract = True
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=~Q(source_urls=""), name="%(class)s_has_source"),
            models.CheckConstraint(condition=~Q(slug=""), name="%(class)s_has_slug"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def source_url_list(self) -> list[str]:
        return self.source_urls.split()
