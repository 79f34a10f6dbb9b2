"""The facility-fit question as the contract declares it: defaults filled, slugs resolved
through the caller, every bad field named. No database."""

import pytest

from planner.engine.contract import RequestError, fit_request_from_dict
from planner.engine.facility import RackSpec
from tests.engine.test_facility import DGX_A100


def _no_catalog(slug, accelerator):
    raise RequestError("server", f"unknown server platform {slug!r}")


def _catalog(slug, accelerator):
    if slug != "nvidia-dgx-a100":
        return _no_catalog(slug, accelerator)
    return DGX_A100


RACK = {"power_kw": 15, "cooling_kw": 15, "units": 42, "max_kg": 1200}
INLINE = {"power_kw": 6.5, "units": 6, "kg": 123.16}


def test_request_fills_documented_defaults():
    request = fit_request_from_dict({"rack": RACK, "server": INLINE}, resolve_server=_no_catalog)
    assert request.rack == RackSpec(
        power_kw=15,
        cooling_kw=15,
        units=42,
        max_kg=1200,
        inlet_c=25,
        cooling="air",
        liquid_loops=False,
        feeds="single",
    )
    assert request.server.max_inlet_c == 35
    assert (request.servers, request.pue, request.price_per_kwh) == (1, 1.0, None)


def test_request_resolves_a_server_slug_with_its_accelerator():
    seen = []

    def resolve(slug, accelerator):
        seen.append((slug, accelerator))
        return DGX_A100

    request = fit_request_from_dict(
        {"rack": RACK, "server": "nvidia-dgx-a100", "accelerator": "nvidia-a100-sxm4-80gb"},
        resolve_server=resolve,
    )
    assert request.server is DGX_A100
    assert seen == [("nvidia-dgx-a100", "nvidia-a100-sxm4-80gb")]


def test_request_reads_the_full_example():
    request = fit_request_from_dict(
        {
            "rack": {
                **RACK,
                "inlet_c": 27,
                "cooling": "air",
                "feeds": "2n",
                "liquid_loops": False,
            },
            "server": "nvidia-dgx-a100",
            "servers": 32,
            "pue": 1.3,
            "price_per_kwh": 0.12,
        },
        resolve_server=_catalog,
    )
    assert (request.rack.inlet_c, request.rack.feeds) == (27, "2n")
    assert (request.servers, request.pue, request.price_per_kwh) == (32, 1.3, 0.12)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"server": INLINE}, "rack"),
        ({"rack": RACK}, "server"),
        ({"rack": {**RACK, "power_kw": -5}, "server": INLINE}, "rack.power_kw"),
        ({"rack": {**RACK, "power_kw": 0}, "server": INLINE}, "rack.power_kw"),
        (
            {"rack": {k: v for k, v in RACK.items() if k != "max_kg"}, "server": INLINE},
            "rack.max_kg",
        ),
        ({"rack": {**RACK, "units": 41.5}, "server": INLINE}, "rack.units"),
        ({"rack": {**RACK, "cooling": "immersion"}, "server": INLINE}, "rack.cooling"),
        ({"rack": {**RACK, "feeds": "3n"}, "server": INLINE}, "rack.feeds"),
        ({"rack": {**RACK, "liquid_loops": "yes"}, "server": INLINE}, "rack.liquid_loops"),
        ({"rack": {**RACK, "inlet_c": 90}, "server": INLINE}, "rack.inlet_c"),
        ({"rack": {**RACK, "colour": "black"}, "server": INLINE}, "rack.colour"),
        ({"rack": RACK, "server": INLINE, "servers": 0}, "servers"),
        ({"rack": RACK, "server": INLINE, "pue": 0.9}, "pue"),
        ({"rack": RACK, "server": INLINE, "price_per_kwh": -1}, "price_per_kwh"),
        ({"rack": RACK, "server": INLINE, "volts": 230}, "volts"),
        ({"rack": RACK, "server": {"units": 2}}, "server.power_kw"),
        ({"rack": RACK, "server": {**INLINE, "cooling": "oil"}}, "server.cooling"),
        ({"rack": RACK, "server": {**INLINE, "airflow": "side"}}, "server.airflow"),
        ({"rack": RACK, "server": "no-such-server"}, "server"),
        ({"rack": RACK, "server": INLINE, "accelerator": "nvidia-rtx-4090"}, "accelerator"),
        ({"rack": "42U", "server": INLINE}, "rack"),
    ],
)
def test_bad_input_names_the_field(data, field):
    with pytest.raises(RequestError) as excinfo:
        fit_request_from_dict(data, resolve_server=_catalog)
    assert excinfo.value.field == field


def test_a_request_that_is_not_an_object_is_refused():
    with pytest.raises(RequestError) as excinfo:
        fit_request_from_dict([1, 2], resolve_server=_catalog)
    assert excinfo.value.field == "request"
