from django.conf import settings

from catalog.choices import Currency

SESSION_KEY = "currency"


def currency(request):
    """The display currency the visitor chose (session), for the `money` filter."""
    chosen = request.session.get(SESSION_KEY) if hasattr(request, "session") else None
    return {
        "display_currency": chosen if chosen in Currency.values else Currency.USD,
        "currencies": Currency.choices,
        "cny_per_usd": settings.FLOPFIT_CNY_PER_USD,
        "cny_per_usd_date": settings.FLOPFIT_CNY_PER_USD_DATE,
    }
