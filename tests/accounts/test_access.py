"""Who may see what: the login wall, roles, demo users and the profile page."""

import pytest
from django.core.management import call_command
from django.urls import reverse

from accounts.models import ApiToken
from accounts.roles import Role, roles_of
from accounts.services import team_get_or_create, user_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def viewer():
    return user_create(username="vera", password="pw-vera-123", role=Role.VIEWER)


@pytest.mark.parametrize(
    "url",
    [
        "/",
        "/catalog/accelerators/",
        "/estimate/",
        "/accounts/login/",
        "/api/v1/accelerators/",
        "/api/schema/",
    ],
)
def test_public_pages_need_no_login(client, url):
    assert client.get(url).status_code == 200


@pytest.mark.parametrize("url", ["/accounts/profile/", "/accounts/password/"])
def test_other_pages_redirect_to_login(client, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


def test_api_without_credentials_is_401_with_a_challenge(client):
    response = client.post("/api/v1/fit/", {}, content_type="application/json")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"


def test_login_and_logout(client, viewer):
    response = client.post("/accounts/login/", {"username": "vera", "password": "pw-vera-123"})
    assert response.status_code == 302
    assert client.get("/accounts/profile/").status_code == 200
    client.post("/accounts/logout/")
    assert client.get("/accounts/profile/").status_code == 302


def test_wrong_password_is_refused_with_a_message(client, viewer):
    response = client.post("/accounts/login/", {"username": "vera", "password": "nope"})
    assert response.status_code == 200
    assert response.context["form"].errors


def test_password_change(client, viewer):
    client.force_login(viewer)
    response = client.post(
        "/accounts/password/",
        {
            "old_password": "pw-vera-123",
            "new_password1": "a-much-longer-secret-42",
            "new_password2": "a-much-longer-secret-42",
        },
    )
    assert response.status_code == 302
    viewer.refresh_from_db()
    assert viewer.check_password("a-much-longer-secret-42")


def test_roles_stack_and_admin_has_all(db):
    team = team_get_or_create(name="Infra")
    facility = user_create(username="fay", password="x-pw-12345", role=Role.FACILITY, team=team)
    admin = user_create(username="ada", password="x-pw-12345", role=Role.ADMIN, team=team)
    assert roles_of(facility) == {"facility", "viewer"}
    assert roles_of(admin) == set(Role.values)


def test_token_is_shown_once_and_stored_hashed(client, viewer):
    client.force_login(viewer)
    client.post(reverse("accounts:token_new"), {"name": "procurement script"})
    first = client.get(reverse("accounts:profile"))
    key = first.context["new_key"]
    assert key and key.encode() in first.content
    token = ApiToken.objects.get(user=viewer)
    assert key not in (token.digest, token.prefix) and len(token.digest) == 64
    assert key.encode() not in client.get(reverse("accounts:profile")).content  # gone on reload


def test_token_revocation_from_the_profile(client, viewer):
    client.force_login(viewer)
    client.post(reverse("accounts:token_new"), {"name": "ci"})
    token = ApiToken.objects.get(user=viewer)
    client.post(reverse("accounts:token_revoke", args=[token.pk]))
    token.refresh_from_db()
    assert token.revoked_at is not None


def test_a_user_cannot_revoke_someone_elses_token(client, viewer):
    other = user_create(username="otto", password="pw-otto-123", role=Role.VIEWER)
    client.force_login(other)
    client.post(reverse("accounts:token_new"), {"name": "mine"})
    token = ApiToken.objects.get(user=other)
    client.force_login(viewer)
    client.post(reverse("accounts:token_revoke", args=[token.pk]))
    token.refresh_from_db()
    assert token.revoked_at is None


def test_token_without_a_name_is_refused(client, viewer):
    client.force_login(viewer)
    client.post(reverse("accounts:token_new"), {"name": "  "})
    assert not ApiToken.objects.exists()


def test_demo_users_print_their_passwords_once(capsys):
    call_command("setuproles")
    call_command("demousers")
    first = capsys.readouterr().out
    call_command("demousers")
    second = capsys.readouterr().out
    assert first.count("password") == 4 and "demo-facility" in first
    assert "password " not in second.replace("password was printed", "") and "exists" in second
