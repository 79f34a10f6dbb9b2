"""A serving plan's pages: per build the rate it sustains under the SLO, its layout (tensor
parallelism x replicas, the batch per replica and what the KV cache holds), its p99 latencies at
the plan's rate and what stops a higher one, on the plan page, the build page, the comparison
and the CSV export, in both languages and without JavaScript.

The plan serves Llama 3 8B at 20 requests/s on H100s, with short requests (128 prompt and 32
output tokens) so an H100's KV cache holds over a thousand of them: the counts must carry their
thousands separator."""

import csv
import io
from html import unescape

import pytest
from django.urls import reverse
from django.utils import translation

from catalog.templatetags.catalog_tags import figure
from planner.plans.services import plan_create
from planner.plans.serving import EXPORT_COLUMNS

pytestmark = pytest.mark.django_db

SERVE = {
    "name": "Short chats",
    "workload": {
        "task": "inference",
        "model": "meta-llama-3-8b",
        "inference": {"prompt_len": 128, "output_len": 32},
    },
    "accelerators": ["nvidia-h100-sxm5-80gb"],
    "count": {"min": 1, "max": 8},
    "target_rps": 20,
    "ttft_ms": 500,
    "tpot_ms": 50,
}
LANGUAGES = [
    ("en", "Serving at the target rate", "the time per output token"),
    ("zh-hans", "目标请求率下的服务", "每输出 token 时间"),
]


@pytest.fixture
def plan(cast, reference_prices):
    return plan_create(data=SERVE, user=cast.planner, team=cast.team)


def layout(plan, cid: int = 0) -> dict:
    return plan.ranking["candidates"][cid]["estimate"]["serving"]


def shown(value, digits: int = 1, language: str = "en") -> str:
    with translation.override(language):
        return str(figure(value, digits))


