"""Pulling NetBox live: the same REST API answers a person would save by hand, fetched through
pynetbox with a URL and an API token, and handed to the import as files."""

from __future__ import annotations

import json
from typing import Any

import pynetbox
import requests

from planner.netbox.readers import NetboxFile

# What the import reads, by NetBox's REST API endpoint (/api/dcim/<name>/) and pynetbox's name.
ENDPOINTS = (
    ("sites", "sites"),
    ("racks", "racks"),
    ("power-panels", "power_panels"),
    ("power-feeds", "power_feeds"),
    ("device-types", "device_types"),
    ("devices", "devices"),
    ("power-ports", "power_ports"),
)
# A NetBox that does not answer within this long is down, not slow (seconds).
TIMEOUT_S = 30


class NetboxUnreachable(Exception):
    """NetBox did not answer, refused the token, or answered something else than its API."""


class _Session(requests.Session):
    """pynetbox's session, with a timeout on every request."""

    def request(self, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", TIMEOUT_S)
        return super().request(*args, **kwargs)


def netbox_pull(
    *, url: str, token: str, session: requests.Session | None = None
) -> list[NetboxFile]:
    """Every page of each endpoint the import reads, one JSON file per endpoint, as a page of
    `results` saved from the API. `session` is the HTTP session pynetbox uses (tests give one
    that answers recorded API JSON)."""
    api = pynetbox.api(url, token=token)
    api.http_session = session or _Session()
    files = []
    for name, attribute in ENDPOINTS:
        try:
            results = [dict(record) for record in getattr(api.dcim, attribute).all()]
        except (pynetbox.RequestError, pynetbox.ContentError, requests.RequestException) as exc:
            raise NetboxUnreachable(f"{url} /api/dcim/{name}/: {exc}") from None
        text = json.dumps({"count": len(results), "results": results}, indent=1, default=str)
        files.append(NetboxFile(f"{name}.json", text.encode()))
    return files
