"""Prices are stored in the currency their source quotes; pages and plans convert at one rate
(settings.FLOPFIT_CNY_PER_USD, dated by FLOPFIT_CNY_PER_USD_DATE)."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.contrib.humanize.templatetags.humanize import intcomma

SYMBOLS = {"USD": "$", "CNY": "¥"}
# Below this an amount keeps its cents: a 1.55 USD rent is not "$2".
WHOLE_UNITS_FROM = 100


def convert(amount: Decimal | float | None, source: str, target: str) -> float | None:
    if amount is None:
        return None
    value = float(amount)
    if source == target:
        return value
    rate = settings.FLOPFIT_CNY_PER_USD
    return value * rate if (source, target) == ("USD", "CNY") else value / rate


def amount_text(value: float) -> str:
    """An amount with thousands separators: cents below WHOLE_UNITS_FROM, whole units above."""
    if abs(value) < WHOLE_UNITS_FROM:
        return intcomma(f"{value:.2f}")
    return intcomma(round(value))
