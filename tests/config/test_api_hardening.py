"""The API under hostile input: lists capped at 200 a page, throttling per user and per
address with 429 and Retry-After, bodies capped with 413, database refusals answered 400 or
409, and every operation's error responses in the OpenAPI document."""

import io
import json
from pathlib import Path

import pytest
import redis
import yaml
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.db import DataError, IntegrityError, close_old_connections
from django.test import override_settings
from django.urls import reverse
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from config.exceptions import api_exception_handler
from config.wsgi import application
from tests.factories import AcceleratorFactory, RackGroupFactory, SiteFactory

pytestmark = pytest.mark.django_db

REDIS_CACHE_URL = "redis://127.0.0.1:6379/9"
ESTIMATE = "/api/v1/estimates/"


@pytest.fixture(scope="module")
def schema() -> dict:
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


def operations(schema: dict):
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            yield path, method.upper(), operation


# Pagination -----------------------------------------------------------------------------------


def test_a_huge_page_size_yields_at_most_200_items(client):
    AcceleratorFactory.create_batch(205)
    body = client.get("/api/v1/accelerators/", {"page_size": 100000}).json()
    assert body["count"] == 205
    assert len(body["results"]) == 200


@pytest.mark.parametrize("page_size", ["0", "-3", "ten", "1.5", "null"])
def test_a_page_size_that_is_not_a_whole_number_is_400_naming_it(client, page_size):
    response = client.get("/api/v1/fabrics/", {"page_size": page_size})
    assert response.status_code == 400
    assert "page_size" in response.json()


def test_every_list_operation_in_the_schema_is_paginated(schema):
    unpaginated = []
    for path, method, operation in operations(schema):
        ok = operation["responses"].get("200", {}).get("content", {}).get("application/json")
        if method != "GET" or ok is None:
            continue
        body = ok["schema"]
        if "$ref" in body:
            body = schema["components"]["schemas"][body["$ref"].rsplit("/", 1)[1]]
        if body.get("type") == "array":
            unpaginated.append(f"{method} {path}")
        elif "results" in body.get("properties", {}):
            names = {p["name"] for p in operation.get("parameters", [])}
            assert {"page", "page_size"} <= names, f"{method} {path}"
    assert unpaginated == []


# Throttling -----------------------------------------------------------------------------------


@pytest.fixture
def redis_cache():
    """The shared cache on a real Redis (database 9), emptied before and after."""
    try:
        redis.Redis.from_url(REDIS_CACHE_URL, socket_connect_timeout=0.5).ping()
    except redis.exceptions.ConnectionError:
        from tests.conftest import require_or_skip

        require_or_skip("Redis is not answering on 127.0.0.1:6379")
    caches = {
        "default": {"BACKEND": "config.cache.FailOpenRedisCache", "LOCATION": REDIS_CACHE_URL}
    }
    with override_settings(CACHES=caches):
        cache.clear()
        yield cache
        cache.clear()


@pytest.fixture
def low_rates(monkeypatch):
    # DRF reads the rates once, at import; the class attribute is what the throttles consult.
    monkeypatch.setattr(
        SimpleRateThrottle,
        "THROTTLE_RATES",
        {"anon": "3/min", "user": "3/min", "compute": "2/min"},
    )


def _assert_throttled(response):
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    assert "throttled" in response.json()["detail"]


def test_anonymous_requests_are_throttled_per_address(redis_cache, low_rates):
    client = APIClient()
    for _ in range(3):
        assert client.get("/api/v1/fabrics/", REMOTE_ADDR="10.0.0.1").status_code == 200
    _assert_throttled(client.get("/api/v1/fabrics/", REMOTE_ADDR="10.0.0.1"))
    # Another address has its own bucket.
    assert client.get("/api/v1/fabrics/", REMOTE_ADDR="10.0.0.2").status_code == 200


def test_each_user_has_a_bucket_of_their_own(redis_cache, low_rates, cast):
    first_api, second_api = cast.api("viewer"), cast.api("planner")
    for _ in range(3):
        assert first_api.get("/api/v1/sites/").status_code == 200
    _assert_throttled(first_api.get("/api/v1/sites/"))
    assert second_api.get("/api/v1/sites/").status_code == 200


def test_expensive_writes_have_a_tighter_rate_than_reads(
    redis_cache, low_rates, loaded_catalog, cast
):
    planner = cast.api("planner")
    question = {"task": "inference", "model": "meta-llama-3-8b"}
    question |= {"accelerator": "nvidia-h100-sxm5-80gb", "count": 1}
    for _ in range(2):
        assert planner.post(ESTIMATE, question, format="json").status_code == 200
    _assert_throttled(planner.post(ESTIMATE, question, format="json"))


@override_settings(CACHES={"default": {"BACKEND": "config.cache.FailOpenRedisCache",
                                       "LOCATION": "redis://127.0.0.1:1/0"}})  # fmt: skip
def test_throttling_lets_requests_through_while_the_cache_is_down(low_rates):
    client = APIClient()
    for _ in range(5):
        assert client.get("/api/v1/fabrics/").status_code == 200


# Body size ------------------------------------------------------------------------------------


@override_settings(FLOPFIT_MAX_BODY_BYTES=1000)
def test_a_body_over_the_cap_is_413_with_a_json_detail(client):
    response = client.post(ESTIMATE, {"notes": "x" * 2000}, content_type="application/json")
    assert response.status_code == 413
    assert "1000 bytes" in response.json()["detail"]


