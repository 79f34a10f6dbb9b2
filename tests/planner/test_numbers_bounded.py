"""Numbers that used to pass unchecked: a probe report with a negative multiprocessor count, a
rack of 1e308 kW, and null for a key whose default is a value (servers, trials) are refused
naming the field, with the bound in the message; null still means "left out" for a key that
is optional. Through the API, as any caller would send them."""

import copy
import json
from pathlib import Path

import pytest

from planner.engine.contract import calibration

pytestmark = pytest.mark.django_db

PROBE = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures" / "h200-probe.json").read_text()
)
RACK = {"power_kw": 15, "cooling_kw": 15, "units": 42, "max_kg": 1200}
TRAINING = {
    "kind": "training",
    "estimate": {
        "task": "train",
        "model": "meta-llama-3-8b",
        "accelerator": "nvidia-h100-sxm5-80gb",
        "count": 64,
        "tokens": 1e11,
    },
    "trials": 200,
}


def _probe(**device):
    report = copy.deepcopy(PROBE)
    report["device"].update(device)
    return report


@pytest.mark.parametrize(
    ("report", "field", "words"),
    [
        (_probe(multiprocessors=-132), "device.multiprocessors", "at least 1"),
        (_probe(multiprocessors=1e6), "device.multiprocessors", "at most"),
        (_probe(count=0), "device.count", "at least 1"),
        (_probe(memory_gib=1e308), "device.memory_gib", "at most"),
        ({**PROBE, "memory": {"d2d_gb_s": -5}}, "memory.d2d_gb_s", "greater than 0"),
        (
            {**PROBE, "matmul": {"bf16": {"tflops": 1e300}}},
            "matmul.bf16.tflops",
            f"{calibration.MAX_MEASURED:g}",
        ),
    ],
)
def test_a_probe_report_out_of_bounds_is_400_naming_the_field(cast, report, field, words):
    response = cast.api("planner").post("/api/v1/calibrations/", report, format="json")
    assert response.status_code == 400, response.content
    body = response.json()
    assert field in body and words in body[field][0]


def test_a_rack_of_1e308_kw_is_400_with_the_bound(cast, loaded_catalog):
    question = {"rack": {**RACK, "power_kw": 1e308}, "server": "nvidia-dgx-a100"}
    response = cast.api("planner").post("/api/v1/fit/", question, format="json")
    assert response.status_code == 400
    assert "at most" in response.json()["rack.power_kw"][0]


def test_null_servers_is_400_not_the_default(cast, loaded_catalog):
    question = {"rack": RACK, "server": "nvidia-dgx-a100", "servers": None}
    response = cast.api("planner").post("/api/v1/fit/", question, format="json")
    assert response.status_code == 400
    assert "servers" in response.json()


def test_null_trials_is_400_not_the_default(cast, loaded_catalog):
    response = cast.api("planner").post(
        "/api/v1/simulations/", {**TRAINING, "trials": None}, format="json"
    )
    assert response.status_code == 400
    assert "trials" in response.json()


def test_null_for_an_optional_key_still_means_its_default(cast, loaded_catalog):
    question = {"rack": RACK, "server": "nvidia-dgx-a100", "accelerator": None}
    assert cast.api("planner").post("/api/v1/fit/", question, format="json").status_code == 200


def test_null_for_a_required_key_still_reads_as_missing(cast, loaded_catalog):
    response = cast.api("planner").post(
        "/api/v1/fit/", {"rack": RACK, "server": None}, format="json"
    )
    assert response.status_code == 400
    assert "required" in response.json()["server"][0]
