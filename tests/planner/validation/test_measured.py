"""The runs measured on an H200 (planner/validation/h200_measured.csv and the reports in
planner/validation/measurements/) replayed through the engine."""

import dataclasses
import json
from io import StringIO

import pytest
from django.core.management import call_command

from planner.validation.measured import (
    DATA_FILE,
    MEASUREMENTS,
    find_measurement,
    load_measured_cases,
    run_measured_case,
)
from planner.validation.rows import SPLITS

CASES = {c.id: c for c in load_measured_cases()}


def test_every_declared_row_loads_with_its_stack_and_split():
    assert len(CASES) == 57
    assert {c.kind for c in CASES.values()} == {"train", "decode", "prefill"}
    for case in CASES.values():
        assert case.source == "h200-measured"
        assert case.framework in {"hf", "static-graph"}
        assert case.split in SPLITS
    assert CASES["HT12"].compile and not CASES["HT7"].compile
    assert CASES["HD1"].cuda_graphs and not CASES["HD13"].cuda_graphs


def test_figures_are_read_from_the_report_the_row_names():
    report = json.loads((MEASUREMENTS / CASES["HT7"].report).read_text(encoding="utf-8"))
    run = find_measurement(
        report, "model=llama-1.5b;mode=eager;micro_batch=8;activation_checkpointing=false", "HT7"
    )
    assert CASES["HT7"].measured["tokens_per_s"] == run["tokens_per_s"]
    assert CASES["HT7"].measured["peak_reserved_gib"] == run["memory"]["max_reserved_gib"]
    assert CASES["HT7"].request.model.layers == run["layers"] == 26


def test_a_run_that_ran_out_of_memory_gives_only_a_fits_verdict():
    assert CASES["HT8"].measured == {"fits": False}
    assert run_measured_case(CASES["HT8"]).error("tokens_per_s") is None


def test_every_report_records_its_command_date_and_versions():
    for path in MEASUREMENTS.glob("*/*.json"):
        env = json.loads(path.read_text(encoding="utf-8"))["environment"]
        assert "measure_h200" in env["command"], path
        assert env["date_utc"].startswith("2026-"), path
        assert env["gpu"]["name"] == "NVIDIA H200", path
        assert env["torch"] and env["transformers"] and env["nvidia_smi"]["driver_version"]


def test_a_row_that_selects_no_measurement_is_refused_by_name(tmp_path):
    text = DATA_FILE.read_text(encoding="utf-8").replace("micro_batch=8;", "micro_batch=3;", 1)
    bad = tmp_path / "rows.csv"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=r"HT2: match .* selects 0 results"):
        load_measured_cases(bad)


def test_a_row_with_an_unknown_kind_is_refused(tmp_path):
    text = DATA_FILE.read_text(encoding="utf-8").replace(",train,", ",pretrain,", 1)
    bad = tmp_path / "rows.csv"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match="HT1: kind must be one of"):
        load_measured_cases(bad)


def test_predictions_follow_the_question_rather_than_the_row():
    train = CASES["HT6"]
    model = train.request.model
    deeper = dataclasses.replace(
        train.request, model=dataclasses.replace(model, layers=model.layers * 2)
    )
    base = run_measured_case(train).predicted["tokens_per_s"]
    slower = run_measured_case(dataclasses.replace(train, request=deeper)).predicted
    assert slower["tokens_per_s"] < 0.7 * base

    decode = CASES["HD9"]
    bigger = dataclasses.replace(
        decode.request,
        inference=dataclasses.replace(decode.request.inference, batch=64),
    )
    one = run_measured_case(decode).predicted["tpot_s"]
    assert run_measured_case(dataclasses.replace(decode, request=bigger)).predicted["tpot_s"] > one


def test_validate_prints_each_source_group_with_its_counts_and_the_bar():
    out = StringIO()
    call_command("validate", "--summary", stdout=out)
    lines = out.getvalue().splitlines()

    def line(source, job, metric):
        (found,) = [
            x for x in lines if x.startswith(source) and f" {job} " in x and f" {metric} " in x
        ]
        return found.split()

    narayanan = line("Narayanan et al. 2021, Table 1", "training", "throughput")
    at = narayanan.index("throughput")
    assert narayanan[at + 1 : at + 3] == ["10", "0"]  # rows, held-out rows
    assert "not judged" in " ".join(narayanan)
    for job, metric in (
        ("training", "throughput"),
        ("training", "memory"),
        ("inference", "decode"),
    ):
        cells = " ".join(line("h200-measured", job, metric))
        assert "meets 8 %" in cells or "misses 8 %" in cells
    assert line("h200-measured", "inference", "prefill")[-1] == "held-out)"
    text = "\n".join(lines)
    assert "groups of >= 8 held-out rows meeting a median of 8 %: " in text
    assert "fits verdicts on measured runs: " in text
    assert "without a written reason: " in text


def test_validate_prints_every_measured_row():
    out = StringIO()
    call_command("validate", stdout=out)
    for row_id in CASES:
        assert f"\n{row_id} " in out.getvalue()


def test_every_fits_verdict_on_a_measured_run_is_right():
    wrong = [
        case.id
        for case in CASES.values()
        if "fits" in case.measured
        and run_measured_case(case).predicted["fits"] != case.measured["fits"]
    ]
    assert wrong == []


def test_the_run_that_ran_out_of_memory_fits_on_a_card_with_more_memory_or_a_smaller_batch():
    # HT8 (1.5B, micro-batch 16, no checkpointing) ran out of memory on the H200's 139.80 GiB.
    oom = CASES["HT8"]
    assert run_measured_case(oom).predicted["fits"] is False
    card = oom.request.accelerator
    larger = dataclasses.replace(
        oom.request, accelerator=dataclasses.replace(card, memory_gib=card.memory_gib * 1.25)
    )
    assert run_measured_case(dataclasses.replace(oom, request=larger)).predicted["fits"] is True
    layout = dataclasses.replace(oom.request.parallelism, micro_batch=8)
    smaller = dataclasses.replace(oom.request, micro_batch=8, global_batch=8, parallelism=layout)
    assert run_measured_case(dataclasses.replace(oom, request=smaller)).predicted["fits"] is True


def test_run_one_kept_the_training_kv_cache_and_run_two_did_not():
    assert CASES["HT7"].request.use_cache is True
    assert CASES["HT16"].request.use_cache is False
    with_cache = run_measured_case(CASES["HT7"]).predicted["peak_reserved_gib"]
    without = run_measured_case(CASES["HT16"]).predicted["peak_reserved_gib"]
    assert with_cache > without


def test_graph_replayed_rows_are_answered_as_compiled_generate_and_banded_with_serving():
    graph, eager = CASES["HD9"], CASES["HD21"]
    assert graph.request.framework == "hf" and graph.request.compile
    assert eager.request.framework == "hf" and not eager.request.compile
    assert graph.band_framework == "vllm" and eager.band_framework == "hf"


def test_every_row_off_by_more_than_a_quarter_says_why():
    for case in CASES.values():
        outcome = run_measured_case(case)
        errors = [outcome.error(m) for m in ("tokens_per_s", "peak_reserved_gib", "tpot_s")]
        if any(e is not None and abs(e) > 0.25 for e in errors):
            assert case.reason, case.id
    assert "bound by the host" in CASES["HD13"].reason and not CASES["HD5"].reason
