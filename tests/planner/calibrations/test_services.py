"""Calibration from the probe's H200 run (tests/fixtures/h200-probe.json)."""

import copy
import io
import json
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.utils import translation

from planner.calibrations.services import calibration_create, match_accelerator
from planner.engine import RequestError
from planner.engine.calibrate import predicted_tokens_per_s
from planner.estimates.services import estimate_run
from planner.models import CalibrationProfile

pytestmark = pytest.mark.django_db

PROBE = json.loads(
    (Path(__file__).resolve().parents[2] / "fixtures" / "h200-probe.json").read_text()
)


def test_the_probe_device_matches_the_h200_sxm(loaded_catalog):
    assert match_accelerator(PROBE["device"]).slug == "nvidia-h200-sxm-141gb"
    nvl = {**PROBE["device"], "name": "NVIDIA H200 NVL", "power.limit": "600.00"}
    assert match_accelerator(nvl).slug == "nvidia-h200-nvl-141gb"
    assert match_accelerator({"name": "Mystery Accelerator 9000", "memory_gib": 64}) is None


def test_calibration_from_one_step_predicts_the_other_within_10_percent(loaded_catalog):
    """The end-to-end factor comes from the 'small' step only; the 'medium' step, another
    model size measured in the same run, checks it."""
    profile = calibration_create(probe=PROBE)
    from planner.adapters import accelerator_spec
    from planner.calibrations.services import calibration_spec

    spec = calibration_spec(profile)
    card = accelerator_spec(profile.accelerator)
    small, medium = PROBE["training"]
    assert small["name"] == "small" and medium["name"] == "medium"
    default_error = abs(predicted_tokens_per_s(medium, card) / medium["tokens_per_s"] - 1)
    calibrated_error = abs(predicted_tokens_per_s(medium, card, spec) / medium["tokens_per_s"] - 1)
    assert calibrated_error < 0.10
    assert default_error > calibrated_error
    assert default_error > 0.10  # the datasheet-and-defaults engine misses this card by more


def test_derived_factors_are_measured_shares_of_the_datasheet(loaded_catalog):
    profile = calibration_create(probe=PROBE)
    factors = profile.derived["calibration"]
    assert factors["gemm_efficiency"]["bf16"] == pytest.approx(778.99 / 989.4, abs=1e-3)
    assert factors["memory_bw_efficiency"] == pytest.approx(4220.9 / 4800, abs=1e-3)
    # PyTorch's int8 matmul reaches 6 % of the peak: shown, not used.
    assert "int8" not in factors["gemm_efficiency"]
    int8 = next(r for r in profile.derived["rows"] if r["figure"].startswith("int8"))
    assert int8["used"] is False


def test_an_estimate_with_a_profile_says_what_was_measured(loaded_catalog):
    profile = calibration_create(probe=PROBE)
    question = {
        "task": "train",
        "model": "meta-llama-3-8b",
        "accelerator": "nvidia-h200-sxm-141gb",
        "count": 8,
        "tokens": 1e10,
    }
    plain = estimate_run(data=question)
    calibrated = estimate_run(data={**question, "calibration": profile.pk})
    assert "calibration" not in plain
    assert calibrated["calibration"]["profile"] == profile.name
    assert "end-to-end step efficiency" in calibrated["calibration"]["measured"]
    assert calibrated["throughput"]["tokens_per_s"] != plain["throughput"]["tokens_per_s"]


def test_a_profile_measured_on_another_card_is_refused(loaded_catalog):
    profile = calibration_create(probe=PROBE)
    with pytest.raises(RequestError) as excinfo:
        estimate_run(
            data={
                "task": "train",
                "model": "meta-llama-3-8b",
                "accelerator": "nvidia-a100-sxm4-80gb",
                "count": 8,
                "calibration": profile.pk,
            }
        )
    assert excinfo.value.field == "calibration" and "nvidia-h200-sxm-141gb" in excinfo.value.message


def test_an_unknown_device_is_stored_without_factors(loaded_catalog):
    probe = copy.deepcopy(PROBE)
    probe["device"]["name"] = "Mystery Accelerator 9000"
    profile = calibration_create(probe=probe)
    assert profile.accelerator is None and profile.derived is None


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"schema": "other/2"}, "schema"),
        ({"device": {}}, "device.name"),
        ({"matmul": None}, "matmul"),
        ({"training": [{"name": "x", "layers": -1}]}, "training[0].layers"),
    ],
)
def test_a_bad_report_names_the_field_and_stores_nothing(loaded_catalog, change, field):
    with pytest.raises(RequestError) as excinfo:
        calibration_create(probe={**PROBE, **change})
    assert excinfo.value.field == field
    assert not CalibrationProfile.objects.exists()


def test_calibrate_command_stores_and_prints(loaded_catalog, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(PROBE)))
    call_command("calibrate", "-", format="table")
    out = capsys.readouterr().out
    assert "nvidia-h200-sxm-141gb" in out and "calibrated" in out
    assert CalibrationProfile.objects.count() == 1


def test_an_estimate_uses_only_profiles_its_caller_may_see(loaded_catalog, cast):
    owner, outsider = cast.planner, cast.outsider
    profile = calibration_create(probe=PROBE, user=owner, team=cast.team)
    question = {
        "task": "train",
        "model": "meta-llama-3-8b",
        "accelerator": "nvidia-h200-sxm-141gb",
        "count": 8,
        "calibration": profile.pk,
    }
    assert estimate_run(data=question, user=owner)["calibration"]["profile"] == profile.name
    with pytest.raises(RequestError) as excinfo:
        estimate_run(data=question, user=outsider)
    assert excinfo.value.field == "calibration"


def test_a_planner_outside_every_team_cannot_upload(client, loaded_catalog):
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from accounts.services import roles_ensure

    roles_ensure()
    loner = get_user_model().objects.create_user(username="lone", password="pw-lone-12345")
    loner.groups.add(Group.objects.get(name="planner"))
    client.force_login(loner)
    upload = io.BytesIO(json.dumps(PROBE).encode())
    upload.name = "probe.json"
    assert client.post("/calibrations/", {"file": upload}).status_code == 403
    refused = client.post(
        "/api/v1/calibrations/",
        PROBE,
        content_type="application/json",
        headers={"Accept-Language": "zh-hans"},
    )
    assert refused.status_code == 403
    # In the reader's language, as every refusal is.
    english = "Your account belongs to no team; ask an admin."
    with translation.override("zh-hans"):
        chinese = translation.gettext(english)
    assert refused.json()["detail"] == chinese != english
    assert not CalibrationProfile.objects.exists()
