"""Prices are stored in the currency their source quotes; pages and plans convert at one rate
(settings.FLOPFIT_CNY_PER_USD, dated by FLOPFIT_CNY_PER_USD_DATE)."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings


def convert(amount: Decimal | float | None, source: str, target: str) -> float | None:
    if amount is None:
        return None
    value = float(amount)
    if source == target:
        return value
    rate = settings.FLOPFIT_CNY_PER_USD
    return value * rate if (source, target) == ("USD", "CNY") else value / rate
