"""Writes for accounts: teams, roles, tokens, demo users."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from axes.utils import reset as axes_reset
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from accounts.models import ApiToken, Profile, Team
from accounts.roles import Role

TOKEN_PREFIX_LEN = 12
DEFAULT_TEAM = "Default"


def token_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def roles_ensure() -> list[Group]:
    """Create the role groups if missing. Access is decided by group name (accounts.roles)."""
    return [Group.objects.get_or_create(name=role)[0] for role in Role.values]


def team_get_or_create(*, name: str) -> Team:
    team, _ = Team.objects.get_or_create(name=name, defaults={"slug": slugify(name) or "team"})
    return team


@transaction.atomic
def user_create(
    *, username: str, password: str, role: str, team: Team | None = None, email: str = ""
):
    roles_ensure()
    user = get_user_model().objects.create_user(username=username, password=password, email=email)
    user.groups.add(Group.objects.get(name=role))
    Profile.objects.create(user=user, team=team or team_get_or_create(name=DEFAULT_TEAM))
    return user


def user_team(user) -> Team | None:
    profile = getattr(user, "profile", None) if getattr(user, "is_authenticated", False) else None
    return profile.team if profile else None


@transaction.atomic
def token_create(*, user, name: str) -> tuple[ApiToken, str]:
    """A new key for `user`. Returns the row and the key itself, which is not stored."""
    while True:
        key = secrets.token_urlsafe(32)
        prefix = key[:TOKEN_PREFIX_LEN]
        if not ApiToken.objects.filter(prefix=prefix).exists():
            break
    token = ApiToken.objects.create(
        user=user, name=name.strip(), prefix=prefix, digest=token_digest(key)
    )
    return token, key


def token_revoke(*, user, token_id: int) -> bool:
    """Revoke one of the user's own keys; False when there is no such active key."""
    return bool(
        ApiToken.objects.filter(pk=token_id, user=user, revoked_at__isnull=True).update(
            revoked_at=timezone.now()
        )
    )


@dataclass(frozen=True)
class DemoUser:
    username: str
    password: str | None  # None when the user already existed (its password is not known)
    role: str


def demo_users_ensure() -> list[DemoUser]:
    """One demo user per role on the default team; passwords are random and shown only once."""
    out = []
    for role in Role.values:
        username = f"demo-{role}"
        if get_user_model().objects.filter(username=username).exists():
            out.append(DemoUser(username, None, role))
            continue
        password = secrets.token_urlsafe(9)
        user_create(username=username, password=password, role=role)
        out.append(DemoUser(username, password, role))
    return out


def user_unlock(*, username: str) -> None:
    """Forget the account's failed sign-ins (django-axes' attempts): its owner may sign in
    again at once, from anywhere."""
    axes_reset(username=username)
