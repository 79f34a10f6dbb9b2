import pytest

XID_79 = (
    "NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
)
ILLEGAL_ACCESS = "RuntimeError: CUDA error: an illegal memory access was encountered"
OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
    "capacity of 79.15 GiB of which 1.02 GiB is free."
)
NOTHING = "Epoch 3/10: loss 1.84, 4,120 tokens/s\nsaved model.safetensors"


@pytest.fixture(scope="session")
def guide_rows():
    from planner.faults.reference import read_guide

    return read_guide()


@pytest.fixture
def fault_guide(db, guide_rows):
    """The shipped guide, inserted in bulk. The loader itself is tested in test_reference.py."""
    from planner.models import FaultEntry

    FaultEntry.objects.bulk_create(row.instance() for row in guide_rows)
    return {e.reference_key: e for e in FaultEntry.objects.filter(team__isnull=True)}


@pytest.fixture
def team_entry(cast, fault_guide):
    """Alpha's own entry: a message its storage prints when a checkpoint write stalls."""
    from planner.faults.services import fault_entry_create

    return fault_entry_create(
        team=cast.team,
        user=cast.planner,
        title_en="Lustre OST unreachable during checkpoint",
        category="throughput",
        patterns=r"LustreError: .*ost.*(unreachable|timed out)",
        weight=70,
        causes_en="The OST of rack B loses its InfiniBand link",
        checks="lctl dl\nibstat",
        fixes_en="Fail the OST over to its partner",
    )
