"""Collectives as NCCL's ring algorithms run them, and the links a group of ranks crosses."""

import dataclasses

import numpy as np
import pytest

from planner.engine import efficiency as eff
from planner.engine.comms import (
    NVLINK_LATENCY_S,
    PCIE_LATENCY_S,
    all_reduce_s,
    all_to_all_s,
    links,
    reduce_scatter_s,
    scale_up_bw,
)
from tests.engine.conftest import H100, NDR

GB = 1e9


def test_ring_all_reduce_moves_two_g_minus_one_over_g_of_the_bytes():
    # Reduce-scatter then all-gather: each device sends 2(g-1)/g of the buffer; 8 GB over 8
    # ranks at 100 GB/s is 2 x 7/8 x 8 / 100 = 0.14 s.
    assert float(all_reduce_s(8 * GB, 8, 100 * GB, 0.0)) == pytest.approx(0.14)


def test_ring_all_reduce_pays_latency_on_each_of_its_two_g_minus_one_steps():
    # An empty buffer still takes 2 x (8 - 1) = 14 hops of 5 us.
    assert float(all_reduce_s(0.0, 8, 100 * GB, 5e-6)) == pytest.approx(14 * 5e-6)


def test_reduce_scatter_moves_half_of_what_an_all_reduce_does_in_half_the_steps():
    # (g-1)/g of the buffer over g-1 steps: 7/8 x 8 / 100 + 7 x 5 us.
    assert float(reduce_scatter_s(8 * GB, 8, 100 * GB, 5e-6)) == pytest.approx(0.07 + 7 * 5e-6)
    assert float(all_to_all_s(8 * GB, 8, 100 * GB, 5e-6)) == pytest.approx(0.07 + 7 * 5e-6)


def test_a_group_of_one_exchanges_nothing():
    for collective in (all_reduce_s, reduce_scatter_s, all_to_all_s):
        assert float(collective(8 * GB, 1, 100 * GB, 5e-6)) == 0.0


def test_collectives_time_many_group_sizes_at_once():
    # One element per layout: 2(g-1)/g for g = 1, 2, 4 of 1 GB at 1 GB/s.
    times = all_reduce_s(GB, np.array([1, 2, 4]), GB, 0.0)
    assert times == pytest.approx([0.0, 1.0, 1.5])


def test_nvlink_runs_at_three_quarters_of_its_datasheet_speed():
    # H100 SXM: 450 GB/s per direction; NCCL's bus bandwidth reaches about 75 % of it.
    bw, latency = scale_up_bw(H100)
    assert bw == pytest.approx(450 * GB * eff.SCALE_UP_EFFICIENCY) == pytest.approx(337.5 * GB)
    assert latency == NVLINK_LATENCY_S


def test_a_measured_all_reduce_share_replaces_the_default_one():
    bw, _ = scale_up_bw(H100, efficiency=0.6)
    assert bw == pytest.approx(450 * GB * 0.6)


def test_cards_without_a_scale_up_link_talk_over_pcie():
    # H100 PCIe Gen5 x16: 63 GB/s per direction, 70 % of it reached, 8 us per hop.
    bw, latency = scale_up_bw(dataclasses.replace(H100, scale_up_gb_s=None))
    assert bw == pytest.approx(63 * GB * eff.PCIE_EFFICIENCY)
    assert latency == PCIE_LATENCY_S


def test_a_group_inside_one_server_uses_the_scale_up_link():
    bw, latency = links(H100, NDR, per_node=8).over(span=8)
    assert float(bw) == pytest.approx(337.5 * GB)
    assert float(latency) == NVLINK_LATENCY_S


def test_a_group_with_one_member_per_server_gets_one_nic():
    # Data parallelism across servers with tp 8: each ring hop leaves through one 400 Gbit/s
    # NIC (50 GB/s, 85 % reached) and pays the fabric's 2 us.
    bw, latency = links(H100, NDR, per_node=8).over(span=64, stride=8)
    assert float(bw) == pytest.approx(50 * GB * eff.FABRIC_EFFICIENCY)
    assert float(latency) == pytest.approx(NDR.latency_us * 1e-6)


def test_a_group_with_eight_members_per_server_gets_eight_nics_capped_by_nvlink():
    # Eight rings, one per NIC: 8 x 42.5 = 340 GB/s, more than NVLink's 337.5 GB/s.
    bw, _ = links(H100, NDR, per_node=8).over(span=64, stride=1)
    assert float(bw) == pytest.approx(337.5 * GB)
    two, _ = links(H100, NDR, per_node=8).over(span=64, stride=4)
    assert float(two) == pytest.approx(2 * 50 * GB * eff.FABRIC_EFFICIENCY)
