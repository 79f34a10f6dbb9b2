"""The compatibility tables in catalog/data/compat/, read into frozen rows. Plain Python and the
csv module only: the probe reads them on a GPU machine that has no Django.

Every row keeps its sources and the date they were read, so an answer can cite them."""

from __future__ import annotations

import csv
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TypeVar, get_type_hints

import catalog

DATA_DIR = Path(catalog.__file__).resolve().parent / "data" / "compat"


def version_key(text: str) -> tuple[int, ...]:
    """ "525.60.13" -> (525, 60, 13); "12.4" -> (12, 4). Raises ValueError on anything else."""
    parts = text.strip().split(".")
    if not text.strip() or not all(p.isdigit() for p in parts):
        raise ValueError(text)
    return tuple(int(p) for p in parts)


@dataclass(frozen=True, kw_only=True)
class Sourced:
    """What every row of the tables keeps: the pages it was read from and the day."""

    sources: tuple[str, ...]
    read_on: str


@dataclass(frozen=True)
class Toolkit(Sourced):
    """One CUDA minor release and the driver its GA installer bundles (the toolkit's minimum for
    full support)."""

    cuda: str
    linux_driver: str
    windows_driver: str

    @property
    def major(self) -> int:
        return version_key(self.cuda)[0]


@dataclass(frozen=True)
class Family(Sourced):
    """A CUDA major release's driver window for minor-version compatibility."""

    major: int
    min_branch: int
    below_branch: int | None
    min_linux_driver: str


@dataclass(frozen=True)
class Branch:
    """A driver branch's support status, from one page."""

    branch: int
    designation: str
    end_of_life: str
    source: str
    read_on: str


@dataclass(frozen=True)
class TorchBuild(Sourced):
    """One PyTorch release's wheel for one CUDA (cu124) or ROCm (rocm6.2) version."""

    torch: str
    build: str
    channel: str
    kind: str
    arch_list: tuple[str, ...]  # "9.0", "9.0a", "12.0+PTX"; empty when not read

    @property
    def cuda(self) -> str:
        """cu124 -> "12.4", cu118 -> "11.8" (CUDA builds only)."""
        digits = self.build.removeprefix("cu")
        return f"{digits[:-1]}.{digits[-1]}"

    @property
    def release(self) -> str:
        """The first release of the minor version, as pip names it."""
        return f"{self.torch}.0"


@dataclass(frozen=True)
class Capability(Sourced):
    accelerator: str
    compute_capability: str


@dataclass(frozen=True)
class MinorLimit(Sourced):
    """One of the caveats NVIDIA lists for CUDA minor-version compatibility."""

    code: str
    error: str


@dataclass(frozen=True)
class FrameworkRelease(Sourced):
    """A serving framework's release: the PyTorch it pins and the cards it supports."""

    framework: str
    version: str
    torch: str  # minor release, "2.6"; empty when not stated
    min_capability: str  # "7.0"; empty when the release lists architectures instead
    capabilities: tuple[str, ...]  # the listed compute capabilities, if any


@dataclass(frozen=True)
class RocmRelease(Sourced):
    rocm: str  # "6.2"
    gfx_targets: tuple[str, ...]
    torch_versions: tuple[str, ...]


@dataclass(frozen=True)
class RocmKernelDriver(Sourced):
    """The ROCm kernel-mode driver (amdgpu) release and the user space releases tested on it."""

    kmd: str
    user_space: tuple[str, ...]


@dataclass(frozen=True)
class GfxTarget(Sourced):
    """The LLVM target (gfx942) an AMD card's kernels are built for."""

    accelerator: str
    gfx_target: str


@dataclass(frozen=True)
class CannPair(Sourced):
    """One CANN release and a PyTorch release with the torch_npu version built for the pair."""

    cann: str
    torch: str
    torch_npu: str


@dataclass(frozen=True)
class CannDriver(Sourced):
    cann: str
    hdk: str  # the Ascend HDK (driver and firmware) release paired with it


@dataclass(frozen=True)
class MindsporePair(Sourced):
    mindspore: str
    cann: str  # the recommended CANN


# How a column's text is read, by the type of the field it fills.
READERS: dict[Any, Callable[[str], Any]] = {
    str: str,
    int: int,
    int | None: lambda text: int(text) if text else None,
    tuple[str, ...]: lambda text: tuple(text.split()),
}
# The columns not named as their field.
COLUMNS = {"sources": "source_urls", "source": "source_url"}

Row = TypeVar("Row")
Key = TypeVar("Key")


def _read(row_type: type[Row], name: str) -> list[Row]:
    """Every row of the table `name` as a `row_type`: each field from the column of its name,
    read as its type says (columns no field names, such as notes, are not read)."""
    types = get_type_hints(row_type)
    fields = [
        (f.name, COLUMNS.get(f.name, f.name), READERS[types[f.name]])
        for f in dataclasses.fields(row_type)  # type: ignore[arg-type]
    ]
    with (DATA_DIR / name).open(encoding="utf-8", newline="") as handle:
        return [
            row_type(**{field: read(r[column]) for field, column, read in fields})
            for r in csv.DictReader(handle)
        ]


def _ordered(
    row_type: type[Row], name: str, order: Callable[[Row], Any] | None = None
) -> Callable[[], tuple[Row, ...]]:
    """The reader of a table as a tuple: sorted by `order`, else in the file's order; read once."""

    @cache
    def rows() -> tuple[Row, ...]:
        found = _read(row_type, name)
        return tuple(sorted(found, key=order) if order else found)

    return rows


def _keyed(
    row_type: type[Row], name: str, key: Callable[[Row], Key]
) -> Callable[[], dict[Key, Row]]:
    """The reader of a table as a dict by `key`; read once."""

    @cache
    def rows() -> dict[Key, Row]:
        return {key(r): r for r in _read(row_type, name)}

    return rows


# The tables, each read the first time it is asked for.
toolkits = _ordered(Toolkit, "cuda_toolkits.csv", lambda t: version_key(t.cuda))
families = _keyed(Family, "cuda_families.csv", lambda f: f.major)
branches = _keyed(Branch, "driver_branches.csv", lambda b: b.branch)
torch_builds = _ordered(
    TorchBuild, "torch_builds.csv", lambda b: (version_key(b.torch), b.kind, b.build)
)
capabilities = _keyed(Capability, "compute_capability.csv", lambda c: c.accelerator)
minor_limits = _ordered(MinorLimit, "cuda_minor_limits.csv")
framework_releases = _ordered(
    FrameworkRelease, "framework_releases.csv", lambda f: (f.framework, version_key(f.version))
)
rocm_releases = _keyed(RocmRelease, "rocm_releases.csv", lambda r: r.rocm)
rocm_kernel_drivers = _keyed(RocmKernelDriver, "rocm_kmd.csv", lambda k: k.kmd)
gfx_targets = _keyed(GfxTarget, "gfx_targets.csv", lambda g: g.accelerator)
cann_pairs = _ordered(CannPair, "cann_torch_npu.csv")
cann_drivers = _keyed(CannDriver, "cann_hdk.csv", lambda d: d.cann)
mindspore_pairs = _keyed(MindsporePair, "mindspore_cann.csv", lambda m: m.mindspore)
