from decimal import Decimal
from pathlib import Path

import pytest

from planner.netbox.readers import NetboxFile
from planner.netbox.results import ImportOptions

FIXTURES = Path(__file__).parent / "fixtures"

# The CSV exports of one NetBox site (DC1), with the device types of the library, in the order
# a facility team would hand them over.
CSV_FILES = (
    "csv/sites.csv",
    "csv/racks.csv",
    "csv/power-panels.csv",
    "csv/power-feeds.csv",
    "csv/devices.csv",
    "csv/power-ports.csv",
    "device-types/supermicro-sys-821ge-tnhr.yaml",
    "device-types/arista-dcs-7050cx3-32s.yaml",
    "device-types/raritan-px3-5902v.yaml",
)
# NetBox's REST API answers for another site (DC2), one page of `results` each.
API_FILES = tuple(
    f"api/{name}.json"
    for name in (
        "sites",
        "racks",
        "power-panels",
        "power-feeds",
        "device-types",
        "devices",
        "power-ports",
    )
)
# What NetBox does not keep: a new site's PUE and electricity price.
NEW_SITES = ImportOptions(pue=1.3, electricity_price_per_kwh=Decimal("0.65"))


def netbox_files(*paths: str, **replaced: bytes) -> list[NetboxFile]:
    """The fixture files as uploads; `replaced` swaps a file's content by its path."""
    return [
        NetboxFile(Path(path).name, replaced.get(path) or (FIXTURES / path).read_bytes())
        for path in paths
    ]


@pytest.fixture
def csv_files() -> list[NetboxFile]:
    return netbox_files(*CSV_FILES)


@pytest.fixture
def api_files() -> list[NetboxFile]:
    return netbox_files(*API_FILES)
