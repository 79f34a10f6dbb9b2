"""Facility fit against the real catalog: the adapter, `manage.py fit` and POST /api/v1/fit/."""

import io
import json
import sys

import pytest
import yaml
from django.core.management import call_command
from django.urls import reverse

from planner.engine import RequestError
from planner.engine.facility import THERMAL_RISK
from planner.estimates.services import fit_request, fit_run
from planner.messages.render import render

pytestmark = pytest.mark.django_db

URL = "/api/v1/fit/"
RACK_15KW = {"power_kw": 15, "cooling_kw": 15, "units": 42, "max_kg": 1200}
QUESTION = {
    "rack": {**RACK_15KW, "inlet_c": 27, "feeds": "2n"},
    "server": "nvidia-dgx-h100",
    "servers": 32,
    "pue": 1.3,
    "price_per_kwh": 0.12,
}


@pytest.fixture
def member(client, django_user_model):
    user = django_user_model.objects.create_user(
        **{django_user_model.USERNAME_FIELD: "lead@example.com"}, password="not-used"
    )
    client.force_login(user)
    return client


# The adapter --------------------------------------------------------------------------------


def test_dgx_a100_from_the_catalog_fits_two_to_a_15_kw_rack(loaded_catalog):
    # DGX A100 datasheet: 6.5 kW, 6U, 123.16 kg.
    answer = fit_run(data={"rack": RACK_15KW, "server": "nvidia-dgx-a100", "servers": 32})
    assert answer["limits"] == {"power": 2, "cooling": 2, "units": 7, "weight": 9}
    assert (answer["servers_per_rack"], answer["binding"], answer["racks_needed"]) == (
        2,
        "power",
        16,
    )
    assert answer["warnings"] == []


def test_dgx_h100_from_the_catalog_fits_one_to_a_15_kw_rack(loaded_catalog):
    answer = fit_run(data=QUESTION)
    assert (answer["servers_per_rack"], answer["binding"], answer["racks_needed"]) == (
        1,
        "power",
        32,
    )
    # 32 x 10.2 kW = 326.4 kW; x PUE 1.3 = 424.32 kW; x 8760 h; x 0.12 per kWh.
    assert answer["it_power_kw"] == pytest.approx(326.4)
    assert answer["facility_power_kw"] == pytest.approx(424.32)
    assert answer["yearly_energy_kwh"] == pytest.approx(3_717_043.2)
    assert answer["yearly_energy_cost"] == pytest.approx(446_045.18)
    assert any("each feed must carry the whole load" in w for w in answer["warnings"])


def test_consumer_cards_in_a_workstation_are_estimated_and_warned(loaded_catalog):
    # The Lambda Vector publishes no maximum: its 360 W platform (Lambda's own sizing) plus
    # 4 x 450 W RTX 4090 = 2.16 kW.
    question = {"rack": RACK_15KW, "server": "lambda-vector", "accelerator": "nvidia-rtx-4090"}
    request = fit_request(data=question)
    assert request.server.power_kw == pytest.approx(0.36 + 4 * 0.45)
    assert request.server.power_estimated and request.server.open_air_cards
    answer = fit_run(data=question)
    codes = {m["code"] for m in answer["messages"] if m["field"] == "warnings"}
    assert {THERMAL_RISK.code, "fit.power_estimated.how"} <= codes
    assert render(THERMAL_RISK) in answer["warnings"]
    assert answer["eta_thermal"] == pytest.approx(0.9)


def test_a_card_the_server_does_not_list_is_refused_naming_what_it_takes(loaded_catalog):
    with pytest.raises(RequestError) as excinfo:
        fit_request(
            data={
                "rack": RACK_15KW,
                "server": "dell-poweredge-r760xa",
                "accelerator": "nvidia-rtx-4090",
            }
        )
    assert excinfo.value.field == "accelerator"
    assert "nvidia-l40s" in excinfo.value.message


def test_datacenter_cards_in_the_same_server_are_not_a_thermal_risk(loaded_catalog):
    request = fit_request(
        data={"rack": RACK_15KW, "server": "dell-poweredge-r760xa", "accelerator": "nvidia-l40s"}
    )
    # The R760xa's 1,400 W platform load plus 4 x 350 W L40S.
    assert request.server.power_kw == pytest.approx(1.4 + 4 * 0.350)
    assert not request.server.open_air_cards


def test_server_without_published_power_assumes_the_hungriest_card_it_takes(loaded_catalog):
    request = fit_request(data={"rack": RACK_15KW, "server": "dell-poweredge-r760xa"})
    # The hungriest card the R760xa lists is the 400 W H100 NVL: 1,400 W + 4 x 400 W.
    assert request.server.power_kw == pytest.approx(1.4 + 4 * 0.4)
    assert request.server.power_estimated


def test_a_system_without_a_published_maximum_draws_its_base_load_and_its_cards(loaded_catalog):
    # Atlas 800T A2: 3,300 W platform load (a proxy until Huawei's figure is entered) plus
    # 8 x 400 W Ascend 910B.
    request = fit_request(data={"rack": RACK_15KW, "server": "huawei-atlas-800t-a2"})
    assert request.server.power_kw == pytest.approx(3.3 + 8 * 0.4)
    assert request.server.power_estimated


def test_desktop_workstation_is_a_thermal_risk_in_a_rack(loaded_catalog):
    request = fit_request(data={"rack": RACK_15KW, "server": "lambda-vector"})
    assert request.server.open_air_cards


