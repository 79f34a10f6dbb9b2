from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from catalog.models import Accelerator, Fabric, ModelArchitecture, ServerPlatform

ITEM_FIELDS = ["slug", "name", "source_urls", "notes", "updated_at"]


@extend_schema_field({"type": "array", "items": {"type": "string", "format": "uri"}})
class SourceListField(serializers.Field):
    """Sources as a JSON list of URLs."""

    def __init__(self, **kwargs):
        super().__init__(read_only=True, **kwargs)

    def to_representation(self, value: str) -> list[str]:
        return value.split()


class AcceleratorSerializer(serializers.ModelSerializer):
    source_urls = SourceListField()

    class Meta:
        model = Accelerator
        fields = [
            *ITEM_FIELDS[:2],
            "vendor",
            "kind",
            "segment",
            "architecture",
            "launch_year",
            "memory_gib",
            "memory_type",
            "memory_bw_gb_s",
            "fp64_tflops",
            "fp32_tflops",
            "tf32_tflops",
            "fp16_tflops",
            "bf16_tflops",
            "fp8_tflops",
            "int8_tflops",
            "int4_tflops",
            "headline_sparsity",
            "bf16_sparse_tflops",
            "board_power_w",
            "form_factor",
            "cooling",
            "slot_width",
            "ecc",
            "mig_instances",
            "scale_up_link",
            "scale_up_gb_s",
            "scale_up_domain",
            "pcie_gen",
            "pcie_lanes",
            "software_stack",
            "training_maturity",
            "inference_maturity",
            *ITEM_FIELDS[2:],
        ]


class ServerPlatformSerializer(serializers.ModelSerializer):
    source_urls = SourceListField()
    form_factors = serializers.ListField(child=serializers.CharField())
    accepts = serializers.ListField(
        child=serializers.CharField(),
        help_text="Slugs of the accelerators the vendor sells or validates it with",
    )
    fixed_accelerator = serializers.SlugRelatedField(
        slug_field="slug",
        read_only=True,
        allow_null=True,
        help_text="The accelerator a fixed system is built with; null when slots take any",
    )

    class Meta:
        model = ServerPlatform
        fields = [
            *ITEM_FIELDS[:2],
            "vendor",
            "accelerator_slots",
            "form_factors",
            "fixed_accelerator",
            "accepts",
            "population",
            "base_power_w",
            "power_note",
            "topology",
            "rack_units",
            "max_power_kw",
            "weight_kg",
            "cooling",
            "airflow",
            "network_ports",
            "network_port_gbps",
            *ITEM_FIELDS[2:],
        ]


class FabricSerializer(serializers.ModelSerializer):
    source_urls = SourceListField()

    class Meta:
        model = Fabric
        fields = [
            *ITEM_FIELDS[:2],
            "kind",
            "port_gbps",
            "latency_us",
            "topology",
            "switch_radix",
            *ITEM_FIELDS[2:],
        ]


class ModelArchitectureSerializer(serializers.ModelSerializer):
    source_urls = SourceListField()

    class Meta:
        model = ModelArchitecture
        fields = [
            *ITEM_FIELDS[:2],
            "family",
            "params",
            "active_params",
            "layers",
            "hidden",
            "heads",
            "kv_heads",
            "ffn",
            "vocab",
            "context",
            "experts",
            "active_experts",
            *ITEM_FIELDS[2:],
        ]
