"""Every sentence the compatibility check says, as an English template keyed by a message code.
Plain Python, so the probe can print them on a machine without Django; the pages and the API
translate the same templates through the catalogue (`gettext_noop` marks them for it)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any


def _(template: str) -> str:
    """Marks a template for the translation catalogue; nothing is translated here."""
    return template


@dataclass(frozen=True)
class Message:
    """A sentence as a code and its values, shaped as the engine's messages (not imported from
    it: the engine package pulls in numpy and pydantic, which the probe's machine may lack)."""

    code: str
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "params": dict(self.params)}


def message(code: str, **params: Any) -> Message:
    return Message(code, MappingProxyType(params))


TEMPLATES: dict[str, str] = {
    "compat.driver_too_old": _(
        "Driver {driver} is older than {minimum}, the oldest driver that runs CUDA {major}.x "
        "builds such as {software} (CUDA {cuda}): NVIDIA's minimum-driver rule (\"CUDA driver "
        'version is insufficient").'
    ),
    "compat.minor_version": _(
        "{software} is built with CUDA {cuda}, newer than CUDA {full}, the newest that driver "
        "{driver} supports in full; it runs through CUDA minor-version compatibility (CUDA "
        "{major}.x on drivers from {minimum}) with the limits NVIDIA lists: PTX from the newer "
        "toolkit cannot be JIT-compiled by this driver, and features that need a newer driver "
        "are unavailable."
    ),
    "compat.minor_version_older": _(
        "{software} is built with CUDA {cuda}, newer than any CUDA that driver {driver} "
        "supports in full; it runs through CUDA minor-version compatibility (CUDA {major}.x on "
        "drivers from {minimum}) with the limits NVIDIA lists: PTX from the newer toolkit "
        "cannot be JIT-compiled by this driver, and features that need a newer driver are "
        "unavailable."
    ),
    "compat.full_support": _(
        "Driver {driver} supports CUDA {full} in full, enough for {software} (CUDA {cuda})."
    ),
    "compat.arch_missing": _(
        "{software} ships kernels for compute capability {archs}; the {card} is compute "
        "capability {capability}, which none of them runs on (NVIDIA's binary compatibility: a "
        "kernel for X.y runs only on X.z with z ≥ y, PTX on the same or a newer capability)."
    ),
    "compat.arch_ok": _(
        "{software} ships kernels that run on the {card} (compute capability {capability})."
    ),
    "compat.arch_unknown": _(
        "The compute capabilities {software} ships kernels for are not recorded here, so the "
        "{card} (compute capability {capability}) is not checked against it."
    ),
    "compat.no_such_build": _(
        "PyTorch {torch} has no {build} build (CUDA {cuda}); it ships {builds}."
    ),
    "compat.not_cuda": _(
        "The {card} runs {stack}, not CUDA, so the {build} build of PyTorch {torch} cannot use it."
    ),
    "compat.build_chosen": _("Of PyTorch {torch}'s builds, {build} fits this driver and card."),
    "compat.branch_status": _(
        "Driver branch R{branch} is {designation} on NVIDIA's data-center driver page{eol}."
    ),
    "compat.fix.build": _(
        "Install the {build} build of PyTorch {torch}, which runs on driver {driver}."
    ),
    "compat.fix.release": _(
        "Install PyTorch {torch} with its {build} build, the first that ships kernels for "
        "compute capability {capability}."
    ),
    "compat.fix.driver": _(
        "Upgrade the driver to {minimum} or later, which supports CUDA {cuda} in full (needs "
        "root and a reboot)."
    ),
    "compat.fix.rocm": _("Install the {build} build of PyTorch {torch} for this card."),
}


def english(message: Message) -> str:
    """The sentence in English, as the probe prints it."""
    params: dict[str, Any] = {
        k: ", ".join(str(x) for x in v) if isinstance(v, list | tuple) else v
        for k, v in message.params.items()
    }
    return TEMPLATES[message.code].format(**params)
