"""Published inference measurements (planner/validation/inference_public.csv)."""

import csv
import dataclasses

import pytest

from planner.validation.groups import REASON_ABOVE
from planner.validation.public_inference import (
    DATA_FILE,
    load_inference_cases,
    run_inference_case,
)

CASES = {c.id: c for c in load_inference_cases()}


def test_every_row_names_its_source_url_table_and_date():
    with DATA_FILE.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert {r["id"] for r in rows} == set(CASES)
    for row in rows:
        assert row["citation"].startswith("https://")
        assert row["table"] and row["date"][:2] == "20"
        assert row["split"] in ("calibration", "held_out")


def test_rows_off_by_more_than_25_percent_carry_a_written_reason():
    for case in CASES.values():
        if abs(run_inference_case(case).error) > REASON_ABOVE:
            assert case.reason, case.id


def test_the_figure_is_one_over_the_published_tokens_per_second():
    # llama.cpp pull request 15802: RTX 3090, llama 8B Q4_0, microbatch 1, 155.02 t/s.
    assert CASES["L1"].measured_tpot_s == pytest.approx(1 / 155.02)
    assert CASES["L1"].request.framework == "llama.cpp"


def test_a_longer_context_predicts_a_slower_token():
    case = CASES["L1"]
    base = run_inference_case(case).predicted_tpot_s
    longer = dataclasses.replace(
        case.request, inference=dataclasses.replace(case.request.inference, prompt_len=16384)
    )
    assert run_inference_case(dataclasses.replace(case, request=longer)).predicted_tpot_s > base


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("nvidia-rtx-4090", "nvidia-rtx-9999", "L2: accelerator 'nvidia-rtx-9999'"),
        (",2025-09-04,", ",,", "L1: date is required"),
        (",llama.cpp,int4,1,256,", ",megatron,int4,1,256,", "L1: framework 'megatron'"),
    ],
)
def test_a_row_with_a_bad_column_is_refused_by_name(tmp_path, old, new, message):
    path = tmp_path / "rows.csv"
    path.write_text(DATA_FILE.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        load_inference_cases(path)
