"""Hostile JSON, refused the same way everywhere: every API operation that takes a JSON body
(listed from the OpenAPI document, so a new one is covered without a new test) and every
command that reads a JSON question (every subclass of JsonQuestionCommand) answer 5,000 levels
of nesting, a lone UTF-16 surrogate, a NUL character, NaN and a 5,000-digit integer with a 400 or
exit status 2 naming the problem: never a 500, never a traceback."""

import io
import re
import sys

import pytest
from django.core.management import get_commands, load_command_class
from django.urls import URLPattern, URLResolver, get_resolver

from config.json_input import MAX_DEPTH, JsonInputError, StrictJSONParser, loads
from planner.management.json_command import EXIT_BAD_INPUT, JsonQuestionCommand

# Each as the raw text a client would send, and the words the refusal must carry.
HOSTILE = {
    "deep": ("[" * 5000 + "]" * 5000, "nested more than"),
    "deep_in_a_field": ('{"task": ' + "[" * 5000 + "]" * 5000 + "}", "nested more than"),
    "lone_surrogate": ('{"task": "train", "model": "x\\ud800"}', "surrogate"),
    "nul": ('{"task": "train", "model": "x\\u0000y"}', "NUL"),
    "huge_integer": ('{"task": "train", "count": ' + "9" * 5000 + "}", "digits"),
    "nan": ('{"task": "train", "count": NaN}', "NaN"),
    "overflowing_float": ('{"task": "train", "tokens": 1e400}', "too large"),
}
# Where the refusal must point, for the cases that have a field.
FIELD = {
    "lone_surrogate": "model",
    "nul": "model",
    "huge_integer": "count",
    "nan": "count",
    "overflowing_float": "tokens",
}


# The reader itself -----------------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_the_reader_refuses_each_hostile_document_naming_the_problem(case):
    text, words = HOSTILE[case]
    with pytest.raises(JsonInputError, match=words) as caught:
        loads(text)
    if case in FIELD:
        assert caught.value.path == FIELD[case]


def test_the_reader_names_the_path_of_a_value_deep_inside():
    with pytest.raises(JsonInputError) as caught:
        loads('{"candidates": [{"estimate": {"model": "a"}}, {"estimate": {"model": "\\u0000"}}]}')
    assert caught.value.path == "candidates[1].estimate.model"


