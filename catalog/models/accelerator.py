from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from catalog.choices import (
    AcceleratorKind,
    Cooling,
    FormFactor,
    Maturity,
    Precision,
    Segment,
    SoftwareStack,
)
from catalog.models.base import CatalogItem, positive

RATE_FIELDS = tuple(f"{p.value}_tflops" for p in Precision)


def _rate(label: str) -> models.FloatField:
    return models.FloatField(
        label,
        null=True,
        blank=True,
        help_text=_("Dense peak, TFLOP/s (TOPS for integers); empty where unsupported"),
    )


class Accelerator(CatalogItem):
    """A GPU, NPU or other accelerator one can buy, with datasheet figures.

    FLOP rates are dense peaks: where a vendor's headline assumes 2:4 structured sparsity the
    stored figure is the dense one and `headline_sparsity` records that the headline differs.
    """

    vendor = models.CharField(_("vendor"), max_length=40)
    kind = models.CharField(_("kind"), max_length=8, choices=AcceleratorKind.choices)
    segment = models.CharField(_("segment"), max_length=12, choices=Segment.choices)
    architecture = models.CharField(_("architecture"), max_length=40)
    launch_year = models.PositiveSmallIntegerField(
        _("launch year"), validators=[MinValueValidator(2010), MaxValueValidator(2035)]
    )

    memory_gib = models.FloatField(_("memory (GiB)"), help_text=_("Device memory, GiB"))
    memory_type = models.CharField(_("memory type"), max_length=20)
    memory_bw_gb_s = models.FloatField(
        _("memory bandwidth (GB/s)"), help_text=_("Peak device memory bandwidth, GB/s (10^9 B/s)")
    )

    fp64_tflops = _rate("FP64")
    fp32_tflops = _rate("FP32")
    tf32_tflops = _rate("TF32")
    fp16_tflops = _rate("FP16")
    bf16_tflops = _rate("BF16")
    fp8_tflops = _rate("FP8")
    int8_tflops = _rate("INT8")
    int4_tflops = _rate("INT4")
    headline_sparsity = models.BooleanField(
        _("headline assumes sparsity"),
        default=False,
        help_text=_("The vendor's headline tensor figure is the 2:4 sparse one"),
    )
    bf16_sparse_tflops = models.FloatField(
        _("BF16 with sparsity"),
        null=True,
        blank=True,
        help_text=_("Vendor's sparse BF16/FP16 figure, TFLOP/s; for reference only"),
    )

    board_power_w = models.FloatField(_("board power (W)"), help_text=_("TDP / TBP, watts"))
    form_factor = models.CharField(_("form factor"), max_length=10, choices=FormFactor.choices)
    cooling = models.CharField(_("cooling"), max_length=10, choices=Cooling.choices)
    slot_width = models.FloatField(
        _("slot width"), null=True, blank=True, help_text=_("PCIe slots occupied")
    )
    ecc = models.BooleanField(_("ECC memory"), default=False)
    mig_instances = models.PositiveSmallIntegerField(
        _("hardware partitions"), default=0, help_text=_("MIG or equivalent; 0 when none")
    )
    scale_up_link = models.CharField(_("scale-up link"), max_length=60, blank=True)
    scale_up_gb_s = models.FloatField(
        _("scale-up bandwidth (GB/s)"),
        null=True,
        blank=True,
        help_text=_("Per device, per direction, GB/s"),
    )
    scale_up_domain = models.PositiveSmallIntegerField(
        _("scale-up domain"), default=1, help_text=_("Most devices in one scale-up domain")
    )
    pcie_gen = models.PositiveSmallIntegerField(_("PCIe generation"), null=True, blank=True)
    pcie_lanes = models.PositiveSmallIntegerField(_("PCIe lanes"), null=True, blank=True)

    software_stack = models.CharField(
        _("software stack"), max_length=10, choices=SoftwareStack.choices
    )
    training_maturity = models.CharField(
        _("training support"), max_length=12, choices=Maturity.choices
    )
    inference_maturity = models.CharField(
        _("inference support"), max_length=12, choices=Maturity.choices
    )

    class Meta(CatalogItem.Meta):
        verbose_name = _("accelerator")
        verbose_name_plural = _("accelerators")
        constraints = [
            *CatalogItem.Meta.constraints,
            positive("memory_gib"),
            positive("memory_bw_gb_s"),
            positive("board_power_w"),
            *(positive(field, nullable=True) for field in RATE_FIELDS),
            positive("slot_width", nullable=True),
            positive("scale_up_gb_s", nullable=True),
            positive("scale_up_domain"),
            models.CheckConstraint(
                condition=Q(bf16_sparse_tflops__isnull=True)
                | Q(bf16_tflops__isnull=False, bf16_sparse_tflops__gte=F("bf16_tflops")),
                name="accelerator_dense_not_above_sparse",
                violation_error_message=_("The dense BF16 rate cannot exceed the sparse one."),
            ),
            models.CheckConstraint(
                condition=Q(launch_year__gte=2010, launch_year__lte=2035),
                name="accelerator_launch_year_sane",
            ),
        ]

    def get_absolute_url(self) -> str:
        return reverse("catalog:accelerator_detail", kwargs={"slug": self.slug})

    def tflops(self, precision: str) -> float | None:
        """Dense peak rate for a precision value of `Precision`, or None where unsupported."""
        return getattr(self, f"{precision}_tflops")

    @property
    def supported_precisions(self) -> list[str]:
        return [p.value for p in Precision if self.tflops(p.value)]
