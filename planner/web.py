"""Small pieces every planner page shares: when HTMX wants a partial, role checks, and the
form widgets for figures people type in scientific notation."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest

from accounts.roles import Role, has_role


def partial_wanted(request: HttpRequest) -> bool:
    """An htmx request for a piece of the page; a boosted link or a history restore wants it
    whole."""
    htmx = request.htmx
    return bool(htmx) and not htmx.boosted and not htmx.history_restore_request


def require_role(user, role: str = Role.PLANNER) -> None:
    if not has_role(user, role):  # admins hold every role
        raise PermissionDenied


def number_input(placeholder: Any = None, **attrs: Any) -> forms.NumberInput:
    if placeholder is not None:
        attrs["placeholder"] = placeholder
    return forms.NumberInput(attrs=attrs)


def decimal_text(placeholder: str) -> forms.TextInput:
    """Text, not number, so 2e-5 and 1e12 can be typed as they are usually written."""
    return forms.TextInput(attrs={"inputmode": "decimal", "placeholder": placeholder})
