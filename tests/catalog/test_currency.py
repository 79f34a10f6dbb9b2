"""Amounts as pages write them: thousands separated, small ones with their cents."""

import pytest
from django.utils import translation

from catalog.currency import amount_text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.55, "1.55"),  # a LoRA job's rent: not "2"
        (0.1746, "0.17"),
        (99.999, "100.00"),
        (100.4, "100"),
        (552960000.0, "552,960,000"),
        (-1234.5, "-1,234"),
    ],
)
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_an_amount_keeps_its_cents_below_a_hundred_and_groups_its_thousands(value, text, language):
    with translation.override(language):
        assert amount_text(value) == text
