"""Read what a person pastes from `nvidia-smi`: the driver version, the newest CUDA the driver
supports in full ("CUDA Version"), and each GPU's name and memory. Plain Python."""

from __future__ import annotations

import re
from dataclasses import dataclass

from planner.engine.errors import RequestError
from planner.engine.errors import gettext_noop as _

DRIVER = re.compile(r"Driver Version:\s*([0-9][0-9.]*)")
CUDA = re.compile(r"CUDA Version:\s*([0-9]+\.[0-9]+)")
# "|   0  NVIDIA H100 80GB HBM3          On  |" : index, name, persistence mode.
GPU = re.compile(r"^\|\s*(\d+)\s+(.+?)\s+(?:On|Off)\s+\|", re.MULTILINE)
MEMORY = re.compile(r"(\d+)MiB\s*/\s*(\d+)MiB")
MIB_PER_GIB = 1024


@dataclass(frozen=True)
class SmiGpu:
    name: str
    memory_gib: float | None


@dataclass(frozen=True)
class SmiReport:
    driver: str
    cuda: str | None
    gpus: tuple[SmiGpu, ...]


def parse_nvidia_smi(text: str, *, field: str = "nvidia_smi") -> SmiReport:
    """The driver, its CUDA ceiling and the GPUs; `RequestError` on `field` when the text has
    no "Driver Version" (not nvidia-smi's table)."""
    driver = DRIVER.search(text)
    if driver is None:
        raise RequestError(
            field, _('has no "Driver Version"; paste the whole table nvidia-smi prints')
        )
    cuda = CUDA.search(text)
    totals = [int(m.group(2)) / MIB_PER_GIB for m in MEMORY.finditer(text)]
    gpus = tuple(
        SmiGpu(m.group(2).strip(), round(totals[i], 1) if i < len(totals) else None)
        for i, m in enumerate(GPU.finditer(text))
    )
    return SmiReport(driver.group(1).rstrip("."), cuda.group(1) if cuda else None, gpus)
