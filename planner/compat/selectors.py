"""Reads of the compatibility data: what a card is, and which PyTorch releases support it."""

from __future__ import annotations

from planner.compat import data, rules


def compute_capability_of(slug: str) -> str | None:
    row = data.capabilities().get(slug)
    return row.compute_capability if row else None


def card_support(*, accelerator) -> dict | None:
    """Per PyTorch release, the CUDA builds whose kernels run on the card, for the catalog and
    the plan pages ("which current releases support it, and which do not yet"). None for a card
    whose compute capability is not recorded."""
    capability = compute_capability_of(accelerator.slug)
    if accelerator.software_stack == "rocm":
        rows = [
            {"torch": t, "builds": [b.build for b in rules.builds_of(t, "rocm")], "unknown": []}
            for t in rules.releases()
        ]
        return {"capability": None, "stack": "rocm", "rows": rows[::-1], "sources": _sources()}
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
    return {"capability": capability, "stack": "cuda", "rows": rows[::-1], "sources": _sources()}


def _sources() -> list[str]:
    urls = [u for b in data.torch_builds() for u in b.sources]
    return list(dict.fromkeys(urls))
