from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from catalog.models.base import CatalogItem, positive


class ModelArchitecture(CatalogItem):
    """The shape of a transformer model: what memory and FLOP estimates are computed from."""

    family = models.CharField(_("family"), max_length=40)
    params = models.BigIntegerField(_("parameters"), help_text=_("Total parameter count"))
    active_params = models.BigIntegerField(
        _("active parameters"), help_text=_("Parameters used per token (MoE: active experts)")
    )
    layers = models.PositiveIntegerField(_("layers"))
    hidden = models.PositiveIntegerField(_("hidden size"))
    heads = models.PositiveIntegerField(_("attention heads"))
    kv_heads = models.PositiveIntegerField(_("KV heads"))
    ffn = models.PositiveIntegerField(_("FFN size"), help_text=_("Intermediate size per expert"))
    vocab = models.PositiveIntegerField(_("vocabulary"))
    context = models.PositiveIntegerField(_("context length"), help_text=_("Tokens"))
    experts = models.PositiveIntegerField(_("experts"), default=1)
    active_experts = models.PositiveIntegerField(_("active experts"), default=1)

    class Meta(CatalogItem.Meta):
        verbose_name = _("model architecture")
        verbose_name_plural = _("model architectures")
        ordering = ["family", "params"]
        constraints = [
            *CatalogItem.Meta.constraints,
            *(
                positive(field)
                for field in ("params", "active_params", "layers", "hidden", "heads")
            ),
            *(positive(field) for field in ("kv_heads", "ffn", "vocab", "context", "experts")),
            models.CheckConstraint(
                condition=Q(active_params__lte=F("params")),
                name="modelarchitecture_active_within_total",
                violation_error_message=_("Active parameters cannot exceed the total."),
            ),
            models.CheckConstraint(
                condition=Q(kv_heads__lte=F("heads")),
                name="modelarchitecture_kv_heads_within_heads",
                violation_error_message=_("KV heads cannot exceed attention heads."),
            ),
            models.CheckConstraint(
                condition=Q(active_experts__gte=1, active_experts__lte=F("experts")),
                name="modelarchitecture_active_experts_within_experts",
                violation_error_message=_("Active experts must be between 1 and the experts."),
            ),
        ]

    def get_absolute_url(self) -> str:
        return reverse("catalog:model_detail", kwargs={"slug": self.slug})

    def clean(self) -> None:
        super().clean()
        if self.heads and self.kv_heads and self.heads % self.kv_heads:
            raise ValidationError(
                {"kv_heads": _("Attention heads must be a multiple of KV heads.")}
            )

    @property
    def is_moe(self) -> bool:
        return self.experts > 1
