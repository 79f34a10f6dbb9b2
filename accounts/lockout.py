"""Password guesses, limited: after `FLOPFIT_LOGIN_FAILURES` wrong passwords for one account
(or five times as many from one address, whatever the accounts) within
`FLOPFIT_LOGIN_LOCKOUT_S`, the login form and the admin's login refuse even the right password
until that time has passed since the last failure, or an admin unlocks the account (the
"Unlock" action on users, or `manage.py unlock USERNAME`).

Failures are counted in the shared cache (Redis in production, which refuses a per-process
cache), so every web worker counts the same guesses."""

from __future__ import annotations

import hashlib

from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.cache import cache
from django.utils.translation import gettext_lazy as _

# One address may try this many times the per-account limit: a person who mistypes on several
# accounts is not locked out, a script trying one password on every account is.
ADDRESS_FACTOR = 5


def _key(kind: str, value: str) -> str:
    digest = hashlib.sha256(value.strip().lower().encode()).hexdigest()[:32]
    return f"login-failures:{kind}:{digest}"


def _keys(*, username: str, address: str) -> list[tuple[str, int]]:
    limit = settings.FLOPFIT_LOGIN_FAILURES
    return [(_key("user", username), limit), (_key("address", address), limit * ADDRESS_FACTOR)]


def login_locked(*, username: str, address: str) -> bool:
    return any(
        (cache.get(key) or 0) >= limit for key, limit in _keys(username=username, address=address)
    )


def login_failed(*, username: str, address: str) -> None:
    """Count one wrong password; each failure restarts the lockout period."""
    timeout = settings.FLOPFIT_LOGIN_LOCKOUT_S
    for key, _limit in _keys(username=username, address=address):
        count = (cache.get(key) or 0) + 1
        cache.set(key, count, timeout)


def login_unlock(*, username: str) -> None:
    """Forget the account's failures: its owner may sign in again at once."""
    cache.delete(_key("user", username))


def _address(request) -> str:
    return (request.META.get("REMOTE_ADDR") if request is not None else None) or "unknown"


class LockoutMixin:
    """A login form that refuses a locked-out account before checking its password, counts
    wrong passwords, and forgets them once the right one is given."""

    lockout_message = _(
        "Too many failed sign-ins for this account. Try again in %(minutes)d minutes, or ask an "
        "admin to unlock it."
    )

    def clean(self):
        username = self.cleaned_data.get("username") or ""
        address = _address(self.request)
        if login_locked(username=username, address=address):
            raise forms.ValidationError(
                self.lockout_message,
                code="locked",
                params={"minutes": max(1, round(settings.FLOPFIT_LOGIN_LOCKOUT_S / 60))},
            )
        try:
            cleaned = super().clean()
        except forms.ValidationError:
            login_failed(username=username, address=address)
            raise
        login_unlock(username=username)
        return cleaned


class LockoutAuthenticationForm(LockoutMixin, AuthenticationForm):
    pass


class LockoutAdminAuthenticationForm(LockoutMixin, AdminAuthenticationForm):
    pass
