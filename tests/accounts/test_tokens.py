"""API tokens: `Authorization: Token <key>` signs a request, only a digest of the key is kept,
and CSRF protects session requests but is not asked of token requests."""

import hashlib

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.roles import Role
from accounts.services import token_create, token_revoke
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

SITES = "/api/v1/sites/"
NEW_SITE = {"name": "Hall T", "electricity_price_per_kwh": "0.5", "pue": 1.25}


@pytest.fixture
def facility_user():
    return UserFactory(username="fran", role=Role.FACILITY)


def signed(key: str, *, enforce_csrf_checks: bool = False) -> APIClient:
    client = APIClient(enforce_csrf_checks=enforce_csrf_checks)
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_a_token_authenticates_its_user_and_records_its_use(facility_user):
    token, key = token_create(user=facility_user, name="procurement script")
    assert token.last_used_at is None
    response = signed(key).get(SITES)
    assert response.status_code == 200
    assert response.wsgi_request.user == facility_user
    token.refresh_from_db()
    assert token.last_used_at is not None


@pytest.mark.parametrize(
    "header",
    [
        "Token wrong-key",
        "Token ",  # no key at all
        "Token two words",
    ],
)
def test_a_wrong_or_malformed_key_is_401(facility_user, header):
    token_create(user=facility_user, name="script")
    response = APIClient().get(SITES, HTTP_AUTHORIZATION=header)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"


def test_a_key_with_the_right_prefix_but_wrong_rest_is_401(facility_user):
    _, key = token_create(user=facility_user, name="script")
    forged = key[:12] + ("A" if key[12] != "A" else "B") + key[13:]
    assert signed(forged).get(SITES).status_code == 401


def test_a_revoked_token_is_401(facility_user):
    token, key = token_create(user=facility_user, name="script")
    assert signed(key).get(SITES).status_code == 200
    assert token_revoke(user=facility_user, token_id=token.pk)
    assert signed(key).get(SITES).status_code == 401


def test_a_token_of_a_deactivated_user_is_401(facility_user):
    _, key = token_create(user=facility_user, name="script")
    facility_user.is_active = False
    facility_user.save()
    assert signed(key).get(SITES).status_code == 401


def test_only_the_sha256_digest_of_the_key_is_stored(facility_user):
    token, key = token_create(user=facility_user, name="script")
    row = ApiToken.objects.filter(pk=token.pk).values().get()
    assert row["digest"] == hashlib.sha256(key.encode()).hexdigest()
    assert all(key not in str(value) for value in row.values())
    assert row["prefix"] == key[:12]  # enough to find the row, too little to sign with


def test_token_requests_need_no_csrf_token(facility_user):
    _, key = token_create(user=facility_user, name="script")
    response = signed(key, enforce_csrf_checks=True).post(SITES, NEW_SITE, format="json")
    assert response.status_code == 201


def test_session_requests_must_carry_a_csrf_token_to_write(facility_user):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(facility_user)
    assert browser.get(SITES).status_code == 200  # the session does sign the user in
    response = browser.post(SITES, NEW_SITE, content_type="application/json")
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]
    assert not facility_user.profile.team.sites.exists()
