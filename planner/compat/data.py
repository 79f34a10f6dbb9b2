"""The compatibility tables in catalog/data/compat/, read into frozen rows. Plain Python and the
csv module only: the probe reads them on a GPU machine that has no Django.

Every row keeps its sources and the date they were read, so an answer can cite them."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import catalog

DATA_DIR = Path(catalog.__file__).resolve().parent / "data" / "compat"


def version_key(text: str) -> tuple[int, ...]:
    """ "525.60.13" -> (525, 60, 13); "12.4" -> (12, 4). Raises ValueError on anything else."""
    parts = text.strip().split(".")
    if not text.strip() or not all(p.isdigit() for p in parts):
        raise ValueError(text)
    return tuple(int(p) for p in parts)


@dataclass(frozen=True)
class Toolkit:
    """One CUDA minor release and the driver its GA installer bundles (the toolkit's minimum for
    full support)."""

    cuda: str
    linux_driver: str
    windows_driver: str
    sources: tuple[str, ...]
    read_on: str

    @property
    def major(self) -> int:
        return version_key(self.cuda)[0]


@dataclass(frozen=True)
class Family:
    """A CUDA major release's driver window for minor-version compatibility."""

    major: int
    min_branch: int
    below_branch: int | None
    min_linux_driver: str
    sources: tuple[str, ...]
    read_on: str


@dataclass(frozen=True)
class Branch:
    branch: int
    designation: str
    end_of_life: str
    source: str
    read_on: str


@dataclass(frozen=True)
class TorchBuild:
    """One PyTorch release's wheel for one CUDA (cu124) or ROCm (rocm6.2) version."""

    torch: str
    build: str
    channel: str
    kind: str
    arch_list: tuple[str, ...]  # "9.0", "9.0a", "12.0+PTX"; empty when not read
    sources: tuple[str, ...]
    read_on: str

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
class Capability:
    accelerator: str
    compute_capability: str
    sources: tuple[str, ...]
    read_on: str


def _rows(name: str) -> list[dict[str, str]]:
    with (DATA_DIR / name).open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


@cache
def toolkits() -> tuple[Toolkit, ...]:
    rows = [
        Toolkit(
            r["cuda"],
            r["linux_driver"],
            r["windows_driver"],
            tuple(r["source_urls"].split()),
            r["read_on"],
        )
        for r in _rows("cuda_toolkits.csv")
    ]
    return tuple(sorted(rows, key=lambda t: version_key(t.cuda)))


@cache
def families() -> dict[int, Family]:
    return {
        int(r["major"]): Family(
            int(r["major"]),
            int(r["min_branch"]),
            int(r["below_branch"]) if r["below_branch"] else None,
            r["min_linux_driver"],
            tuple(r["source_urls"].split()),
            r["read_on"],
        )
        for r in _rows("cuda_families.csv")
    }


@cache
def branches() -> dict[int, Branch]:
    return {
        int(r["branch"]): Branch(
            int(r["branch"]), r["designation"], r["end_of_life"], r["source_url"], r["read_on"]
        )
        for r in _rows("driver_branches.csv")
    }


@cache
def torch_builds() -> tuple[TorchBuild, ...]:
    rows = [
        TorchBuild(
            r["torch"],
            r["build"],
            r["channel"],
            r["kind"],
            tuple(r["arch_list"].split()),
            tuple(r["source_urls"].split()),
            r["read_on"],
        )
        for r in _rows("torch_builds.csv")
    ]
    return tuple(sorted(rows, key=lambda b: (version_key(b.torch), b.kind, b.build)))


@cache
def capabilities() -> dict[str, Capability]:
    return {
        r["accelerator"]: Capability(
            r["accelerator"],
            r["compute_capability"],
            tuple(r["source_urls"].split()),
            r["read_on"],
        )
        for r in _rows("compute_capability.csv")
    }


@dataclass(frozen=True)
class MinorLimit:
    """One of the caveats NVIDIA lists for CUDA minor-version compatibility."""

    code: str
    error: str
    sources: tuple[str, ...]
    read_on: str


