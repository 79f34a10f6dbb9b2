"""The calibration pages: who may read and upload, the upload form's errors beside the file
field, the team rule (another team's profile is a 404, the command's shared ones are seen by
all) and the detail page's table and chart data for the probe's H200 run
(tests/fixtures/h200-probe.json)."""

import json
import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from accounts.roles import Role
from planner.calibrations.forms import MAX_UPLOAD_BYTES
from planner.calibrations.services import calibration_create
from planner.models import CalibrationProfile

pytestmark = pytest.mark.django_db

PROBE_BYTES = (Path(__file__).resolve().parents[2] / "fixtures" / "h200-probe.json").read_bytes()
PROBE = json.loads(PROBE_BYTES)
LIST_URL = reverse("planner:calibration_list")


def upload(content: bytes, name: str = "probe.json") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="application/json")


def file_errors(html: str) -> str:
    match = re.search(r'id="errors-file">(.*?)</div>', html, re.S)
    assert match, "no error block beside the file field"
    return match.group(1)


def test_anonymous_visitors_are_sent_to_sign_in(loaded_catalog, cast):
    profile = calibration_create(probe=PROBE)
    anonymous = cast.browser("anonymous")
    for url in (LIST_URL, profile.get_absolute_url()):
        response = anonymous.get(url)
        assert response.status_code == 302
        assert reverse("accounts:login") in response["Location"]
    response = anonymous.post(LIST_URL, {"file": upload(PROBE_BYTES)})
    assert response.status_code == 302
    assert not CalibrationProfile.objects.exclude(pk=profile.pk).exists()


def test_viewer_reads_the_list_and_a_profile_but_may_not_upload(loaded_catalog, cast):
    profile = calibration_create(probe=PROBE)  # the command's: no team, seen by all
    viewer = cast.browser("viewer")
    page = viewer.get(LIST_URL)
    assert page.status_code == 200
    assert profile.name in page.content.decode()
    assert 'enctype="multipart/form-data"' not in page.content.decode()
    assert viewer.get(profile.get_absolute_url()).status_code == 200
    response = viewer.post(LIST_URL, {"file": upload(PROBE_BYTES)})
    assert response.status_code == 403
    assert CalibrationProfile.objects.count() == 1


@pytest.mark.parametrize("role", [Role.PLANNER, Role.ADMIN])
def test_planner_uploads_the_probe_and_lands_on_its_detail_page(loaded_catalog, cast, role):
    client = cast.browser(role)
    response = client.post(LIST_URL, {"file": upload(PROBE_BYTES), "name": "H200 lab run"})
    profile = CalibrationProfile.objects.get()
    assert response.status_code == 302
    assert response["Location"] == profile.get_absolute_url()
    assert profile.name == "H200 lab run"
    assert profile.team == cast[role].profile.team
    assert profile.created_by == cast[role]
    assert profile.accelerator.slug == "nvidia-h200-sxm-141gb"

    html = client.get(response["Location"]).content.decode()
    assert "580.159.04" in html  # driver
    assert "2.11.0+cu130" in html  # PyTorch
    assert reverse("catalog:accelerator_detail", args=[profile.accelerator.slug]) in html
    assert f'<code>"calibration": {profile.pk}</code>' in html
    table = re.search(r'<table class="data calibration-rows".*?</table>', html, re.S).group(0)
    # Every derived row is in the table: 6 matmul precisions, the memory copy, 2 training steps.
    assert table.count("<tr") - 1 == len(profile.derived["rows"]) == 9
    assert "778.99" in table  # the probe's bf16 TFLOP/s
    assert "989.4" in table  # the H200 SXM datasheet's dense bf16 peak
    assert "shown, not used" in table  # int8 reaches 6 % of its peak
    assert "reference step" in table

    data = json.loads(
        re.search(r'id="calibration-chart-data"[^>]*>(.*?)</script>', html, re.S).group(1)
    )
    assert data["matmul"]["labels"] == ["fp32", "tf32", "bf16", "fp16", "fp8", "int8"]
    assert data["matmul"]["measured"][2] == 778.99
    assert data["training"]["measured"] == [139353.4, 38043.1]
    assert len(data["training"]["calibrated"]) == 2
    assert 'id="calibration-chart-labels"' in html


def test_another_teams_profile_is_404_and_not_listed(loaded_catalog, cast):
    theirs = calibration_create(
        probe=PROBE, name="Their H200", user=cast.outsider, team=cast.other_team
    )
    shared = calibration_create(probe=PROBE, name="Shared H200")
    viewer = cast.browser("viewer")
    assert viewer.get(theirs.get_absolute_url()).status_code == 404
    assert viewer.get(shared.get_absolute_url()).status_code == 200
    listing = viewer.get(LIST_URL).content.decode()
    assert "Shared H200" in listing
    assert "Their H200" not in listing
    assert cast.browser("outsider").get(theirs.get_absolute_url()).status_code == 200


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not json at all", "This is not JSON"),
        (b"\xff\xfe binary", "This is not JSON"),
        (json.dumps({**PROBE, "schema": "other/2"}).encode(), "schema: must be"),
        (json.dumps({k: v for k, v in PROBE.items() if k != "matmul"}).encode(), "matmul:"),
        (json.dumps([1, 2]).encode(), "probe: must be the JSON object"),
    ],
)
def test_a_bad_upload_shows_the_message_beside_the_file_and_stores_nothing(
    loaded_catalog, cast, content, message
):
    response = cast.browser("planner").post(LIST_URL, {"file": upload(content)})
    assert response.status_code == 200
    assert message in file_errors(response.content.decode())
    assert not CalibrationProfile.objects.exists()


def test_a_file_over_2_mb_is_refused_before_it_is_read(loaded_catalog, cast):
    big = b" " * (MAX_UPLOAD_BYTES + 1)
    response = cast.browser("planner").post(LIST_URL, {"file": upload(big)})
    assert "at most 2.0" in file_errors(response.content.decode())
    assert not CalibrationProfile.objects.exists()


def test_a_device_outside_the_catalog_is_stored_without_factors(loaded_catalog, cast):
    mystery = {**PROBE, "device": {"name": "Mystery Accelerator 9000", "memory_gib": 64}}
    profile = calibration_create(probe=mystery)
    html = cast.browser("viewer").get(profile.get_absolute_url()).content.decode()
    assert "nothing was derived" in html
    assert "calibration-chart-data" not in html
    listing = cast.browser("viewer").get(LIST_URL).content.decode()
    assert "no catalog match" in listing
