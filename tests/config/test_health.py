"""/healthz and /readyz, answered to anonymous clients; failures are real refused connections."""

import json
import socket
import threading
import time

import pytest
from django.db import connection

from config.celery import app
from config.health import BROKER_TIMEOUT_S


def closed_port() -> int:
    """A loopback port nothing listens on: bound once to learn a free number, then released."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_healthz_answers_ok_without_login_or_a_database_query(client):
    # No django_db mark: pytest-django makes any query in this test raise.
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert "no-store" in response["Cache-Control"]


def test_healthz_accepts_only_reads(client):
    assert client.post("/healthz").status_code == 405


@pytest.mark.django_db
def test_readyz_answers_ok_when_the_database_and_broker_answer(client):
    response = client.get("/readyz")
    assert response.status_code == 200, response.content
    assert response.json() == {"status": "ok", "checks": {"database": "ok", "broker": "ok"}}
    assert "no-store" in response["Cache-Control"]


@pytest.mark.django_db
def test_readyz_names_the_broker_within_the_timeout_when_nothing_listens(client, monkeypatch):
    # Celery reads CELERY_BROKER_URL from the environment before its configuration.
    port = closed_port()
    monkeypatch.setenv("CELERY_BROKER_URL", f"redis://127.0.0.1:{port}/0")
    assert f":{port}/" in app.connection_for_write().as_uri()
    started = time.monotonic()
    response = client.get("/readyz")
    elapsed_s = time.monotonic() - started
    assert response.status_code == 503
    assert response.json() == {
        "status": "unavailable",
        "checks": {"database": "ok", "broker": "failed"},
    }
    assert elapsed_s < BROKER_TIMEOUT_S + 1


@pytest.fixture
def silent_broker():
    """A loopback port that accepts connections and never answers, as a stopped Redis does
    (its socket still accepts; the process does not reply)."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join(timeout=5)
    for conn in accepted:
        conn.close()
    server.close()


@pytest.mark.django_db
def test_readyz_gives_up_on_a_broker_that_never_answers_within_the_timeout(
    client, monkeypatch, silent_broker
):
    monkeypatch.setenv("CELERY_BROKER_URL", f"redis://127.0.0.1:{silent_broker}/0")
    started = time.monotonic()
    response = client.get("/readyz")
    elapsed_s = time.monotonic() - started
    assert response.status_code == 503
    assert response.json()["checks"] == {"database": "ok", "broker": "failed"}
    assert elapsed_s < BROKER_TIMEOUT_S + 1


@pytest.mark.django_db(transaction=True)
def test_readyz_names_the_database_when_it_refuses_connections(client):
    original = dict(connection.settings_dict)
    connection.close()
    if connection.vendor == "sqlite":
        connection.settings_dict["NAME"] = "/nonexistent-directory/flopfit.sqlite3"
    else:
        connection.settings_dict["HOST"] = "127.0.0.1"
        connection.settings_dict["PORT"] = closed_port()
    try:
        response = client.get("/readyz")
    finally:
        connection.close()
        connection.settings_dict.clear()
        connection.settings_dict.update(original)
    assert response.status_code == 503
    assert json.loads(response.content)["checks"] == {"database": "failed", "broker": "ok"}
    # The reason names internal hosts: it goes to the log, never to the public answer.
    assert b"nonexistent" not in response.content and b"127.0.0.1" not in response.content


def test_probes_are_not_part_of_the_api_schema(client):
    from drf_spectacular.generators import SchemaGenerator

    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    assert not {"/healthz", "/readyz", "/metrics"} & set(paths)
