"""Who may see what: the login wall, roles, demo users and the profile page."""

import pytest
from django.core.management import call_command
from django.urls import reverse

from accounts.models import ApiToken
from accounts.roles import Role, roles_of
from tests.cast import PASSWORD

pytestmark = pytest.mark.django_db


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


def test_login_and_logout(client, cast):
    response = client.post(
        "/accounts/login/", {"username": cast.viewer.username, "password": PASSWORD}
    )
    assert response.status_code == 302
    assert client.get("/accounts/profile/").status_code == 200
    client.post("/accounts/logout/")
    assert client.get("/accounts/profile/").status_code == 302


def test_wrong_password_is_refused_with_a_message(client, cast):
    response = client.post(
        "/accounts/login/", {"username": cast.viewer.username, "password": "nope"}
    )
    assert response.status_code == 200
    assert response.context["form"].errors


def test_password_change(cast):
    response = cast.browser("viewer").post(
        "/accounts/password/",
        {
            "old_password": PASSWORD,
            "new_password1": "a-much-longer-secret-42",
            "new_password2": "a-much-longer-secret-42",
        },
    )
    assert response.status_code == 302
    cast.viewer.refresh_from_db()
    assert cast.viewer.check_password("a-much-longer-secret-42")


def test_roles_stack_and_admin_has_all(cast):
    assert roles_of(cast.facility) == {"facility", "viewer"}
    assert roles_of(cast.admin) == set(Role.values)


def test_token_is_shown_once_and_stored_hashed(cast):
    client = cast.browser("viewer")
    client.post(reverse("accounts:token_new"), {"name": "procurement script"})
    first = client.get(reverse("accounts:profile"))
    key = first.context["new_key"]
    assert key and key.encode() in first.content
    token = ApiToken.objects.get(user=cast.viewer)
    assert key not in (token.digest, token.prefix) and len(token.digest) == 64
    assert key.encode() not in client.get(reverse("accounts:profile")).content  # gone on reload


def test_token_revocation_from_the_profile(cast):
    client = cast.browser("viewer")
    client.post(reverse("accounts:token_new"), {"name": "ci"})
    token = ApiToken.objects.get(user=cast.viewer)
    client.post(reverse("accounts:token_revoke", args=[token.pk]))
    token.refresh_from_db()
    assert token.revoked_at is not None


def test_a_user_cannot_revoke_someone_elses_token(cast):
    cast.browser("outsider").post(reverse("accounts:token_new"), {"name": "mine"})
    token = ApiToken.objects.get(user=cast.outsider)
    cast.browser("viewer").post(reverse("accounts:token_revoke", args=[token.pk]))
    token.refresh_from_db()
    assert token.revoked_at is None


def test_token_without_a_name_is_refused(cast):
    cast.browser("viewer").post(reverse("accounts:token_new"), {"name": "  "})
    assert not ApiToken.objects.exists()


def test_demo_users_print_their_passwords_once(capsys):
    call_command("setuproles")
    call_command("demousers")
    first = capsys.readouterr().out
    call_command("demousers")
    second = capsys.readouterr().out
    assert first.count("password") == 4 and "demo-facility" in first
    assert "password " not in second.replace("password was printed", "") and "exists" in second
