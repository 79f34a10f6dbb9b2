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
