"""API tokens: `Authorization: Token <key>` signs a request, only a digest of the key is kept,
and CSRF protects session requests but is not asked of token requests."""

import hashlib

import pytest
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.services import token_create, token_revoke

pytestmark = pytest.mark.django_db

SITES = "/api/v1/sites/"
NEW_SITE = {"name": "Hall T", "electricity_price_per_kwh": "0.5", "pue": 1.25}


def signed(key: str, *, enforce_csrf_checks: bool = False) -> APIClient:
    client = APIClient(enforce_csrf_checks=enforce_csrf_checks)
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_a_token_authenticates_its_user_and_records_its_use(cast):
    token, key = token_create(user=cast.facility, name="procurement script")
    assert token.last_used_at is None
    response = signed(key).get(SITES)
    assert response.status_code == 200
    assert response.wsgi_request.user == cast.facility
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
def test_a_wrong_or_malformed_key_is_401(cast, header):
    token_create(user=cast.facility, name="script")
    response = APIClient().get(SITES, HTTP_AUTHORIZATION=header)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"


def test_a_key_with_the_right_prefix_but_wrong_rest_is_401(cast):
    _, key = token_create(user=cast.facility, name="script")
    forged = key[:12] + ("A" if key[12] != "A" else "B") + key[13:]
    assert signed(forged).get(SITES).status_code == 401


def test_a_revoked_token_is_401(cast):
    token, key = token_create(user=cast.facility, name="script")
    assert signed(key).get(SITES).status_code == 200
    assert token_revoke(user=cast.facility, token_id=token.pk)
    assert signed(key).get(SITES).status_code == 401


def test_a_token_of_a_deactivated_user_is_401(cast):
    _, key = token_create(user=cast.facility, name="script")
    cast.facility.is_active = False
    cast.facility.save()
    assert signed(key).get(SITES).status_code == 401


def test_only_the_sha256_digest_of_the_key_is_stored(cast):
    token, key = token_create(user=cast.facility, name="script")
    row = ApiToken.objects.filter(pk=token.pk).values().get()
    assert row["digest"] == hashlib.sha256(key.encode()).hexdigest()
    assert all(key not in str(value) for value in row.values())
    assert row["prefix"] == key[:12]  # enough to find the row, too little to sign with


def test_token_requests_need_no_csrf_token(cast):
    _, key = token_create(user=cast.facility, name="script")
    response = signed(key, enforce_csrf_checks=True).post(SITES, NEW_SITE, format="json")
    assert response.status_code == 201


def test_session_requests_must_carry_a_csrf_token_to_write(cast):
    browser = cast.browser("facility", enforce_csrf_checks=True)
    assert browser.get(SITES).status_code == 200  # the session does sign the user in
    response = browser.post(SITES, NEW_SITE, content_type="application/json")
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]
    assert not cast.team.sites.exists()
