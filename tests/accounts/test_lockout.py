"""Password guessing is limited on the site's login and the admin's: five wrong passwords lock
the account (even the right password is refused, with a message saying so in both languages)
until the lockout period passes or an admin unlocks it, by the user list's action or
`manage.py unlock`."""

import io

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from accounts.lockout import ADDRESS_FACTOR
from tests.cast import PASSWORD

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"
ADMIN_LOGIN = "/admin/login/"


def _sign_in(client: Client, url: str, username: str, password: str, **extra):
    return client.post(url, {"username": username, "password": password}, **extra)


def _person(cast, who):
    """The cast member; the admin also gets Django's staff flag, which the admin site wants."""
    user = cast[who]
    if who == "admin":
        user.is_staff = user.is_superuser = True
        user.save()
    return user


def _guess(client, url, username, times):
    for _ in range(times):
        assert _sign_in(client, url, username, "wrong-password").status_code == 200


@pytest.mark.parametrize(("url", "who"), [(LOGIN, "planner"), (ADMIN_LOGIN, "admin")])
def test_the_right_password_is_refused_after_five_wrong_ones(cast, settings, url, who):
    user = _person(cast, who)
    _guess(Client(), url, user.username, settings.FLOPFIT_LOGIN_FAILURES)
    response = _sign_in(Client(), url, user.username, PASSWORD)
    assert response.status_code == 200
    assert "Too many failed sign-ins" in response.content.decode()
    assert "_auth_user_id" not in response.client.session


@pytest.mark.parametrize(("url", "who"), [(LOGIN, "planner"), (ADMIN_LOGIN, "admin")])
def test_fewer_wrong_passwords_leave_the_account_open(cast, settings, url, who):
    user = _person(cast, who)
    _guess(Client(), url, user.username, settings.FLOPFIT_LOGIN_FAILURES - 1)
    assert _sign_in(Client(), url, user.username, PASSWORD).status_code == 302


def test_the_lockout_message_is_translated(cast, settings):
    _guess(Client(), LOGIN, cast.planner.username, settings.FLOPFIT_LOGIN_FAILURES)
    response = _sign_in(
        Client(), LOGIN, cast.planner.username, PASSWORD, HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    html = response.content.decode()
    assert "Too many failed sign-ins" not in html and "登录失败次数过多" in html


def test_one_address_guessing_across_accounts_is_locked_out_too(cast, settings):
    client = Client()
    for n in range(settings.FLOPFIT_LOGIN_FAILURES * ADDRESS_FACTOR):
        _sign_in(client, LOGIN, f"nobody-{n}", "wrong-password")
    response = _sign_in(client, LOGIN, cast.viewer.username, PASSWORD)
    assert "Too many failed sign-ins" in response.content.decode()


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
