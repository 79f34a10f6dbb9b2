"""Password guessing is limited on the site's login and the admin's (django-axes): five wrong
passwords for one account from one address lock that account there (even the right password is
refused, with 429 and a message saying so in both languages) until the lockout period passes or
an admin unlocks it, by the user list's action or `manage.py unlock`. The failures are rows in
the database, so every web worker counts the same guesses and a cache flush forgets none."""

import io

import pytest
from django.conf import settings
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from tests.cast import PASSWORD

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"
ADMIN_LOGIN = "/admin/login/"
LOCKED = "Too many failed sign-ins"


def _sign_in(client: Client, url: str, username: str, password: str, **extra):
    return client.post(url, {"username": username, "password": password}, **extra)


def _person(cast, who):
    """The cast member; the admin also gets Django's staff flag, which the admin site wants."""
    user = cast[who]
    if who == "admin":
        user.is_staff = user.is_superuser = True
        user.save()
    return user


def _guess(client, url, username, times, **extra):
    """`times` wrong passwords: the form answers each again, and the one reaching the limit
    with the lockout."""
    for n in range(1, times + 1):
        response = _sign_in(client, url, username, "wrong-password", **extra)
        assert response.status_code == (429 if n == settings.FLOPFIT_LOGIN_FAILURES else 200)


@pytest.mark.parametrize(("url", "who"), [(LOGIN, "planner"), (ADMIN_LOGIN, "admin")])
def test_the_right_password_is_refused_after_five_wrong_ones(cast, settings, url, who):
    user = _person(cast, who)
    _guess(Client(), url, user.username, settings.FLOPFIT_LOGIN_FAILURES)
    response = _sign_in(Client(), url, user.username, PASSWORD)
    assert response.status_code == 429
    assert LOCKED in response.content.decode()
    assert "_auth_user_id" not in response.client.session


@pytest.mark.parametrize(("url", "who"), [(LOGIN, "planner"), (ADMIN_LOGIN, "admin")])
def test_fewer_wrong_passwords_leave_the_account_open(cast, settings, url, who):
    user = _person(cast, who)
    _guess(Client(), url, user.username, settings.FLOPFIT_LOGIN_FAILURES - 1)
    assert _sign_in(Client(), url, user.username, PASSWORD).status_code == 302


def test_the_right_password_forgets_the_wrong_ones_before_it(cast, settings):
    _guess(Client(), LOGIN, cast.planner.username, settings.FLOPFIT_LOGIN_FAILURES - 1)
    assert _sign_in(Client(), LOGIN, cast.planner.username, PASSWORD).status_code == 302
    _guess(Client(), LOGIN, cast.planner.username, settings.FLOPFIT_LOGIN_FAILURES - 1)
    assert _sign_in(Client(), LOGIN, cast.planner.username, PASSWORD).status_code == 302


def test_the_lockout_is_per_account_and_address(cast, settings):
    """A guesser at one address does not lock the owner out from another."""
    _guess(Client(), LOGIN, cast.planner.username, settings.FLOPFIT_LOGIN_FAILURES)
    elsewhere = Client(REMOTE_ADDR="192.0.2.7")
    assert _sign_in(elsewhere, LOGIN, cast.planner.username, PASSWORD).status_code == 302


def test_the_lockout_outlives_a_cache_flush(cast, settings):
    _guess(Client(), LOGIN, cast.planner.username, settings.FLOPFIT_LOGIN_FAILURES)
    cache.clear()
    assert _sign_in(Client(), LOGIN, cast.planner.username, PASSWORD).status_code == 429


def test_the_lockout_message_is_translated(cast, settings):
    _guess(Client(), LOGIN, cast.planner.username, settings.FLOPFIT_LOGIN_FAILURES)
    response = _sign_in(
        Client(), LOGIN, cast.planner.username, PASSWORD, HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    html = response.content.decode()
    assert LOCKED not in html and "登录失败次数过多" in html


def test_the_unlock_command_lets_the_owner_in_again(cast, settings):
    _guess(Client(), LOGIN, cast.planner.username, settings.FLOPFIT_LOGIN_FAILURES)
    out = io.StringIO()
    call_command("unlock", cast.planner.username, stdout=out)
    assert f"unlocked: {cast.planner.username}" in out.getvalue()
    assert _sign_in(Client(), LOGIN, cast.planner.username, PASSWORD).status_code == 302


def test_the_unlock_command_names_an_unknown_user(cast):
    with pytest.raises(CommandError, match="no such user: nobody"):
        call_command("unlock", "nobody", stdout=io.StringIO())


def test_the_admin_action_unlocks_the_accounts_chosen(cast, settings):
    _guess(Client(), LOGIN, cast.planner.username, settings.FLOPFIT_LOGIN_FAILURES)
    admin = Client()
    admin.force_login(_person(cast, "admin"))
    response = admin.post(
        reverse("admin:auth_user_changelist"),
        {"action": "unlock", "_selected_action": [cast.planner.pk]},
        follow=True,
    )
    assert "1 account may sign in again." in response.content.decode()
    assert _sign_in(Client(), LOGIN, cast.planner.username, PASSWORD).status_code == 302
