"""What a scale-out network of a given size is made of, for its purchase price: a non-blocking
fat tree (the topology NVIDIA's reference clusters and the catalog's InfiniBand and RoCE
fabrics use). With switches of `radix` ports:

- up to `radix` endpoint ports, one switch: one switch port and one link per endpoint port;
- up to radix²/2, two tiers (leaf and spine): each endpoint port takes a leaf port down, a leaf
  port up and a spine port, and two links (server-leaf, leaf-spine);
- beyond, three tiers (up to radix³/4): five switch ports and three links per endpoint port.

These counts follow from the topology itself (Al-Fares et al., "A Scalable, Commodity Data
Center Network Architecture", SIGCOMM 2008: a k-ary fat tree joins k³/4 hosts with 5k²/4
switches of k ports, so 5 switch ports per host)."""

from __future__ import annotations

from dataclasses import dataclass

# Without a published switch size, the 64-port switch of NDR InfiniBand (Quantum-2 QM9700)
# and 400GbE (Spectrum-4 at 64 x 800G split to 400G is 128; we keep the smaller).
DEFAULT_RADIX = 64


@dataclass(frozen=True)
class FabricParts:
    tiers: int
    endpoint_ports: int  # NIC ports: one per server port
    switch_ports: int
    links: int  # cables; optical ones take a transceiver at each end


def fat_tree(endpoint_ports: int, radix: int | None = None) -> FabricParts:
    k = radix or DEFAULT_RADIX
    if endpoint_ports <= k:
        tiers = 1
    elif endpoint_ports <= k * k // 2:
        tiers = 2
    else:
        tiers = 3
    return FabricParts(
        tiers=tiers,
        endpoint_ports=endpoint_ports,
        switch_ports=(2 * tiers - 1) * endpoint_ports,
        links=tiers * endpoint_ports,
    )
