"""The people the tests are about: someone not signed in, one person of each role on team Alpha,
and outsiders on team Beta. Each is made, through accounts.services like any other user, the
first time a test names them, so a test pays only for the people it meets.

    def test_viewer_may_not_create_plans(cast):
        response = cast.api("viewer").post(PLANS, QUESTION, format="json")
        assert response.status_code == 403

`cast.browser(who)` is Django's test client signed in with a session (the pages);
`cast.api(who)` is DRF's client signing each request with a fresh API token of its own (the
API). `who` is a part's name (a role name is one) or a user; "anonymous" signs in no one."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TypeAlias

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import Team
from accounts.roles import Role
from accounts.services import team_get_or_create, token_create, user_create

PASSWORD = "a-long-test-password"
TEAM = "Alpha"
OTHER_TEAM = "Beta"
ANONYMOUS = "anonymous"


@dataclass(frozen=True)
class Part:
    username: str
    role: Role
    team: str


PARTS = {
    "viewer": Part("vera", Role.VIEWER, TEAM),
    "planner": Part("pat", Role.PLANNER, TEAM),
    "facility": Part("fran", Role.FACILITY, TEAM),
    "admin": Part("ada", Role.ADMIN, TEAM),
    # A planner on another team: must not learn that Alpha's private rows exist.
    "outsider": Part("oz", Role.PLANNER, OTHER_TEAM),
    # A facility engineer on another team: may write sites, but not Alpha's.
    "outside_facility": Part("otto", Role.FACILITY, OTHER_TEAM),
}

Who: TypeAlias = str | AbstractBaseUser | AnonymousUser


class Cast:
    """Who plays in a test. `cast.viewer`, `cast["viewer"]` and `cast[Role.VIEWER]` are the
    same user."""

    anonymous = AnonymousUser()

    def __init__(self) -> None:
        self._users: dict[str, AbstractBaseUser] = {}

    @cached_property
    def team(self) -> Team:
        return team_get_or_create(name=TEAM)

    @cached_property
    def other_team(self) -> Team:
        return team_get_or_create(name=OTHER_TEAM)

    def __getitem__(self, name: str) -> AbstractBaseUser:
        name = str(name)
        if name not in self._users:
            part = PARTS[name]
            team = self.team if part.team == TEAM else self.other_team
            self._users[name] = user_create(
                username=part.username, password=PASSWORD, role=part.role, team=team
            )
        return self._users[name]

    @property
    def viewer(self) -> AbstractBaseUser:
        return self["viewer"]

    @property
    def planner(self) -> AbstractBaseUser:
        return self["planner"]

    @property
    def facility(self) -> AbstractBaseUser:
        return self["facility"]

    @property
    def admin(self) -> AbstractBaseUser:
        return self["admin"]

    @property
    def outsider(self) -> AbstractBaseUser:
        return self["outsider"]

    @property
    def outside_facility(self) -> AbstractBaseUser:
        return self["outside_facility"]

    def user(self, who: Who) -> AbstractBaseUser | AnonymousUser:
        if isinstance(who, str):
            return self.anonymous if who == ANONYMOUS else self[who]
        return who

    def browser(self, who: Who, **client_options) -> Client:
        """Django's test client, signed in as `who` with a session; anonymous for "anonymous".
        `enforce_csrf_checks=True` makes it ask for the CSRF token as a real browser's
        requests must carry it."""
        client = Client(**client_options)
        user = self.user(who)
        if user.is_authenticated:
            client.force_login(user)
        return client

    def api(self, who: Who, **client_options) -> APIClient:
        """DRF's test client, signing every request with a fresh API token of `who`; without
        credentials for "anonymous"."""
        client = APIClient(**client_options)
        user = self.user(who)
        if user.is_authenticated:
            _, key = token_create(user=user, name="tests")
            client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        return client