def page(cast, url: str, language: str) -> str:
    response = cast.browser("viewer").get(url, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return unescape(response.content.decode())


def test_the_engine_gives_each_build_its_layout_and_latencies_at_the_plans_rate(plan):
    for build in plan.ranking["candidates"]:
        serving = build["estimate"]["serving"]
        assert serving["capacity_rps"] >= SERVE["target_rps"]
        assert serving["batch_per_replica"] <= serving["max_batch_per_replica"]
        assert serving["tp"] * serving["replicas"] == build["count"]
        # Below capacity the latencies are within the bounds and no worse than at the edge.
        assert serving["target_ttft_ms"] <= min(serving["ttft_ms"], SERVE["ttft_ms"])
        assert serving["target_tpot_ms"] <= min(serving["tpot_ms"], SERVE["tpot_ms"])
    # 8B's KV cache on one H100: some 63 GiB at 20 MiB a request of 160 tokens.
    assert layout(plan)["max_batch_per_replica"] > 3_000


@pytest.mark.parametrize(("language", "heading", "binding"), LANGUAGES)
def test_plan_page_shows_each_builds_capacity_layout_and_latencies(
    cast, plan, language, heading, binding
):
    html = page(cast, plan.get_absolute_url(), language)
    assert 'class="data ranking with-layout"' in html
    for cid in range(min(3, len(plan.ranking["candidates"]))):
        serving = layout(plan, cid)
        row = html.split(f'id="candidate-{cid}"')[1].split("</tbody>")[0]
        assert shown(serving["capacity_rps"], language=language) in row
        assert f"{serving['tp']} \u00d7 {shown(serving['replicas'], 0, language)}" in row
        batch = shown(serving["batch_per_replica"], 0, language)
        assert f"{batch} / {shown(serving['max_batch_per_replica'], 0, language)}" in row
        ttft, tpot = (
            shown(serving[k], language=language) for k in ("target_ttft_ms", "target_tpot_ms")
        )
        assert f"{ttft} / {tpot}" in row
    # The head names the plan's rate; an H100's KV bound is over a thousand, with its comma.
    assert "20 requests/s" in html
    assert f"{layout(plan)['max_batch_per_replica']:,}" in html
    if layout(plan)["binding"] == "tpot":
        assert binding in html


@pytest.mark.parametrize(("language", "heading", "binding"), LANGUAGES)
def test_build_page_shows_the_serving_section_with_its_sentence(
    cast, plan, language, heading, binding
):
    serving = layout(plan)
    html = page(cast, reverse("planner:plan_candidate", args=[plan.pk, 0]), language)
    section = html.split('id="serving"')[1].split("<h2>")[0]
    assert heading in html
    assert shown(serving["capacity_rps"], language=language) in section
    assert f"{serving['tp']} \u00d7 {serving['replicas']}" in section
    assert shown(serving["max_batch_per_replica"], 0, language) in section
    assert shown(serving["target_ttft_ms"], language=language) in section
    assert shown(serving["target_tpot_ms"], 2, language) in section
    assert shown(serving["ttft_ms"], language=language) in section  # at capacity too
    if serving["binding"] == "tpot":
        assert binding in section
    if language == "en":
        assert "Serves " in section  # the sentence, its first letter raised
    else:
        assert "在延迟上限内每秒可处理" in section


def test_build_page_of_a_training_plan_has_no_serving_section(cast, reference_prices):
    train = plan_create(
        data={
            "workload": {"task": "train", "model": "meta-llama-3-8b", "tokens": 1e10},
            "accelerators": ["nvidia-h100-sxm5-80gb"],
            "count": {"min": 8, "max": 8},
        },
        user=cast.planner,
        team=cast.team,
    )
    html = page(cast, reverse("planner:plan_candidate", args=[train.pk, 0]), "en")
    assert 'id="serving"' not in html
    assert "with-layout" not in page(cast, train.get_absolute_url(), "en")


def test_comparison_lines_up_the_layouts_and_the_latencies_at_the_target(cast, plan):
    ids = list(range(min(2, len(plan.ranking["candidates"]))))
    if len(ids) < 2:
        pytest.skip("one viable build")
    url = reverse("planner:plan_compare", args=[plan.pk])
    html = unescape(cast.browser("viewer").get(url, {"c": ids}).content.decode())
    assert "Batch the KV cache holds (requests)" in html
    assert "TPOT p99 at the target rate (ms)" in html
    for cid in ids:
        assert shown(layout(plan, cid)["target_tpot_ms"], 2) in html  # the comparison shows two


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_csv_export_has_the_serving_columns(cast, plan, language):
    response = cast.browser("viewer").get(
        reverse("planner:plan_export_csv", args=[plan.pk]), HTTP_ACCEPT_LANGUAGE=language
    )
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert set(EXPORT_COLUMNS) <= set(rows[0])
    by_id = {int(r["id"]): r for r in rows}
    for cid, build in enumerate(plan.ranking["candidates"]):
        serving, row = build["estimate"]["serving"], by_id[cid]
        assert int(row["tp"]) == serving["tp"]
        assert int(row["replicas"]) == serving["replicas"]
        assert int(row["batch_per_replica"]) == serving["batch_per_replica"]
        assert int(row["max_batch_per_replica"]) == serving["max_batch_per_replica"]
        assert float(row["ttft_p99_at_target_ms"]) == serving["target_ttft_ms"]
        assert float(row["tpot_p99_at_target_ms"]) == serving["target_tpot_ms"]
        assert row["serving_limit"] == serving["binding"]
        assert float(row["target_rps"]) == SERVE["target_rps"]
        assert float(row["capacity_rps"]) == serving["capacity_rps"]
        assert float(row["ttft_p99_at_capacity_ms"]) == serving["ttft_ms"]
        assert float(row["tpot_p99_at_capacity_ms"]) == serving["tpot_ms"]
        # One batch's time means nothing for a service that runs all year: no days.
        assert row["days"] == ""
        # Machine-readable figures, the sentence in the reader's language.
        assert ("serves " if language == "en" else "在延迟上限内") in row["serving_why"]
