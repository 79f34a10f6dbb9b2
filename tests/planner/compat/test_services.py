"""The check behind the page, the API and the command: questions resolved against the catalog,
bad input named by its field, the command's exit status."""

import io
import json
import sys

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from planner.compat.services import compat_check, probe_check
from planner.engine import RequestError
from tests.planner.compat.test_rules import SMI


@pytest.fixture
def catalog(loaded_catalog):
    return loaded_catalog


def test_an_rtx_5090_from_the_catalog_with_pytorch_2_5_cu124_is_incompatible(catalog):
    answer = compat_check(data={"accelerator": "nvidia-rtx-5090", "torch": "2.5.1+cu124"})
    assert answer["compatible"] is False
    assert answer["stack"]["compute_capability"] == "12.0"
    assert "cu128" in answer["fixes"][0]["command"]
    assert answer["messages"][0]["code"] == "compat.arch_missing"
    assert answer["sources"]


def test_pasted_nvidia_smi_gives_the_driver_and_the_card(catalog):
    answer = compat_check(data={"nvidia_smi": SMI, "torch": "2.5.1+cu124"})
    assert answer["stack"]["driver"] == "525.60.13"
    assert answer["stack"]["accelerator"].startswith("nvidia-h100")
    assert answer["stack"]["compute_capability"] == "9.0"
    assert answer["compatible"] and answer["limited"]


def test_a_framework_and_its_version_are_read_as_pytorch(catalog):
    answer = compat_check(
        data={"framework": {"name": "pytorch", "version": "2.4.0"}, "cuda": "12.1", "driver": "470"}
    )
    assert answer["compatible"] is False
    assert answer["stack"]["build"] == "cu121"


@pytest.mark.parametrize(
    ("question", "field"),
    [
        ({"driver": "abc"}, "driver"),
        ({"cuda": "9.2"}, "cuda"),
        ({"torch": "1.9.0"}, "torch"),
        ({"torch": "latest"}, "torch"),
        ({"accelerator": "nvidia-h999"}, "accelerator"),
        ({"nvidia_smi": "hello"}, "nvidia_smi"),
        ({"framework": {"name": "tensorflow", "version": "2.15"}}, "framework.name"),
        ({"framework": {"name": "pytorch", "version": "x"}}, "framework.version"),
        ({"colour": "red"}, "colour"),
        ({}, "request"),
    ],
)
def test_bad_input_names_the_field(catalog, question, field):
    with pytest.raises(RequestError) as caught:
        compat_check(data=question)
    assert caught.value.field == field


def test_the_command_answers_with_status_0_either_way(catalog, monkeypatch, capsys):
    monkeypatch.setattr(
        sys, "stdin", io.StringIO(json.dumps({"driver": "470", "torch": "2.4.1+cu121"}))
    )
    call_command("compat", "-", format="table")
    out = capsys.readouterr().out
    assert "INCOMPATIBLE" in out and "525.60.13" in out
    assert "pip install torch==2.4.0 --index-url https://download.pytorch.org/whl/cu118" in out


def test_the_command_exits_2_naming_the_field(catalog, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps({"driver": "five"})))
    with pytest.raises(SystemExit) as caught:
        call_command("compat", "-")
    assert caught.value.code == 2
    assert capsys.readouterr().err.startswith("error: driver:")


def test_the_api_names_an_unknown_card(db):
    client = APIClient()
    response = client.post(
        "/api/v1/compat/",
        {"accelerator": "nvidia-h100-sxm5-80gb", "driver": "550", "torch": "2.4.0+cu121"},
        format="json",
    )
    # No catalog loaded here: the slug is unknown and named.
    assert response.status_code == 400
    assert "accelerator" in response.json()


def test_the_api_gives_a_verdict(catalog):
    response = APIClient().post(
        "/api/v1/compat/",
        {"accelerator": "nvidia-h100-sxm5-80gb", "driver": "550", "torch": "2.4.0+cu121"},
        format="json",
    )
    assert response.status_code == 200
    assert response.json()["compatible"] is True


def test_the_api_is_in_the_openapi_document(db):
    schema = APIClient().get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/v1/compat/"]["post"]
    assert operation["operationId"] == "compat_create"
    assert "400" in operation["responses"]


def test_a_probe_report_is_checked(catalog):
    probe = {
        "device": {
            "name": "NVIDIA GeForce RTX 5090",
            "capability": [12, 0],
            "driver_version": "570.86.10",
        },
        "software": {"torch": "2.5.1+cu124", "cuda": "12.4"},
    }
    answer = probe_check(probe=probe)
    assert answer["compatible"] is False
    assert "2.7.0" in answer["fixes"][0]["command"]