def _chunked_environ(body: bytes) -> dict:
    """A request as gunicorn hands over a chunked upload: no Content-Length, the stream
    already ended at the body's end."""
    return {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": ESTIMATE,
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "CONTENT_TYPE": "application/json",
        "HTTP_TRANSFER_ENCODING": "chunked",
        "wsgi.input": io.BytesIO(body),
        "wsgi.input_terminated": True,
        "wsgi.url_scheme": "http",
        "wsgi.errors": io.StringIO(),
    }


def _call(environ: dict) -> tuple[str, bytes]:
    answer = {}

    def start_response(status, headers, exc_info=None):
        answer["status"] = status

    body = b"".join(application(environ, start_response))
    return answer["status"], body


@override_settings(FLOPFIT_MAX_BODY_BYTES=1000)
def test_a_chunked_body_that_reads_longer_than_the_cap_is_413():
    status, body = _call(_chunked_environ(json.dumps({"notes": "x" * 2000}).encode()))
    assert status.startswith("413")
    assert "detail" in json.loads(body)


@pytest.fixture
def connection_kept_open():
    """As Django's test client does: the request's end must not close the test's connection."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def test_a_chunked_body_within_the_cap_reaches_the_view(loaded_catalog, connection_kept_open):
    question = {"task": "inference", "model": "no-such-model"}
    question |= {"accelerator": "nvidia-h100-sxm5-80gb", "count": 1}
    status, body = _call(_chunked_environ(json.dumps(question).encode()))
    # The view read the body: it names the unknown model rather than a missing task.
    assert status.startswith("400")
    assert "model" in json.loads(body)


def test_forms_outside_the_api_refuse_a_body_over_the_same_cap(client, settings):
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE == settings.FLOPFIT_MAX_BODY_BYTES
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE >= 256 * 1024  # rack CSV imports fit
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = client.post(reverse("accounts:login"), {"username": "x" * 2000})
    assert response.status_code == 400


def test_an_unknown_api_url_is_a_json_404(client):
    response = client.get("/api/v1/accelerators/%C2%84/")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not Found"}


# Database refusals ----------------------------------------------------------------------------


class _Failing(APIView):
    def __init__(self, exc):
        super().__init__()
        self.exc = exc


@pytest.mark.parametrize(
    ("exc", "status"),
    [
        (IntegrityError("duplicate key value violates unique constraint"), 409),
        (DataError("integer out of range"), 400),
        (ValueError("A string literal cannot contain NUL (0x00) characters."), 400),
    ],
)
def test_database_refusals_are_answered_with_a_json_detail(exc, status, caplog):
    response = api_exception_handler(exc, {"view": _Failing(exc)})
    assert response.status_code == status
    assert set(response.data) == {"detail"}
    assert "_Failing" in caplog.text


def test_any_other_error_is_left_a_500(caplog):
    assert api_exception_handler(ValueError("a bug"), {"view": None}) is None


def test_a_huge_integer_filter_is_400_naming_it(client):
    response = client.get("/api/v1/models/", {"params_min": "9" * 30})
    assert response.status_code == 400
    assert "params_min" in response.json()


def test_a_huge_site_filter_on_rack_groups_is_400_naming_it(cast):
    viewer = cast.api("viewer")
    response = viewer.get("/api/v1/rack-groups/", {"site": "99999999999999999999"})
    assert response.status_code == 400
    assert "site" in response.json()


def test_a_nul_character_in_a_calibration_name_never_reaches_the_database(loaded_catalog, cast):
    planner = cast.api("planner")
    probe = json.loads((Path(__file__).parents[1] / "fixtures" / "h200-probe.json").read_text())
    response = planner.post("/api/v1/calibrations/?name=a%00b", probe, format="json")
    assert response.status_code == 400
    assert "name" in response.json()


def test_a_boolean_filter_refuses_anything_but_true_or_false(client):
    assert client.get("/api/v1/models/", {"moe": "null"}).status_code == 400
    assert client.get("/api/v1/models/", {"moe": "true"}).status_code == 200


def test_the_rack_group_list_answers_with_data_present(cast):
    RackGroupFactory(site=SiteFactory(team=cast.team))
    admin = cast.api("admin")
    assert admin.get("/api/v1/rack-groups/", {"liquid_loops": "false"}).json()["count"] == 1


# The OpenAPI document -------------------------------------------------------------------------


def test_every_operation_documents_429_with_retry_after(schema):
    for path, method, operation in operations(schema):
        throttled = operation["responses"].get("429")
        assert throttled is not None, f"{method} {path}"
        assert "Retry-After" in throttled["headers"], f"{method} {path}"


def test_every_operation_documents_the_errors_its_view_can_give(schema):
    for path, method, operation in operations(schema):
        codes = set(operation["responses"])
        label = f"{method} {path}"
        assert "401" in codes, label  # a wrong token is refused everywhere
        if "{" in path:
            assert "404" in codes, label
        if method in {"POST", "PUT", "PATCH"}:
            assert {"400", "413", "415"} <= codes, label
        if any(p["in"] == "query" for p in operation.get("parameters", [])):
            assert "400" in codes, label
        if operation.get("security") and {} not in operation["security"]:
            assert "403" in codes, label


def test_the_schema_served_lists_the_error_responses(client):
    served = yaml.safe_load(client.get(reverse("schema")).content)
    assert "429" in served["paths"]["/api/v1/accelerators/"]["get"]["responses"]