def test_gb200_nvl72_cannot_go_in_an_air_only_room(loaded_catalog):
    room = {"power_kw": 132, "cooling_kw": 132, "units": 48, "max_kg": 1500, "cooling": "air"}
    answer = fit_run(data={"rack": room, "server": "nvidia-gb200-nvl72"})
    assert (answer["servers_per_rack"], answer["binding"], answer["racks_needed"]) == (
        0,
        "cooling type",
        None,
    )
    liquid = fit_run(data={"rack": {**room, "cooling": "liquid"}, "server": "nvidia-gb200-nvl72"})
    assert liquid["servers_per_rack"] == 1


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"rack": RACK_15KW, "server": "no-such"}, "server", "unknown server platform 'no-such'"),
        (
            {"rack": RACK_15KW, "server": "dell-poweredge-r760xa", "accelerator": "no-such"},
            "accelerator",
            "unknown accelerator 'no-such'",
        ),
        (
            {"rack": RACK_15KW, "server": "nvidia-dgx-a100", "accelerator": "nvidia-rtx-4090"},
            "accelerator",
            "does not fit",
        ),
        (
            {
                "rack": RACK_15KW,
                "server": "dell-poweredge-r760xa",
                "accelerator": "nvidia-h100-sxm5-80gb",
            },
            "accelerator",
            "does not fit",
        ),
    ],
)
def test_catalog_mistakes_name_the_field(loaded_catalog, data, field, message):
    with pytest.raises(RequestError) as excinfo:
        fit_run(data=data)
    assert excinfo.value.field == field and message in excinfo.value.message


# The command --------------------------------------------------------------------------------


def test_fit_reads_a_file_and_prints_json(loaded_catalog, tmp_path, capsys):
    path = tmp_path / "fit.json"
    path.write_text(json.dumps(QUESTION))
    call_command("fit", str(path))
    answer = json.loads(capsys.readouterr().out)
    assert answer["servers_per_rack"] == 1 and answer["racks_needed"] == 32


def test_fit_reads_stdin_and_prints_a_table(loaded_catalog, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(QUESTION)))
    call_command("fit", "-", format="table")
    out = capsys.readouterr().out
    assert "servers per rack" in out and "binding: power" in out and "warning: 2N" in out


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ('{"server": "nvidia-dgx-h100"}', "rack: is required"),
        (
            '{"rack": {"power_kw": -15, "cooling_kw": 15, "units": 42, "max_kg": 1200}, "server": "nvidia-dgx-h100"}',
            "rack.power_kw: must be greater than 0",
        ),
        (
            '{"rack": {"power_kw": 15, "cooling_kw": 15, "units": 42, "max_kg": 1200, "cooling": "oil"}, "server": "nvidia-dgx-h100"}',
            "rack.cooling: must be one of",
        ),
        (
            '{"rack": {"power_kw": 15, "cooling_kw": 15, "units": 42, "max_kg": 1200}, "server": "nvidia-dgx-h100", "servers": 0}',
            "servers: must be at least 1",
        ),
        (
            '{"rack": {"power_kw": 15, "cooling_kw": 15, "units": 42, "max_kg": 1200}, "server": "x"}',
            "server: unknown server platform 'x'",
        ),
        ("{not json", "request: not valid JSON"),
    ],
)
def test_bad_input_exits_2_with_one_line_naming_the_field(
    loaded_catalog, monkeypatch, capsys, question, expected
):
    monkeypatch.setattr(sys, "stdin", io.StringIO(question))
    with pytest.raises(SystemExit) as excinfo:
        call_command("fit", "-")
    assert excinfo.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and expected in err


def test_a_missing_file_exits_2(db, capsys):
    with pytest.raises(SystemExit) as excinfo:
        call_command("fit", "/nonexistent/fit.json")
    assert excinfo.value.code == 2


# The API ------------------------------------------------------------------------------------


def test_anonymous_request_is_refused(client, loaded_catalog):
    response = client.post(URL, QUESTION, content_type="application/json")
    assert response.status_code in (401, 403)


def test_signed_in_member_gets_the_fit(member, loaded_catalog):
    response = member.post(URL, QUESTION, content_type="application/json")
    assert response.status_code == 200
    assert response.json()["servers_per_rack"] == 1


def test_api_gives_the_same_answer_as_the_command(member, loaded_catalog, tmp_path, capsys):
    path = tmp_path / "fit.json"
    path.write_text(json.dumps(QUESTION))
    call_command("fit", str(path))
    from_command = json.loads(capsys.readouterr().out)
    assert member.post(URL, QUESTION, content_type="application/json").json() == from_command


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"rack": {**RACK_15KW, "power_kw": -1}}, "rack.power_kw"),
        ({"rack": None}, "rack"),
        ({"servers": 0}, "servers"),
        ({"server": "gpu-box-9000"}, "server"),
        ({"rack": {**RACK_15KW, "cooling": "immersion"}}, "rack.cooling"),
        ({"colour": "black"}, "colour"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(member, loaded_catalog, change, field):
    response = member.post(URL, {**QUESTION, **change}, content_type="application/json")
    assert response.status_code == 400
    assert list(response.json()) == [field]


def test_schema_documents_the_fit_endpoint_with_examples(client, db):
    schema = yaml.safe_load(client.get(reverse("schema")).content)
    operation = schema["paths"]["/api/v1/fit/"]["post"]
    assert {"200", "400"} <= set(operation["responses"])
    examples = operation["requestBody"]["content"]["application/json"]["examples"]
    assert len(examples) >= 3
    assert reverse("fit-api") == URL
