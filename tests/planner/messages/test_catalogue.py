"""Every sentence the engine can say has a template, and every template a Chinese translation:
no page, export or API answer in Chinese falls back to English."""

import re
from pathlib import Path

import pytest
from django.utils import translation

from catalog.choices import Maturity
from planner.engine.facility import LIMITS
from planner.engine.messages import message
from planner.messages.catalogue import TEMPLATES
from planner.messages.render import render
from tests.test_i18n import po_entries

ENGINE = Path(__file__).resolve().parents[3] / "planner" / "engine"
# Codes the engine builds from a name rather than writes out.
BUILT_CODES = {
    *(f"bottleneck.{part}" for part in ("compute", "memory_bandwidth", "scale_up_link")),
    *(f"bottleneck.{part}" for part in ("fabric", "pipeline_bubble", "memory_capacity")),
    *(f"binding.{limit}" for limit in (*LIMITS, "cooling_type")),
    *(f"maturity.{m}" for m in Maturity.values),
    "score.software.training",
    "score.software.inference",
}


def written_codes() -> set[str]:
    pattern = re.compile(r'\bmessage\(\s*"([a-z0-9_.]+)"')
    return {
        code
        for source in ENGINE.rglob("*.py")
        for code in pattern.findall(source.read_text())
        if not code.endswith(".")  # a prefix the code is built on: BUILT_CODES lists those
    }


def test_every_code_the_engine_says_has_a_template():
    said = written_codes() | BUILT_CODES
    assert len(written_codes()) > 40  # the scan found the engine's messages
    assert sorted(said - TEMPLATES.keys()) == []


def test_every_template_has_a_chinese_translation():
    translated = {msgid: msgstr for _, msgid, msgstr in po_entries() if msgstr}
    # A plural template's entry is under its singular form.
    missing = [
        code
        for code, template in TEMPLATES.items()
        if getattr(template, "one", template) not in translated
    ]
    assert missing == [], "run make messages and translate these codes"


@pytest.mark.parametrize("code", sorted(TEMPLATES))
def test_each_template_renders_in_both_languages_with_figures(code):
    figures = dict.fromkeys(re.findall(r"{(\w+)", TEMPLATES[code]), 1234.5)
    for name in figures:
        if re.search(r"{" + name + r":(or|semicolon)?}", TEMPLATES[code]) or (
            "{" + name + "}" in TEMPLATES[code] and name in ("options", "notes", "reasons")
        ):
            figures[name] = [message("fit.option.zero3"), message("fit.option.full_recompute")]
    with translation.override("en"):
        english = render(message(code, **figures))
    with translation.override("zh-hans"):
        chinese = render(message(code, **figures))
    assert english and chinese
    assert "{" not in english and "{" not in chinese


def test_numbers_keep_their_rounding_and_grouping():
    warning = message("failure.capex", capex=1234567.891, budget=1e6)
    with translation.override("en"):
        assert render(warning) == "over the capex budget (1,234,568 > 1,000,000)"
    with translation.override("zh-hans"):
        assert render(warning) == "超出采购预算（1,234,568 > 1,000,000）"  # noqa: RUF001


def test_a_failure_that_stops_one_build_says_one_build():
    from planner.messages.answers import why_none

    one = {"failures": [message("failure.memory.short")]}
    with translation.override("en"):
        assert "(1 build)" in why_none([one], 1)
        assert "(2 builds)" in why_none([one, one], 2)


@pytest.mark.django_db
def test_cards_and_servers_are_named_by_their_catalog_names(loaded_catalog):
    said = message(
        "first.only", count=8, accelerator="amd-mi300x", server="supermicro-as-8125gs-tnmr2"
    )
    with translation.override("en"):
        text = render(said)
    assert text.startswith("8 x AMD Instinct MI300X in Supermicro A+ Server AS-8125GS-TNMR2")
    assert "amd-mi300x" not in text
    # A slug the catalog does not know is said as it is.
    with translation.override("en"):
        assert render(message("first.only", count=1, accelerator="x1", server="y2")).startswith(
            "1 x x1 in y2"
        )


@pytest.mark.parametrize(
    ("code", "figures"),
    [
        ("warning.years", {"tokens": 1e12, "years": 2.5}),
        ("eta_interconnect.decode", {"percent": 12.0}),
        (
            "stack.default.finetune_few",
            {"framework": "hf", "compile": "eager", "param_dtype": "fp32"},
        ),
    ],
)
def test_a_count_of_one_is_said_in_the_singular(code, figures):
    with translation.override("en"):
        one = render(message(code, devices=1, **figures))
        eight = render(message(code, devices=8, **figures))
    assert "1 device " in one.replace(".", " ") and "devices" not in one
    assert "8 devices" in eight
    # Chinese has one form, translated for both counts.
    with translation.override("zh-hans"):
        for devices in (1, 8):
            chinese = render(message(code, devices=devices, **figures))
            assert f"{devices} " in chinese and "device" not in chinese
