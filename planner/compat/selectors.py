"""Reads of the compatibility data: what a card is, and which PyTorch releases support it."""

from __future__ import annotations

from planner.compat import data, frameworks, rules, stacks

ARCH_CODES = {
    "compat.framework_arch_ok",
    "compat.framework_arch_min",
    "compat.framework_arch_list",
}


def compute_capability_of(slug: str) -> str | None:
    row = data.capabilities().get(slug)
    return row.compute_capability if row else None


def gfx_target_of(slug: str) -> str | None:
    row = data.gfx_targets().get(slug)
    return row.gfx_target if row else None


def card_support(*, accelerator) -> dict | None:
    """Per PyTorch release, the CUDA builds whose kernels run on the card, for the catalog and
    the plan pages ("which current releases support it, and which do not yet"). None for a card
    whose compute capability is not recorded."""
    capability = compute_capability_of(accelerator.slug)
    if accelerator.software_stack == "rocm":
        return _rocm_support(gfx_target_of(accelerator.slug))
    if accelerator.software_stack == "cann":
        return _ascend_support()
    if capability is None:
        return None
    rows = []
    for torch in rules.releases():
        builds = rules.builds_of(torch, "cuda")
        rows.append(
            {
                "torch": torch,
                "builds": [b.build for b in builds if rules.ships_kernel_for(b, capability)],
                "unknown": [b.build for b in builds if not b.arch_list],
            }
        )
    return {
        "capability": capability,
        "stack": "cuda",
        "rows": rows[::-1],
        "frameworks": _framework_support(capability),
        "sources": _sources(),
    }


def _framework_support(capability: str) -> list[dict]:
    """vLLM and TensorRT-LLM releases recorded, and whether each supports the card."""
    rows = []
    for release in data.framework_releases():
        found = frameworks.framework_check(
            name=release.framework,
            version=release.version,
            torch=None,
            capability=capability,
            card="",
        )
        codes = {m.code for m in (*found.problems, *found.notes)}
        rows.append(
            {
                "name": f"{frameworks.NAMES[release.framework]} {release.version}",
                "torch": release.torch,
                "supported": not found.problems if codes & ARCH_CODES else None,
                "sources": list(release.sources),
            }
        )
    return rows


def _ascend_support() -> dict:
    """Per PyTorch release, the torch_npu builds and the CANN release each is built for."""
    rows = []
    for torch in rules.releases():
        pairs = [p for p in data.cann_pairs() if stacks.minor(p.torch) == torch]
        if pairs:
            builds = [f"torch_npu {p.torch_npu} (CANN {p.cann})" for p in pairs]
            rows.append({"torch": torch, "builds": builds, "unknown": []})
    urls = [u for p in data.cann_pairs() for u in p.sources]
    return {
        "capability": None,
        "stack": "cann",
        "rows": rows[::-1],
        "sources": list(dict.fromkeys(urls)),
    }


def _rocm_support(gfx: str | None) -> dict:
    """Per PyTorch release, the ROCm builds whose ROCm release lists the card's LLVM target;
    builds of a ROCm release whose GPU list is not recorded are shown as not checked."""
    rows = []
    for torch in rules.releases():
        builds = rules.builds_of(torch, "rocm")
        listed = {b.build: stacks.rocm_lists(b.build, gfx) if gfx else None for b in builds}
        rows.append(
            {
                "torch": torch,
                "builds": [b for b, ok in listed.items() if ok],
                "unknown": [b for b, ok in listed.items() if ok is None],
            }
        )
    urls = [*_sources(), *(u for r in data.rocm_releases().values() for u in r.sources)]
    return {
        "capability": gfx,
        "stack": "rocm",
        "rows": rows[::-1],
        "sources": list(dict.fromkeys(urls)),
    }


def _sources() -> list[str]:
    urls = [u for b in data.torch_builds() for u in b.sources]
    return list(dict.fromkeys(urls))