def test_a_probe_report_without_pytorch_is_not_checked():
    assert probe_check(probe={"device": {}, "software": {}}) is None


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_page_answers_without_javascript_in_both_languages(cast, catalog, language):
    response = cast.browser("viewer").get(
        "/compat/?accelerator=nvidia-rtx-5090&torch=2.5.1%2Bcu124", HTTP_ACCEPT_LANGUAGE=language
    )
    assert response.status_code == 200
    text = response.content.decode()
    assert "pip install torch==2.7.0 --index-url https://download.pytorch.org/whl/cu128" in text
    if language == "zh-hans":
        assert "ships kernels for compute capability" not in text


def test_the_page_names_the_bad_field(cast, catalog):
    response = cast.browser("viewer").get("/compat/?driver=abc")
    assert response.status_code == 200
    assert "must be an NVIDIA driver version" in response.content.decode()


def test_the_accelerator_page_says_which_releases_support_the_card(client, catalog):
    text = client.get("/catalog/accelerators/nvidia-rtx-5090/").content.decode()
    assert "PyTorch releases for this card" in text and "cu128" in text


def test_an_amd_card_from_the_catalog_is_checked_against_rocms_gpu_list(catalog):
    answer = compat_check(data={"accelerator": "amd-mi355x", "torch": "2.5.1+rocm6.2"})
    assert answer["compatible"] is False
    assert answer["stack"]["gfx_target"] == "gfx950"
    assert answer["messages"][0]["code"] == "compat.rocm_gpu_missing"


def test_an_ascend_card_with_cann_and_a_driver(catalog):
    answer = compat_check(
        data={
            "accelerator": "huawei-ascend-910b",
            "torch": "2.4.0",
            "cann": "8.0.rc2",
            "npu_driver": "24.1.RC2",
        }
    )
    assert answer["compatible"] is False
    assert answer["fixes"][0]["command"] == "pip install torch==2.3.1 torch_npu==2.3.1"


def test_vllm_is_checked_through_the_pytorch_it_pins(catalog):
    answer = compat_check(
        data={
            "accelerator": "nvidia-h100-sxm5-80gb",
            "driver": "470",
            "framework": {"name": "vllm", "version": "0.8.5"},
        }
    )
    assert answer["stack"]["torch"] == "2.6"
    assert answer["stack"]["framework"] == "vllm 0.8.5"
    codes = [m["code"] for m in answer["messages"]]
    assert "compat.framework_pins" in codes and "compat.framework_arch_ok" in codes


@pytest.mark.parametrize(
    ("question", "field"),
    [
        ({"cann": "eight"}, "cann"),
        ({"npu_driver": "24"}, "npu_driver"),
        ({"amdgpu": "new"}, "amdgpu"),
        ({"rocm": "6"}, "rocm"),
        ({"framework": {"name": "vllm", "version": "latest"}}, "framework.version"),
    ],
)
def test_bad_stack_versions_name_the_field(catalog, question, field):
    with pytest.raises(RequestError) as caught:
        compat_check(data=question)
    assert caught.value.field == field


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_page_checks_a_framework_and_rocm_in_both_languages(cast, catalog, language):
    response = cast.browser("viewer").get(
        "/compat/?accelerator=amd-mi300x&torch=2.7.0%2Brocm6.3&amdgpu=6.0",
        HTTP_ACCEPT_LANGUAGE=language,
    )
    text = response.content.decode()
    assert response.status_code == 200
    assert "pip install torch==2.6.0 --index-url https://download.pytorch.org/whl/rocm6.2.4" in text
    if language == "zh-hans":
        assert "is tested with ROCm user space" not in text
    framework = cast.browser("viewer").get(
        "/compat/?accelerator=nvidia-b200-sxm-180gb&framework=tensorrt-llm&framework_version=0.18",
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert "pip install &quot;tensorrt_llm==0.19.*&quot;" in framework.content.decode()


def test_the_page_names_a_bad_framework_version_on_its_field(cast, catalog):
    response = cast.browser("viewer").get("/compat/?framework=vllm&framework_version=abc")
    text = response.content.decode()
    assert "must be a release number" in text


def test_the_accelerator_pages_of_amd_and_ascend_cards_say_which_builds_support_them(
    client, catalog
):
    amd = client.get("/catalog/accelerators/amd-mi300x/").content.decode()
    # The six newest releases: their ROCm 6.4 and 7.x GPU lists are not recorded.
    assert "LLVM target gfx942" in amd and "rocm7.2" in amd
    ascend = client.get("/catalog/accelerators/huawei-ascend-910b/").content.decode()
    assert "torch_npu 2.6.0 (CANN 8.2.RC1)" in ascend


def test_an_nvidia_accelerator_page_lists_the_serving_frameworks(client, catalog):
    text = client.get("/catalog/accelerators/nvidia-v100-sxm2-32gb/").content.decode()
    assert "TensorRT-LLM 0.19" in text and "does not list this card" in text
    assert "vLLM 0.8" in text and "supports this card" in text