def test_the_reader_takes_ordinary_documents_and_depth_up_to_the_limit():
    assert loads('{"count": 8, "tokens": 1.4e12, "model": "llama \\u2013 3"}') == {
        "count": 8,
        "tokens": 1.4e12,
        "model": "llama \u2013 3",
    }
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    with pytest.raises(JsonInputError):
        loads("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))


def test_the_reader_refuses_bytes_that_are_not_utf8():
    with pytest.raises(JsonInputError, match="not UTF-8"):
        loads(b'{"model": "\xff"}')


# Every API operation ---------------------------------------------------------------------------


def _api_views(resolver=None):
    """Every DRF view class under the URL configuration."""
    for pattern in (resolver or get_resolver()).url_patterns:
        if isinstance(pattern, URLResolver):
            yield from _api_views(pattern)
        elif isinstance(pattern, URLPattern):
            view_class = getattr(pattern.callback, "cls", None)
            if view_class is not None:
                yield pattern, view_class


def test_every_api_view_reads_json_through_the_strict_parser():
    from rest_framework.parsers import JSONParser

    lax = [
        f"{pattern.pattern} {view_class.__name__}"
        for pattern, view_class in _api_views()
        for parser in view_class.parser_classes
        if issubclass(parser, JSONParser) and not issubclass(parser, StrictJSONParser)
    ]
    assert lax == []


def _json_operations():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" in content:
                yield method.upper(), path


JSON_OPERATIONS = sorted(_json_operations())


def test_the_schema_lists_the_json_operations_we_know_of():
    assert ("POST", "/api/v1/estimates/") in JSON_OPERATIONS
    assert ("POST", "/api/v1/simulations/") in JSON_OPERATIONS
    assert len(JSON_OPERATIONS) >= 8


def _url(path: str, ids: dict[str, int]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: str(ids.get(m.group(1), 1)), path)


@pytest.fixture
def ids(cast):
    """A row of each kind the paths name, owned by the admin's team, so an operation on one
    reaches its parser instead of answering 404."""
    from tests.factories import RackGroupFactory, SiteFactory

    site = SiteFactory(team=cast.team)
    group = RackGroupFactory(site=site)
    return {"id": site.pk, "site_pk": site.pk, "group_pk": group.pk}


@pytest.mark.django_db
@pytest.mark.parametrize("case", sorted(HOSTILE))
@pytest.mark.parametrize(("method", "path"), JSON_OPERATIONS)
def test_every_json_operation_answers_hostile_json_with_400(cast, ids, method, path, case):
    text, words = HOSTILE[case]
    response = cast.api("admin").generic(
        method, _url(path, ids), text, content_type="application/json"
    )
    assert response.status_code < 500, response.content[:300]
    if response.status_code == 400:
        assert words in response.content.decode("unicode_escape", "replace")


@pytest.mark.django_db
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_the_anonymous_estimate_answers_hostile_json_with_400(cast, case):
    text, words = HOSTILE[case]
    response = cast.api("anonymous").post(
        "/api/v1/estimates/", text, content_type="application/json"
    )
    assert response.status_code == 400
    body = response.json()
    key = FIELD.get(case, "request")
    assert key in body and words in body[key][0]


# Every command that reads a JSON question -------------------------------------------------------


def _json_commands():
    for name, app in sorted(get_commands().items()):
        if app.startswith("django") or app in {"rest_framework", "drf_spectacular"}:
            continue
        try:
            command = load_command_class(app, name)
        except ImportError:
            continue
        if isinstance(command, JsonQuestionCommand):
            yield name


JSON_COMMANDS = list(_json_commands())


def test_the_json_commands_are_found():
    assert {"estimate", "recommend", "simulate", "calibrate", "fit"} <= set(JSON_COMMANDS)


@pytest.mark.django_db
@pytest.mark.parametrize("case", sorted(HOSTILE))
@pytest.mark.parametrize("name", JSON_COMMANDS)
def test_every_json_command_refuses_hostile_json_in_one_line(tmp_path, name, case):
    from django.core.management import call_command

    text, words = HOSTILE[case]
    question = tmp_path / "question.json"
    question.write_text(text, encoding="utf-8")
    stderr = io.StringIO()
    with pytest.raises(SystemExit) as exited:
        call_command(name, str(question), stdout=io.StringIO(), stderr=stderr)
    assert exited.value.code == EXIT_BAD_INPUT
    line = stderr.getvalue().strip()
    assert "\n" not in line and words in line
    if case in FIELD:
        assert line.startswith(f"error: {FIELD[case]}:")


@pytest.mark.django_db
@pytest.mark.parametrize("name", JSON_COMMANDS)
def test_every_json_command_refuses_a_file_that_is_not_utf8_in_one_line(tmp_path, name):
    from django.core.management import call_command

    question = tmp_path / "question.json"
    question.write_bytes(b'{"task": "train", "model": "\xff\xfe"}')
    stderr = io.StringIO()
    with pytest.raises(SystemExit) as exited:
        call_command(name, str(question), stdout=io.StringIO(), stderr=stderr)
    assert exited.value.code == EXIT_BAD_INPUT
    assert "not UTF-8" in stderr.getvalue()


@pytest.mark.django_db
def test_a_command_reads_hostile_json_from_stdin_the_same_way(monkeypatch):
    from django.core.management import call_command

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(HOSTILE["deep"][0].encode())))
    stderr = io.StringIO()
    with pytest.raises(SystemExit) as exited:
        call_command("estimate", "-", stdout=io.StringIO(), stderr=stderr)
    assert exited.value.code == EXIT_BAD_INPUT
    assert "nested more than" in stderr.getvalue()
