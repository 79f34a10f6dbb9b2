"""Pulling NetBox live through pynetbox, against recorded API answers: no NetBox runs here, and
the tests reach no network."""

import json
from io import StringIO

import pytest
import requests
from django.core.management import call_command
from django.core.management.base import CommandError

from planner.models import Equipment, PowerFeed, Site
from planner.netbox.live import NetboxUnreachable, netbox_pull
from planner.netbox.services import netbox_import
from tests.planner.netbox.conftest import FIXTURES, NEW_SITES

NETBOX = "https://netbox.example.com"


class RecordedNetbox(requests.adapters.BaseAdapter):
    """Answers /api/dcim/<endpoint>/ from tests/planner/netbox/fixtures/api/<endpoint>.json, and
    NetBox's API root with its version header; remembers what was asked and with which token."""

    def __init__(self, status: int = 200):
        super().__init__()
        self.status = status
        self.asked: list[tuple[str, str]] = []

    def send(self, request, **kwargs):
        path = requests.utils.urlparse(request.url).path
        self.asked.append((path, request.headers.get("Authorization", "")))
        response = requests.Response()
        response.status_code, response.url, response.request = self.status, request.url, request
        response.headers["API-Version"] = "4.4"
        response.headers["Content-Type"] = "application/json"
        endpoint = path.removeprefix("/api/dcim/").strip("/")
        recorded = FIXTURES / "api" / f"{endpoint}.json"
        body = json.loads(recorded.read_text()) if recorded.exists() and path != "/api/" else {}
        if self.status != 200:
            body = {"detail": "Invalid token"}
        response._content = json.dumps(body).encode()
        return response

    def close(self):
        pass


def session(adapter: RecordedNetbox) -> requests.Session:
    http = requests.Session()
    http.mount("https://", adapter)
    return http


def test_a_live_pull_reads_every_endpoint_with_the_token():
    adapter = RecordedNetbox()
    files = netbox_pull(url=NETBOX, token="0123abcd", session=session(adapter))
    assert [f.name for f in files] == [
        "sites.json", "racks.json", "power-panels.json", "power-feeds.json",
        "device-types.json", "devices.json", "power-ports.json",
    ]  # fmt: skip
    dcim = [(path, auth) for path, auth in adapter.asked if path.startswith("/api/dcim/")]
    assert [path for path, _auth in dcim][:2] == ["/api/dcim/sites/", "/api/dcim/racks/"]
    assert {auth for _path, auth in dcim} <= {"Token 0123abcd", "Bearer 0123abcd"}


@pytest.mark.django_db
def test_what_a_live_pull_brings_imports_as_the_saved_answers_do(cast):
    files = netbox_pull(url=NETBOX, token="0123abcd", session=session(RecordedNetbox()))
    result = netbox_import(user=cast.facility, files=files, options=NEW_SITES)
    assert result.counts["created"] == 8
    site = Site.objects.get(team=cast.team, name="DC2")
    assert PowerFeed.objects.filter(rack__rack_group__site=site).count() == 2
    assert Equipment.objects.get(name="gpu-b01-1").nameplate_kw == 4.0


def test_a_refused_token_is_said_plainly():
    with pytest.raises(NetboxUnreachable, match="/api/dcim/sites/"):
        netbox_pull(url=NETBOX, token="wrong", session=session(RecordedNetbox(status=403)))


@pytest.mark.django_db
def test_the_command_pulls_live_with_url_and_token(cast, monkeypatch):
    adapter = RecordedNetbox()
    monkeypatch.setattr("planner.netbox.live._Session", lambda: session(adapter))
    out = StringIO()
    call_command(
        "netbox_import", "--url", NETBOX, "--token", "0123abcd", "--user", cast.facility.username,
        "--pue", "1.3", "--price-per-kwh", "0.65", "--format", "json", stdout=out,
    )  # fmt: skip
    assert json.loads(out.getvalue())["counts"]["created"] == 8
    assert "/api/dcim/power-feeds/" in [path for path, _auth in adapter.asked]


@pytest.mark.django_db
def test_the_command_asks_for_a_token_with_a_url(cast, monkeypatch):
    monkeypatch.delenv("NETBOX_TOKEN", raising=False)
    with pytest.raises(CommandError, match="--token"):
        call_command(
            "netbox_import", "--url", NETBOX, "--token", "", "--user", cast.facility.username
        )
