"""The diagnosis over the shipped guide, through the selector and `manage.py diagnose`: the
issue's done-when lines, both languages, the Estimate link of an out-of-memory match."""

import json

import pytest
from django.core.management import call_command
from django.utils import translation

from planner.faults.selectors import diagnosis_json, fault_diagnosis
from tests.planner.faults.conftest import ILLEGAL_ACCESS, NOTHING, OOM, XID_79

pytestmark = pytest.mark.django_db


def keys(text: str, user=None) -> list[str]:
    return [m.entry.reference_key for m in fault_diagnosis(text=text, user=user).matches]


def test_the_issues_xid_79_line_matches_xid_79_first(fault_guide):
    diagnosis = fault_diagnosis(text=XID_79, user=None)
    first = diagnosis.matches[0]
    assert first.entry.reference_key == "xid-79"
    assert first.match.evidence.line == XID_79
    assert first.match.xid_code == 79


def test_illegal_memory_access_and_out_of_memory_match_their_entries(fault_guide):
    assert keys(ILLEGAL_ACCESS)[0] == "cuda-illegal-memory-access"
    assert keys(OOM)[0] == "cuda-out-of-memory"


def test_text_that_matches_nothing_says_so(fault_guide, tmp_path, capsys):
    assert keys(NOTHING) == []
    log = tmp_path / "train.log"
    log.write_text(NOTHING, encoding="utf-8")
    call_command("diagnose", str(log))
    assert "No known fault matches this text." in capsys.readouterr().out
    call_command("diagnose", str(log), "--format", "json")
    assert json.loads(capsys.readouterr().out)["matches"] == []


def test_a_mixed_log_ranks_the_exact_xid_above_the_words(fault_guide):
    text = "\n".join(
        [
            "[ 100.1] NVRM: Xid (PCI:0000:3b:00): 48, pid=4242, DBE (double bit error) ECC error",
            "[ 100.2] NVRM: Xid (PCI:0000:3b:00): 45, pid=4242, Ch 00000010",
            "Epoch 1 step 200 loss nan",
        ]
    )
    found = keys(text)
    assert found[:2] == ["xid-48", "xid-45"]
    assert "loss-nan" in found


def test_the_command_answers_json_with_matches_evidence_and_sources(fault_guide, tmp_path, capsys):
    log = tmp_path / "dmesg.txt"
    log.write_text(f"[ 812.4] {XID_79}\n{OOM}\n", encoding="utf-8")
    call_command("diagnose", str(log), "--format", "json")
    answer = json.loads(capsys.readouterr().out)
    first = answer["matches"][0]
    assert first["key"] == "xid-79"
    assert first["evidence"] == {"line_number": 1, "line": f"[ 812.4] {XID_79}"}
    assert first["source"].startswith("https://docs.nvidia.com/")
    assert "nvidia-smi -q" in first["checks"]
    oom = next(m for m in answer["matches"] if m["key"] == "cuda-out-of-memory")
    assert oom["compute"]["kind"] == "estimate"


def test_the_command_answers_in_chinese(fault_guide, tmp_path, capsys):
    log = tmp_path / "err.txt"
    log.write_text(ILLEGAL_ACCESS, encoding="utf-8")
    call_command("diagnose", str(log), "--format", "json", "--language", "zh-hans")
    first = json.loads(capsys.readouterr().out)["matches"][0]
    assert first["title"] == "CUDA 错误：遇到非法显存访问"  # noqa: RUF001 (the guide's Chinese)


def test_an_unreadable_file_exits_2_with_one_line(fault_guide, capsys):
    with pytest.raises(SystemExit) as exit_:
        call_command("diagnose", "/nonexistent/dmesg.txt")
    assert exit_.value.code == 2
    assert capsys.readouterr().err.startswith("error: file:")


def test_an_out_of_memory_match_carries_the_job_to_the_estimate_page(fault_guide):
    job = {
        "task": "train",
        "model": "meta-llama-3-8b",
        "accelerator": "nvidia-rtx-4090",
        "count": 1,
    }
    found = fault_diagnosis(text=OOM, user=None, job=job).matches[0]
    assert found.link_url.startswith("/estimate/?task=train&model=meta-llama-3-8b")
    assert found.link_url.endswith("#results")


def test_throttling_links_to_the_rack_groups(fault_guide):
    text = "    HW Thermal Slowdown               : Active"
    found = fault_diagnosis(text=text, user=None).matches[0]
    assert found.entry.reference_key == "thermal-slowdown"
    assert found.link_url == "/sites/"


def test_the_json_speaks_the_active_language(fault_guide):
    with translation.override("zh-hans"):
        answer = diagnosis_json(fault_diagnosis(text=XID_79, user=None))
    assert answer["matches"][0]["title"].startswith("Xid 79：")  # noqa: RUF001
