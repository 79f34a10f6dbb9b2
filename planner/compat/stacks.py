"""The AMD and Huawei stacks, as their vendors' tables state them. Plain Python, like
`planner.compat.rules`, which calls these.

- ROCm: a release supports the GPUs its compatibility matrix lists by LLVM target (gfx942 for
  the MI300X); a PyTorch ROCm build (rocm6.2) brings that release's user space, which the
  kernel-mode driver (amdgpu) runs only in the combinations AMD's user and kernel-space support
  matrix lists.
- Ascend: torch_npu is built for one PyTorch release and one CANN release (Ascend Extension for
  PyTorch's table); each CANN release is paired with an Ascend HDK driver, and each MindSpore
  release with a recommended CANN."""

from __future__ import annotations

from dataclasses import dataclass

from planner.compat import data
from planner.compat.data import CannPair, version_key
from planner.compat.sentences import Message, message

PIP_NPU = "pip install torch=={torch} torch_npu=={torch_npu}"


@dataclass(frozen=True)
class Found:
    """What one check says: problems, notes, fixes as (effort, sentence, command), sources."""

    problems: tuple[Message, ...] = ()
    notes: tuple[Message, ...] = ()
    fixes: tuple[tuple[int, Message, str], ...] = ()
    sources: tuple[str, ...] = ()


def minor(version: str) -> str:
    """ "6.2.4" -> "6.2"; "rocm6.2.4" -> "6.2"."""
    parts = version.removeprefix("rocm").split(".")
    return ".".join(parts[:2])


def rocm_lists(rocm: str, gfx: str) -> bool | None:
    """Does the ROCm release list the LLVM target? None when its list is not recorded."""
    release = data.rocm_releases().get(minor(rocm))
    return None if release is None else gfx in release.gfx_targets


def rocm_gpu(*, rocm: str, gfx: str | None, card: str, software: str) -> Found:
    """The card against the ROCm release a build or an install brings."""
    if gfx is None:
        return Found()
    release = data.rocm_releases().get(minor(rocm))
    params = {"software": software, "rocm": minor(rocm), "card": card, "gfx": gfx}
    if release is None:
        recorded = sorted(data.rocm_releases(), key=version_key)
        return Found(notes=(message("compat.rocm_gpu_unknown", recorded=recorded, **params),))
    if gfx in release.gfx_targets:
        return Found(notes=(message("compat.rocm_gpu_ok", **params),), sources=release.sources)
    problem = message("compat.rocm_gpu_missing", targets=list(release.gfx_targets), **params)
    return Found(problems=(problem,), sources=release.sources)


def rocm_kernel(*, rocm: str, amdgpu: str | None, software: str) -> Found:
    """The ROCm user space a build brings against the kernel-mode driver installed."""
    if amdgpu is None:
        return Found()
    drivers = data.rocm_kernel_drivers()
    kmd = drivers.get(minor(amdgpu))
    user = minor(rocm)
    params = {"amdgpu": minor(amdgpu), "rocm": user, "software": software}
    if kmd is None:
        recorded = sorted(drivers, key=version_key)
        return Found(notes=(message("compat.rocm_kmd_unknown", recorded=recorded, **params),))
    if user in kmd.user_space:
        return Found(notes=(message("compat.rocm_kmd_ok", **params),), sources=kmd.sources)
    problem = message("compat.rocm_kmd", tested=list(kmd.user_space), **params)
    newer = [d for d in drivers.values() if user in d.user_space]
    fixes: tuple[tuple[int, Message, str], ...] = ()
    if newer:
        first = min(newer, key=lambda d: version_key(d.kmd))
        fixes = ((3, message("compat.fix.rocm_kmd", amdgpu=first.kmd, rocm=user), ""),)
    return Found(problems=(problem,), fixes=fixes, sources=kmd.sources)


def _pairs(torch: str) -> list[CannPair]:
    return [p for p in data.cann_pairs() if minor(p.torch) == torch]


def _npu_fix(effort: int, pair: CannPair, code: str = "compat.fix.npu") -> tuple[int, Message, str]:
    sentence = message(code, torch=pair.torch, torch_npu=pair.torch_npu, cann=pair.cann)
    return effort, sentence, PIP_NPU.format(torch=pair.torch, torch_npu=pair.torch_npu)


def ascend_torch(*, torch: str, cann: str | None, card: str) -> Found:
    """PyTorch on an Ascend card: torch_npu must exist for this PyTorch and this CANN."""
    pairs = _pairs(torch)
    sources = tuple(dict.fromkeys(u for p in data.cann_pairs() for u in p.sources))
    params = {"torch": torch, "card": card}
    if not pairs:
        releases = sorted({minor(p.torch) for p in data.cann_pairs()}, key=version_key)
        problem = message("compat.npu_no_torch", releases=releases, **params)
        newest = max(data.cann_pairs(), key=lambda p: version_key(p.torch))
        fix = _npu_fix(2, newest, "compat.fix.npu_cann")
        return Found(problems=(problem,), fixes=(fix,), sources=sources)
    canns = list(dict.fromkeys(p.cann for p in pairs))
    if cann is None:
        return Found(notes=(message("compat.npu_canns", canns=canns, **params),), sources=sources)
    match = next((p for p in pairs if p.cann == cann), None)
    if match is not None:
        note = message("compat.npu_ok", cann=cann, torch_npu=match.torch_npu, **params)
        return Found(notes=(note,), sources=sources)
    on_this_cann = [p for p in data.cann_pairs() if p.cann == cann]
    if not on_this_cann:
        recorded = list(dict.fromkeys(p.cann for p in data.cann_pairs()))
        note = message("compat.npu_cann_unknown", cann=cann, recorded=recorded, **params)
        return Found(notes=(note,), sources=sources)
    problem = message("compat.npu_mismatch", cann=cann, canns=canns, **params)
    same_cann = max(on_this_cann, key=lambda p: version_key(p.torch))
    fixes = (_npu_fix(2, same_cann), _npu_fix(3, pairs[0], "compat.fix.npu_cann"))
    return Found(problems=(problem,), fixes=fixes, sources=sources)


def ascend_driver(*, cann: str | None, npu_driver: str | None) -> Found:
    """The Ascend HDK installed against the one Ascend pairs with the CANN release."""
    if cann is None or npu_driver is None:
        return Found()
    paired = data.cann_drivers().get(cann)
    if paired is None or paired.hdk.lower() == npu_driver.lower():
        return Found()
    note = message("compat.npu_driver", cann=cann, hdk=paired.hdk, driver=npu_driver)
    return Found(notes=(note,), sources=paired.sources)


def mindspore(*, version: str, cann: str | None) -> Found:
    """MindSpore against the CANN release its version table recommends."""
    pairs = data.mindspore_pairs()
    pair = pairs.get(version) or pairs.get(f"{version}.0")
    if pair is None:
        recorded = sorted(pairs, key=version_key)
        return Found(
            notes=(message("compat.mindspore_unknown", version=version, recorded=recorded),)
        )
    if cann is None or cann == pair.cann:
        note = message("compat.mindspore_cann", version=pair.mindspore, cann=pair.cann)
        return Found(notes=(note,), sources=pair.sources)
    note = message("compat.mindspore_other", version=pair.mindspore, cann=pair.cann, given=cann)
    return Found(notes=(note,), sources=pair.sources)
