"""Prices as the pages show them: the amount as its source states it, and beside it the amount
in the visitor's display currency at the configured rate (catalog.currency)."""

from decimal import Decimal

from django import template

from catalog.currency import SYMBOLS, convert

register = template.Library()


@register.filter
def amount(value) -> str:
    """Thousands separated, no trailing zeros: 32,000 or 2.744705, never 2.744705000."""
    if value is None or value == "":
        return "—"
    return format(Decimal(value).normalize(), ",f")


@register.simple_tag(takes_context=True)
def converted(context, value, currency: str) -> str:
    """The amount in the display currency when that differs from the price's ("≈ ¥19.49");
    empty when they are the same. Hourly rates keep cents, unit prices round to whole units."""
    target = context.get("display_currency", currency)
    if value is None or target == currency:
        return ""
    number = convert(value, currency, target) or 0.0
    digits = 0 if number >= 1000 else 2 if number >= 1 else 4
    return f"≈ {SYMBOLS.get(target, '')}{number:,.{digits}f}"
