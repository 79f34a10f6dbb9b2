"""Reads of the catalog that pages and the API share."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.db.models import Count, Max, Model
from django.utils.translation import gettext_lazy as _

from catalog.choices import MATURITY_RANK
from catalog.models import Accelerator, CatalogLoad, ServerPlatform

MAX_COMPARE = 4


@dataclass(frozen=True)
class ComparisonRow:
    dimension: str
    label: str
    cells: list[object]
    best: frozenset[int]  # indexes of the columns holding the best value; empty when not ranked


@dataclass(frozen=True)
class Comparison:
    accelerators: list[Accelerator]
    rows: list[ComparisonRow]


def accelerators_by_slugs(*, slugs: Sequence[str]) -> list[Accelerator]:
    """The accelerators named, in the order given, without duplicates; unknown slugs dropped."""
    wanted = list(dict.fromkeys(slugs))
    found = {a.slug: a for a in Accelerator.objects.filter(slug__in=wanted)}
    return [found[s] for s in wanted if s in found]


def _best(ranks: list[float | None], higher: bool) -> frozenset[int]:
    scored = [(i, r) for i, r in enumerate(ranks) if r is not None]
    if len(scored) < 2:
        return frozenset()
    target = max(r for _, r in scored) if higher else min(r for _, r in scored)
    if all(r == target for _, r in scored):
        return frozenset()
    return frozenset(i for i, r in scored if r == target)


Getter = Callable[[Accelerator], object]


def _figure(attr: str) -> tuple[Getter, Getter]:
    """Show a numeric field and rank by it."""
    return (lambda a: getattr(a, attr)), (lambda a: getattr(a, attr))


def _shown(getter: Getter) -> tuple[Getter, None]:
    """Show a value that has no better or worse."""
    return getter, None


def _maturity(attr: str) -> tuple[Getter, Getter]:
    return (
        lambda a: getattr(a, f"get_{attr}_display")(),
        lambda a: MATURITY_RANK[getattr(a, attr)],
    )


def _comparison_spec():
    # (dimension, label, (display getter, rank getter or None), higher is better)
    memory, bandwidth, compute = _("Memory capacity"), _("Memory bandwidth"), _("Compute")
    link, cooling, software = (
        _("Interconnect"),
        _("Cooling and form factor"),
        _("Software and drivers"),
    )
    return [
        (memory, _("Memory (GiB)"), _figure("memory_gib"), True),
        (memory, _("Memory type"), _shown(lambda a: a.memory_type), True),
        (bandwidth, _("Bandwidth (GB/s)"), _figure("memory_bw_gb_s"), True),
        (compute, _("BF16 dense (TFLOP/s)"), _figure("bf16_tflops"), True),
        (compute, _("FP8 dense (TFLOP/s)"), _figure("fp8_tflops"), True),
        (compute, _("INT8 dense (TOPS)"), _figure("int8_tflops"), True),
        (link, _("Scale-up link"), _shown(lambda a: a.scale_up_link or None), True),
        (link, _("Scale-up per direction (GB/s)"), _figure("scale_up_gb_s"), True),
        (link, _("Scale-up domain"), _figure("scale_up_domain"), True),
        (
            link,
            _("PCIe"),
            _shown(lambda a: f"Gen{a.pcie_gen} x{a.pcie_lanes}" if a.pcie_gen else None),
            True,
        ),
        (cooling, _("Form factor"), _shown(lambda a: a.get_form_factor_display()), True),
        (cooling, _("Cooling"), _shown(lambda a: a.get_cooling_display()), True),
        (cooling, _("Board power (W)"), _figure("board_power_w"), False),
        (cooling, _("Slot width"), _shown(lambda a: a.slot_width), False),
        (software, _("Stack"), _shown(lambda a: a.get_software_stack_display()), True),
        (software, _("Training support"), _maturity("training_maturity"), True),
        (software, _("Inference support"), _maturity("inference_maturity"), True),
        (software, _("ECC"), (lambda a: a.ecc, lambda a: float(a.ecc)), True),
        (software, _("Hardware partitions"), _figure("mig_instances"), True),
    ]


def accelerator_comparison(*, accelerators: Sequence[Accelerator]) -> Comparison:
    """The raw figures behind the five scoring dimensions, side by side, best value marked."""
    rows = []
    for dimension, label, (show, rank), higher in _comparison_spec():
        cells = [show(a) for a in accelerators]
        best = _best([rank(a) for a in accelerators], higher) if rank else frozenset()
        rows.append(ComparisonRow(dimension, label, cells, best))
    return Comparison(list(accelerators), rows)


def catalog_last_load() -> CatalogLoad | None:
    return CatalogLoad.objects.order_by("-started_at").first()


def catalog_version(model: type[Model]) -> str:
    """Changes whenever a row of `model` is added, changed or removed: part of the key under
    which its rendered lists are cached, so a load or an admin edit shows at once."""
    seen = model.objects.aggregate(rows=Count("pk"), last=Max("updated_at"))
    return f"{seen['rows']}:{seen['last'].isoformat() if seen['last'] else ''}"


def display_names(*, slugs: Sequence[str]) -> dict[str, str]:
    """What the catalog calls each accelerator and server among `slugs` ("AMD Instinct
    MI300X"), by slug; a slug it does not know is left out."""
    wanted = set(slugs)
    return {
        item.slug: item.name if item.name.startswith(item.vendor) else f"{item.vendor} {item.name}"
        for model in (Accelerator, ServerPlatform)
        for item in model.objects.filter(slug__in=wanted).only("slug", "vendor", "name")
    }
