"""The fault pages without JavaScript, in both languages: the guide and its search, the
diagnosis form posted plainly, a team's entries and incidents, and another team's as 404."""

import datetime as dt

import pytest
from django.urls import reverse

from planner.faults.services import fault_incident_create
from planner.models import FaultEntry
from tests.planner.faults.conftest import ILLEGAL_ACCESS, NOTHING, OOM, XID_79

pytestmark = pytest.mark.django_db


def test_the_guide_page_searches_in_both_languages_without_signing_in(cast, fault_guide):
    client = cast.browser("anonymous")
    page = client.get(reverse("planner:fault_list"), {"q": "fallen bus"})
    assert page.status_code == 200
    assert "Xid 79: GPU has fallen off the bus" in page.content.decode()
    chinese = client.get(
        reverse("planner:fault_list"), {"q": "掉线"}, HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert "Xid 79：GPU 从总线上掉线" in chinese.content.decode()  # noqa: RUF001


def test_a_plain_post_of_the_diagnosis_form_answers_the_whole_page(cast, fault_guide):
    client = cast.browser("anonymous")
    url = reverse("planner:fault_diagnose")
    page = client.post(url, {"text": f"{XID_79}\n{ILLEGAL_ACCESS}"}).content.decode()
    assert "<html" in page and 'id="match-1"' in page
    results = page[page.index('id="results"') :]
    assert results.index("Xid 79: GPU has fallen off the bus") < results.index(
        "illegal memory access"
    )
    nothing = client.post(url, {"text": NOTHING}).content.decode()
    assert 'id="no-match"' in nothing


def test_an_htmx_post_answers_the_results_alone(cast, fault_guide):
    response = cast.browser("viewer").post(
        reverse("planner:fault_diagnose"), {"text": OOM}, HTTP_HX_REQUEST="true"
    )
    body = response.content.decode()
    assert "<html" not in body and 'id="results"' in body
    assert "/estimate/" in body


def test_the_diagnosis_page_speaks_chinese(cast, fault_guide):
    page = cast.browser("viewer").post(
        reverse("planner:fault_diagnose"), {"text": OOM}, HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    body = page.content.decode()
    assert "CUDA 显存不足" in body and "减小 micro-batch" in body


def test_a_planner_adds_an_entry_through_the_form(cast, fault_guide):
    client = cast.browser("planner")
    response = client.post(
        reverse("planner:fault_create"),
        {
            "title_en": "Fabric manager down",
            "category": "interconnect",
            "patterns": "fabric manager",
            "weight": 60,
        },
    )
    entry = FaultEntry.objects.get(title_en="Fabric manager down")
    assert response.status_code == 302 and response.url == entry.get_absolute_url()
    assert entry.team == cast.team


def test_viewers_may_not_add_entries_or_incidents(cast, fault_guide):
    client = cast.browser("viewer")
    assert client.get(reverse("planner:fault_create")).status_code == 403
    assert client.get(reverse("planner:fault_incident_create")).status_code == 403


def test_another_teams_entry_and_incident_are_404(cast, team_entry):
    incident = fault_incident_create(
        team=cast.team,
        user=cast.planner,
        entry=team_entry,
        happened_on=dt.date(2026, 11, 2),
        what_happened="Checkpoint stalled 40 minutes",
    )
    outsider = cast.browser("outsider")
    for name, pk in [
        ("planner:fault_detail", team_entry.pk),
        ("planner:fault_edit", team_entry.pk),
        ("planner:fault_incident_detail", incident.pk),
        ("planner:fault_incident_edit", incident.pk),
    ]:
        assert outsider.get(reverse(name, args=[pk])).status_code == 404, name
    assert (
        "Checkpoint stalled"
        not in outsider.get(reverse("planner:fault_incident_list")).content.decode()
    )
    mine = cast.browser("viewer").get(reverse("planner:fault_detail", args=[team_entry.pk]))
    assert "Checkpoint stalled" in mine.content.decode()


def test_the_guide_is_read_only_on_the_pages(cast, fault_guide):
    guide = fault_guide["xid-79"]
    assert (
        cast.browser("planner").get(reverse("planner:fault_edit", args=[guide.pk])).status_code
        == 404
    )
