"""`{% card_support accelerator as support %}`: which PyTorch releases ship kernels for a card,
for the catalog's accelerator page and a plan's build page."""

from django import template

from catalog.models import Accelerator
from planner.compat.selectors import card_support as card_support_of

register = template.Library()


@register.simple_tag
def card_support(accelerator):
    """`accelerator`: the catalog row, or its slug (a plan's stored ranking keeps slugs)."""
    if isinstance(accelerator, str):
        accelerator = Accelerator.objects.filter(slug=accelerator).first()
    return card_support_of(accelerator=accelerator) if accelerator is not None else None
