from decimal import Decimal

from django import template
from django.contrib.humanize.templatetags.humanize import intcomma

from catalog.currency import SYMBOLS, amount_text, convert

register = template.Library()


@register.simple_tag(takes_context=True)
def money(context, amount, source_currency):
    """A price in the visitor's display currency; converted amounts are marked with ≈."""
    if amount is None:
        return "—"
    target = context.get("display_currency", source_currency)
    value = convert(amount, source_currency, target)
    approx = "≈ " if target != source_currency else ""
    return f"{approx}{SYMBOLS.get(target, '')}{amount_text(value)}"


@register.filter
def figure(value, digits: int = 1):
    """A measured figure: thousands separated, trailing .0 dropped, em dash when unknown."""
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return "✓" if value else "✗"
    if isinstance(value, int | float | Decimal):
        number = round(float(value), int(digits))
        text = intcomma(number if number != int(number) else int(number))
        return text
    return value


@register.filter
def billions(value) -> str:
    """A parameter count in billions with one decimal (8030261248 -> 8.0)."""
    if value is None:
        return "—"
    return f"{value / 1e9:,.1f}"
