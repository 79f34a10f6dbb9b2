"""Catalog items to engine specs. Duck-typed on attribute names, so ORM rows and rows read from
the curated data files convert the same way."""

from __future__ import annotations

from types import MappingProxyType

from planner.engine.facility import ServerFacilitySpec, populated
from planner.engine.specs import AcceleratorSpec, FabricSpec, ModelSpec

# PCIe x16 per direction, GB/s, by generation (PCI-SIG: 16 GT/s Gen4, 32 GT/s Gen5, 128b/130b).
PCIE_X16_GB_S = {3: 15.8, 4: 31.5, 5: 63.0, 6: 121.0}
# Families whose MLP is GPT's two-matrix GELU (or squared ReLU) rather than SwiGLU.
UNGATED_FAMILIES = ("gpt", "opt", "bloom", "nemotron")


def accelerator_spec(item) -> AcceleratorSpec:
    rates = {
        p: getattr(item, f"{p}_tflops")
        for p in ("fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4")
        if getattr(item, f"{p}_tflops", None)
    }
    lanes = getattr(item, "pcie_lanes", None) or 16
    gen = getattr(item, "pcie_gen", None) or 4
    return AcceleratorSpec(
        memory_gib=float(item.memory_gib),
        memory_bw_gb_s=float(item.memory_bw_gb_s),
        tflops=MappingProxyType(rates),
        tdp_w=float(item.board_power_w),
        scale_up_gb_s=float(item.scale_up_gb_s) if item.scale_up_gb_s else None,
        scale_up_domain=int(item.scale_up_domain or 1),
        pcie_gb_s=PCIE_X16_GB_S.get(gen, 31.5) * lanes / 16,
        consumer_cooling=consumer_cooled(item),
        name=getattr(item, "slug", "") or getattr(item, "name", ""),
        architecture=getattr(item, "architecture", "") or "",
    )


def model_spec(item) -> ModelSpec:
    family = (getattr(item, "family", "") or "").lower()
    return ModelSpec(
        params=float(item.params),
        layers=int(item.layers),
        hidden=int(item.hidden),
        heads=int(item.heads),
        kv_heads=int(item.kv_heads),
        ffn=int(item.ffn),
        vocab=int(item.vocab),
        experts=int(getattr(item, "experts", 1) or 1),
        active_experts=int(getattr(item, "active_experts", 1) or 1),
        gated_mlp=not family.startswith(UNGATED_FAMILIES),
        name=getattr(item, "slug", "") or getattr(item, "name", ""),
    )


# Without a published figure, a fabric's latency is taken as that of its kind: InfiniBand
# switches ~1 us port to port plus the HCAs, RoCE ~2-3 us, kernel TCP ~10+ us end to end.
DEFAULT_LATENCY_US = {"infiniband": 2.0, "roce": 4.0, "ethernet": 15.0}


def fabric_spec(item) -> FabricSpec:
    latency = getattr(item, "latency_us", None) or DEFAULT_LATENCY_US.get(
        getattr(item, "kind", ""), 5.0
    )
    return FabricSpec(
        per_gpu_gb_s=float(item.port_gbps) / 8,
        latency_us=float(latency),
        name=getattr(item, "slug", ""),
    )


def consumer_cooled(accelerator) -> bool:
    """A card cooled by open-air or blower fans made for a desktop, not a server's airflow."""
    return getattr(accelerator, "cooling", "") in ("open_air", "blower") and (
        getattr(accelerator, "segment", "") != "datacenter"
    )


def server_facility_spec(server, card, count: int | None = None) -> ServerFacilitySpec:
    """A catalog server as the facility sees it with `count` of `card` inside (all its slots by
    default): the published maximum when full, else its base load plus the cards."""
    slots = int(server.accelerator_slots)
    empty = ServerFacilitySpec(
        power_kw=0.0,
        units=int(server.rack_units),
        kg=None if server.weight_kg is None else float(server.weight_kg),
        cooling=server.cooling,
        airflow=server.airflow,
        open_air_cards=consumer_cooled(card) or server.airflow == "desktop",
        name=server.slug,
    )
    return populated(
        empty,
        max_kw=server.max_power_kw,
        base_w=server.base_power_w,
        slots=slots,
        count=slots if count is None else count,
        card=card.slug,
        card_w=float(card.board_power_w),
    )
