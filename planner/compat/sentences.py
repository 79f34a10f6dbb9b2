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
    "compat.fix.build_arch": _(
        "Install the {build} build of PyTorch {torch}, which ships kernels for compute "
        "capability {capability}."
    ),
    "compat.fix.driver": _(
        "Upgrade the driver to {minimum} or later, which supports CUDA {cuda} in full (needs "
        "root and a reboot)."
    ),
    "compat.fix.rocm": _("Install the {build} build of PyTorch {torch} for this card."),
    "compat.limit.feature_set": _(
        "Minor-version compatibility, NVIDIA's first limit (limited feature set): a feature "
        "that needs a newer driver fails with {error}; upgrade the driver if the software "
        "needs one."
    ),
    "compat.limit.ptx": _(
        "Minor-version compatibility, NVIDIA's second limit: device code shipped as PTX will "
        "not run on the older driver ({error}); kernels compiled for the card's own "
        "architecture are needed."
    ),
    "compat.limit.arch_flag": _(
        "Minor-version compatibility, NVIDIA's third limit: code compiled on this machine "
        "(extensions, custom kernels) must name the target architecture to nvcc "
        "(-arch=sm_XX)."
    ),
    "compat.rocm_gpu_ok": _(
        "{software} uses ROCm {rocm}, whose GPU list includes the {card} ({gfx})."
    ),
    "compat.rocm_gpu_missing": _(
        "{software} uses ROCm {rocm}, whose GPU list ({targets}) does not include the {card} "
        "({gfx}): AMD's ROCm compatibility matrix."
    ),
    "compat.rocm_gpu_unknown": _(
        "The GPU list of ROCm {rocm} ({software}) is not recorded here (recorded: ROCm "
        "{recorded}), so the {card} ({gfx}) is not checked against it."
    ),
    "compat.rocm_kmd_ok": _(
        "The ROCm kernel driver (amdgpu) {amdgpu} is tested with the ROCm {rocm} user space "
        "of {software}."
    ),
    "compat.rocm_kmd": _(
        "The ROCm kernel driver (amdgpu) {amdgpu} is tested with ROCm user space {tested}, "
        "not ROCm {rocm}, which {software} brings: AMD's user and kernel-space support matrix."
    ),
    "compat.rocm_kmd_unknown": _(
        "The ROCm kernel driver (amdgpu) {amdgpu} is not in the support matrix recorded here "
        "({recorded}), so ROCm {rocm} is not checked against it."
    ),
    "compat.fix.rocm_kmd": _(
        "Upgrade the ROCm kernel driver (amdgpu) to {amdgpu} or later, which is tested with "
        "ROCm {rocm} (needs root and a reboot)."
    ),
    "compat.npu_no_torch": _(
        "No torch_npu is built for PyTorch {torch} in Ascend's version table, so it cannot "
        "use the {card}; torch_npu exists for PyTorch {releases}."
    ),
    "compat.npu_canns": _(
        "On the {card}, PyTorch {torch} runs through torch_npu, built for CANN {canns}."
    ),
    "compat.npu_ok": _(
        "CANN {cann} and PyTorch {torch} are a pair in Ascend's version table: install "
        "torch_npu {torch_npu}."
    ),
    "compat.npu_mismatch": _(
        "CANN {cann} has no torch_npu for PyTorch {torch}: Ascend's version table builds "
        "torch_npu for PyTorch {torch} only with CANN {canns}."
    ),
    "compat.npu_cann_unknown": _(
        "CANN {cann} is not in the version table recorded here ({recorded}), so its pairing "
        "with PyTorch {torch} is not checked."
    ),
    "compat.fix.npu": _(
        "Install PyTorch {torch} with torch_npu {torch_npu}, the pair built for CANN {cann}."
    ),
    "compat.fix.npu_cann": _(
        "Install CANN {cann}, then PyTorch {torch} with torch_npu {torch_npu}, the pair built "
        "for it (a new CANN toolkit, and the driver Ascend pairs with it)."
    ),
    "compat.npu_driver": _(
        "Ascend's version table pairs CANN {cann} with the Ascend HDK driver {hdk}; this "
        "machine has {driver}."
    ),
    "compat.mindspore_cann": _("MindSpore {version} recommends CANN {cann}."),
    "compat.mindspore_other": _(
        "MindSpore {version} recommends CANN {cann}, not the {given} installed; neighbouring "
        "CANN releases usually work, with warnings."
    ),
    "compat.mindspore_unknown": _(
        "MindSpore {version} is not in the version table recorded here ({recorded})."
    ),
    "compat.framework_pins": _(
        "{framework} {version} pins PyTorch {torch}; the PyTorch checks here are for that release."
    ),
    "compat.framework_torch": _(
        "{framework} {version} pins PyTorch {pinned}, not the PyTorch {torch} given; its "
        "compiled kernels work only with the PyTorch they were built against."
    ),
    "compat.fix.framework_torch": _("Install {framework} {version}, which pins PyTorch {torch}."),
    "compat.framework_arch_ok": _(
        "{framework} {version} supports compute capability {capability} (the {card})."
    ),
    "compat.framework_arch_min": _(
        "{framework} {version} needs a GPU of compute capability {minimum} or higher; the "
        "{card} is {capability}."
    ),
    "compat.framework_arch_list": _(
        "{framework} {version} lists compute capabilities {listed}; the {card} ({capability}) "
        "is not among them, so it is neither developed nor tested there (community support "
        "only)."
    ),
    "compat.fix.framework_arch": _(
        "Install {framework} {version}, which lists compute capability {capability}."
    ),
    "compat.framework_unknown": _(
        "{framework} {version} is not in the releases recorded here ({recorded}), so it is "
        "not checked."
    ),
}


def english(message: Message) -> str:
    """The sentence in English, as the probe prints it."""
    params: dict[str, Any] = {
        k: ", ".join(str(x) for x in v) if isinstance(v, list | tuple) else v
        for k, v in message.params.items()
    }
    return TEMPLATES[message.code].format(**params)
