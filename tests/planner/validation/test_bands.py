"""The uncertainty bands (planner/validation/bands.py): computed from the validation rows by
`manage.py bands`, kept in planner/validation/bands.json, looked up by job, metric and
framework."""

import csv
import json

import pytest
from django.core.management import CommandError, call_command

from planner.validation import bands, measured, public, public_inference
from planner.validation.bands import (
    BANDS_FILE,
    answer_framework,
    band_for,
    build,
    collect,
    compute_bands,
    rows_digest,
    uncertainty,
    write,
)
from planner.validation.groups import Observation, percentile

OBSERVED = collect()


def _obs(row, error, *, framework="hf", split="held_out", metric="throughput", job="training"):
    return Observation(row, "src", job, metric, framework, split, error)


def test_the_committed_band_file_is_what_the_rows_give_today():
    # A stale file fails here: run `manage.py bands` after changing a row or the engine.
    call_command("bands", "--check")
    data = json.loads(BANDS_FILE.read_text(encoding="utf-8"))
    assert data == build(OBSERVED, rows_digest())
    assert data["made_by"] == "manage.py bands" and data["rows_sha256"]


def test_every_band_names_its_rows_and_their_sources():
    data = json.loads(BANDS_FILE.read_text(encoding="utf-8"))
    rows = {o.row for o in OBSERVED}
    for band in data["bands"]:
        assert band["rows"] == len(band["row_ids"]) > 0
        assert set(band["row_ids"]) <= rows
        assert band["sources"] and 0 <= band["p50"] <= band["p90"]


def test_percentiles_interpolate_between_ranks():
    assert percentile([0.1], 0.9) == 0.1
    assert percentile([0.0, 0.1, 0.2, 0.3, 0.4], 0.5) == 0.2
    assert percentile([0.0, 1.0], 0.9) == pytest.approx(0.9)


def test_a_band_comes_from_held_out_rows_when_there_are_enough():
    found = [
        _obs("A", 0.02),
        _obs("B", -0.04),
        _obs("C", 0.06),
        _obs("D", 0.5, split="calibration"),
    ]
    (hf,) = [b for b in compute_bands(found) if b["framework"] == "hf"]
    assert hf["held_out"] and hf["row_ids"] == ["A", "B", "C"]
    assert hf["p50"] == 0.04


def test_too_few_held_out_rows_count_the_calibration_rows_too():
    found = [
        _obs("A", 0.02),
        _obs("B", 0.30, split="calibration"),
        _obs("C", 0.1, split="calibration"),
    ]
    (hf,) = [b for b in compute_bands(found) if b["framework"] == "hf"]
    assert not hf["held_out"] and hf["rows"] == 3 and hf["p50"] == 0.1


def _rewrite_measured(tmp_path, row_id, **changes):
    """A copy of the H200 rows with one row's columns changed."""
    with measured.DATA_FILE.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        if row["id"] == row_id:
            row.update(changes)
    path = tmp_path / "h200_measured.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_changing_the_rows_moves_the_band(tmp_path):
    path = tmp_path / "bands.json"
    write(build(OBSERVED, "today"), path)
    before = band_for("inference", "decode", "vllm", path)
    # HD9 (a held-out static-graph decode row) becomes a calibration row: the vLLM-style band
    # loses it and its error.
    changed = _rewrite_measured(tmp_path, "HD9", split="calibration")
    after_rows = collect(measured_file=changed)
    bands._load.cache_clear()
    write(build(after_rows, "changed"), path)
    after = band_for("inference", "decode", "vllm", path)
    assert before is not None and after is not None
    assert after.rows == before.rows - 1
    assert (after.p50, after.p90) != (before.p50, before.p90)


def test_a_question_on_a_framework_without_held_out_rows_takes_the_pooled_band():
    torchtitan = band_for("training", "throughput", "torchtitan")  # calibration rows only
    assert torchtitan is not None
    assert torchtitan.held_out and torchtitan.framework == bands.ANY_FRAMEWORK
    hf = band_for("training", "throughput", "hf")
    assert hf is not None and hf.framework == "hf"
    # The NeMo and Megatron-Bridge FP8 and long-sequence rows hold Megatron out on its own.
    megatron = band_for("training", "throughput", "megatron")
    assert megatron is not None and megatron.framework == "megatron"


def test_serving_memory_with_no_serving_rows_is_judged_by_every_job_and_says_so():
    band = band_for("inference", "memory", "vllm")
    assert band is not None and band.job == bands.ANY_JOB


def test_uncertainty_gives_a_band_for_each_figure_of_the_job():
    training = uncertainty("finetune", "hf")
    assert training["job"] == "training"
    assert set(training) == {"job", "throughput", "memory"}
    serving = uncertainty("inference", "llama.cpp")
    assert serving["decode"]["framework"] == "llama.cpp"
    assert serving["decode"]["sources"] == ["llama.cpp llama-bench tables in CUDA pull requests"]
    assert serving["prefill"]["p50_pct"] > 0


def test_the_answer_names_its_framework_in_the_stack_sentence():
    answer = {"messages": [{"field": "explanations.stack", "params": {"framework": "vllm"}}]}
    assert answer_framework(answer) == "vllm"
    assert answer_framework({"messages": []}) is None


def test_check_fails_on_a_stale_file(tmp_path, monkeypatch):
    stale = tmp_path / "bands.json"
    stale.write_text(json.dumps({"format_version": 1, "bands": []}), encoding="utf-8")
    monkeypatch.setattr("planner.management.commands.bands.BANDS_FILE", stale)
    with pytest.raises(CommandError, match="stale"):
        call_command("bands", "--check")


def test_rows_digest_covers_every_row_file():
    files = bands.row_files()
    assert public.DATA_FILE in files and public_inference.DATA_FILE in files
    assert measured.DATA_FILE in files
