import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from tests.factories import (
    AcceleratorFactory,
    FabricFactory,
    ModelArchitectureFactory,
    ServerPlatformFactory,
)

pytestmark = pytest.mark.django_db


def _violates(**fields) -> bool:
    try:
        with transaction.atomic():
            AcceleratorFactory(**fields)
    except IntegrityError:
        return True
    return False


def test_accelerator_rejects_non_positive_memory_at_the_database():
    assert _violates(memory_gib=0)
    assert _violates(memory_bw_gb_s=-1)


def test_accelerator_rejects_a_zero_flop_rate_but_allows_unknown():
    assert _violates(fp8_tflops=0)
    assert not _violates(fp8_tflops=None)


def test_accelerator_rejects_dense_rate_above_its_sparse_rate():
    assert _violates(bf16_tflops=989, bf16_sparse_tflops=900)
    assert not _violates(bf16_tflops=989, bf16_sparse_tflops=1979)


def test_accelerator_slugs_are_unique():
    AcceleratorFactory(slug="nvidia-h100-sxm5-80gb")
    with pytest.raises(IntegrityError):
        AcceleratorFactory(slug="nvidia-h100-sxm5-80gb")


def test_accelerator_slug_must_be_lowercase_words():
    card = AcceleratorFactory.build(slug="NVIDIA_H100")
    with pytest.raises(ValidationError) as excinfo:
        card.full_clean()
    assert "slug" in excinfo.value.message_dict


def test_accelerator_without_a_source_is_rejected():
    assert _violates(source_urls="")


def test_accelerator_reports_supported_precisions():
    card = AcceleratorFactory.build(fp64_tflops=None, int8_tflops=None, tf32_tflops=494.7)
    assert card.supported_precisions == ["fp32", "tf32", "fp16", "bf16", "fp8"]


def test_model_active_parameters_cannot_exceed_the_total():
    with pytest.raises(IntegrityError):
        ModelArchitectureFactory(active_params=9_000_000_000, params=8_000_000_000)


def test_model_kv_heads_cannot_exceed_heads():
    with pytest.raises(IntegrityError):
        ModelArchitectureFactory(heads=8, kv_heads=16)


def test_model_heads_must_be_a_multiple_of_kv_heads():
    model = ModelArchitectureFactory.build(heads=32, kv_heads=6)
    with pytest.raises(ValidationError) as excinfo:
        model.full_clean()
    assert "kv_heads" in excinfo.value.message_dict


def test_model_active_experts_within_experts():
    with pytest.raises(IntegrityError):
        ModelArchitectureFactory(experts=8, active_experts=9)


def test_server_rejects_unknown_form_factor():
    server = ServerPlatformFactory.build(form_factors=["sxm", "floppy"])
    with pytest.raises(ValidationError) as excinfo:
        server.full_clean()
    assert "form_factors" in excinfo.value.message_dict


def test_server_fixed_accelerator_must_fit_its_form_factors():
    pcie_card = AcceleratorFactory(form_factor="pcie")
    server = ServerPlatformFactory.build(form_factors=["sxm"], fixed_accelerator=pcie_card)
    with pytest.raises(ValidationError) as excinfo:
        server.full_clean()
    assert "fixed_accelerator" in excinfo.value.message_dict


def test_a_server_takes_only_the_cards_it_lists():
    h100, b200 = AcceleratorFactory(form_factor="sxm"), AcceleratorFactory(form_factor="sxm")
    hgx = ServerPlatformFactory(form_factors=["sxm"], accepts=[h100.slug])
    assert hgx.takes(h100) and not hgx.takes(b200)  # same form factor, another board


def test_a_server_must_list_known_cards_and_its_fixed_one():
    h100, b200 = AcceleratorFactory(form_factor="sxm"), AcceleratorFactory(form_factor="sxm")
    with pytest.raises(ValidationError, match="Unknown accelerator"):
        ServerPlatformFactory.build(accepts=["no-such-card"]).full_clean()
    with pytest.raises(ValidationError, match="fixed accelerator"):
        ServerPlatformFactory.build(accepts=[b200.slug], fixed_accelerator=h100).full_clean()


def test_a_server_needs_its_maximum_or_its_base_load():
    with pytest.raises(IntegrityError):
        ServerPlatformFactory(max_power_kw=None, base_power_w=None)


def test_server_rejects_non_positive_power():
    with pytest.raises(IntegrityError):
        ServerPlatformFactory(max_power_kw=0)


def test_fabric_rejects_non_positive_port_speed_and_converts_to_bytes():
    assert FabricFactory(port_gbps=400).port_gb_s == 50
    with pytest.raises(IntegrityError):
        FabricFactory(port_gbps=0)
