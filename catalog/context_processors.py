from django.conf import settings

from catalog.choices import Currency

SESSION_KEY = "currency"


def display_currency(request) -> str:
    """The currency the visitor chose to see amounts in (session), USD until they choose."""
    chosen = request.session.get(SESSION_KEY) if hasattr(request, "session") else None
    return chosen if chosen in Currency.values else Currency.USD


def currency(request):
    """The display currency and the rate amounts are converted at, for the `money` tag."""
    return {
        "display_currency": display_currency(request),
        "currencies": Currency.choices,
        "cny_per_usd": settings.FLOPFIT_CNY_PER_USD,
        "cny_per_usd_date": settings.FLOPFIT_CNY_PER_USD_DATE,
    }
