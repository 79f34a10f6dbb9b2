"""What the facility tests share: a plan question for whole DGX H100 systems, and a DGX H100
installed in a rack with the catalog's figures (catalog/data/servers/servers.csv: 8 U,
10.2 kW at most)."""

from __future__ import annotations

from typing import Any

DGX = "nvidia-dgx-h100"
GPUS_PER_DGX = 8


def dgx_question(name: str, systems: int) -> dict[str, Any]:
    """Train an 8B model on `systems` DGX H100, no fewer and no more."""
    gpus = systems * GPUS_PER_DGX
    return {
        "name": name,
        "workload": {"task": "train", "model": "meta-llama-3-8b", "tokens": 1e10},
        "accelerators": ["nvidia-h100-sxm5-80gb"],
        "servers": [DGX],
        "count": {"min": gpus, "max": gpus},
    }


def install_dgx(rack, *, position_u: int = 1):
    from catalog.models import ServerPlatform
    from planner.models import Equipment

    server = ServerPlatform.objects.get(slug=DGX)
    return Equipment.objects.create(
        rack=rack,
        server=server,
        name=f"dgx-{rack.pk}-{position_u}",
        position_u=position_u,
        units=server.rack_units,
        nameplate_kw=server.max_power_kw,
        weight_kg=server.weight_kg,
    )