@dataclass(frozen=True)
class FrameworkRelease:
    """A serving framework's release: the PyTorch it pins and the cards it supports."""

    framework: str
    version: str
    torch: str  # minor release, "2.6"; empty when not stated
    min_capability: str  # "7.0"; empty when the release lists architectures instead
    capabilities: tuple[str, ...]  # the listed compute capabilities, if any
    sources: tuple[str, ...]
    read_on: str


@dataclass(frozen=True)
class RocmRelease:
    rocm: str  # "6.2"
    gfx_targets: tuple[str, ...]
    torch_versions: tuple[str, ...]
    sources: tuple[str, ...]
    read_on: str


@dataclass(frozen=True)
class RocmKernelDriver:
    """The ROCm kernel-mode driver (amdgpu) release and the user space releases tested on it."""

    kmd: str
    user_space: tuple[str, ...]
    sources: tuple[str, ...]
    read_on: str


@dataclass(frozen=True)
class GfxTarget:
    accelerator: str
    gfx_target: str
    sources: tuple[str, ...]
    read_on: str


@dataclass(frozen=True)
class CannPair:
    """One CANN release and a PyTorch release with the torch_npu version built for the pair."""

    cann: str
    torch: str
    torch_npu: str
    sources: tuple[str, ...]
    read_on: str


@dataclass(frozen=True)
class CannDriver:
    cann: str
    hdk: str  # the Ascend HDK (driver and firmware) release paired with it
    sources: tuple[str, ...]
    read_on: str


@dataclass(frozen=True)
class MindsporePair:
    mindspore: str
    cann: str  # the recommended CANN
    sources: tuple[str, ...]
    read_on: str


def _urls(row: dict[str, str]) -> tuple[str, ...]:
    return tuple(row["source_urls"].split())


@cache
def minor_limits() -> tuple[MinorLimit, ...]:
    return tuple(
        MinorLimit(r["code"], r["error"], _urls(r), r["read_on"])
        for r in _rows("cuda_minor_limits.csv")
    )


@cache
def framework_releases() -> tuple[FrameworkRelease, ...]:
    rows = [
        FrameworkRelease(
            r["framework"],
            r["version"],
            r["torch"],
            r["min_capability"],
            tuple(r["capabilities"].split()),
            _urls(r),
            r["read_on"],
        )
        for r in _rows("framework_releases.csv")
    ]
    return tuple(sorted(rows, key=lambda f: (f.framework, version_key(f.version))))


@cache
def rocm_releases() -> dict[str, RocmRelease]:
    return {
        r["rocm"]: RocmRelease(
            r["rocm"],
            tuple(r["gfx_targets"].split()),
            tuple(r["torch_versions"].split()),
            _urls(r),
            r["read_on"],
        )
        for r in _rows("rocm_releases.csv")
    }


@cache
def rocm_kernel_drivers() -> dict[str, RocmKernelDriver]:
    return {
        r["kmd"]: RocmKernelDriver(r["kmd"], tuple(r["user_space"].split()), _urls(r), r["read_on"])
        for r in _rows("rocm_kmd.csv")
    }


@cache
def gfx_targets() -> dict[str, GfxTarget]:
    return {
        r["accelerator"]: GfxTarget(r["accelerator"], r["gfx_target"], _urls(r), r["read_on"])
        for r in _rows("gfx_targets.csv")
    }


@cache
def cann_pairs() -> tuple[CannPair, ...]:
    return tuple(
        CannPair(r["cann"], r["torch"], r["torch_npu"], _urls(r), r["read_on"])
        for r in _rows("cann_torch_npu.csv")
    )


@cache
def cann_drivers() -> dict[str, CannDriver]:
    return {
        r["cann"]: CannDriver(r["cann"], r["hdk"], _urls(r), r["read_on"])
        for r in _rows("cann_hdk.csv")
    }


@cache
def mindspore_pairs() -> dict[str, MindsporePair]:
    return {
        r["mindspore"]: MindsporePair(r["mindspore"], r["cann"], _urls(r), r["read_on"])
        for r in _rows("mindspore_cann.csv")
    }
