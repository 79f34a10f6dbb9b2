"""The shipped guide: every entry sourced and in both languages, the issue's Xid codes covered,
and a bad row named by file, line and column."""

import re
import shutil

import pytest

from catalog.loader import CatalogDataError
from planner.faults.reference import BILINGUAL, FAULTS_DIR, read_guide
from planner.faults.services import fault_guide_load
from planner.models import FaultEntry

CJK = re.compile(r"[\u4e00-\u9fff]")
# The issue: "the common codes at least: 13, 31, 43, 45, 48, 61-64, 74, 79, 92, 94, 95, 119,
# 120 and their successors" (154 names the recovery Blackwell-era drivers ask for).
ISSUE_XIDS = {13, 31, 43, 45, 48, 61, 62, 63, 64, 74, 79, 92, 94, 95, 119, 120, 154}


def test_every_guide_entry_has_a_source_link_and_both_languages(guide_rows):
    assert len(guide_rows) >= 30
    for row in guide_rows:
        values = row.values
        assert str(values["source"]).startswith("https://"), row.key
        for name in BILINGUAL:
            assert values[f"{name}_en"], (row.key, name)
            assert CJK.search(str(values[f"{name}_zh"])), (row.key, name, "not Chinese")
            assert not CJK.search(str(values[f"{name}_en"])), (row.key, name, "not English")
        assert values["checks"], row.key


def test_the_guide_covers_the_issues_xid_codes_and_the_seeds_tables(guide_rows):
    codes = {int(c) for row in guide_rows for c in str(row.values["xid_codes"]).split()}
    assert codes >= ISSUE_XIDS
    seeded = {row.key for row in guide_rows if row.values["from_seed"]}
    # The seeds' two quick-reference tables (AI GPU guide §6.4, utilisation article §5.2).
    for key in (
        "xid-79",
        "cuda-out-of-memory",
        "cuda-illegal-memory-access",
        "cuda-misaligned-address",
        "cuda-driver-insufficient",
        "nvidia-smi-no-devices",
        "gpu-missing-after-reboot",
        "loss-nan",
        "nccl-timeout-hang",
        "multinode-low-bandwidth",
        "thermal-slowdown",
        "utilisation-drops",
        "cuda-init-busy",
    ):
        assert key in seeded


def test_nvidia_entries_cite_nvidia_documentation(guide_rows):
    for row in guide_rows:
        if row.values["category"] == "xid":
            assert str(row.values["source"]).startswith("https://docs.nvidia.com/"), row.key
            assert row.values["read_on"] is not None, row.key


@pytest.fixture
def faults_dir(tmp_path):
    target = tmp_path / "faults"
    shutil.copytree(FAULTS_DIR, target)
    return target


def _break_cell(path, key: str, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    start = text.index(f"\n{key},")
    end = text.index("\n", start + 1)
    line = text[start:end]
    assert old in line
    path.write_text(text[:start] + line.replace(old, new, 1) + text[end:], encoding="utf-8")


def test_a_bad_pattern_names_the_file_the_line_and_the_column(faults_dir):
    path = faults_dir / "faults.csv"
    _break_cell(path, "xid-43", "ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR", "(unclosed")
    lines = path.read_text(encoding="utf-8").splitlines()
    expected = next(i for i, line in enumerate(lines, start=1) if line.startswith("xid-43,"))
    with pytest.raises(CatalogDataError) as caught:
        read_guide(faults_dir)
    assert (caught.value.path.name, caught.value.line, caught.value.field) == (
        "faults.csv",
        expected,
        "patterns",
    )
    assert f"faults.csv, line {expected}, patterns" in str(caught.value)


def test_a_row_without_chinese_or_source_is_refused(faults_dir):
    path = faults_dir / "faults.csv"
    _break_cell(path, "xid-43", "Xid 43\uff1aGPU \u505c\u6b62\u5904\u7406,", ",")
    with pytest.raises(CatalogDataError) as caught:
        read_guide(faults_dir)
    assert caught.value.field == "title_zh"


def test_a_slug_given_twice_and_an_unknown_column_are_refused(faults_dir):
    path = faults_dir / "faults.csv"
    shutil.copy(path, faults_dir / "more.csv")
    with pytest.raises(CatalogDataError, match=r"already given at faults\.csv"):
        read_guide(faults_dir)
    (faults_dir / "more.csv").write_text("slug,colour\nx,red\n", encoding="utf-8")
    with pytest.raises(CatalogDataError) as caught:
        read_guide(faults_dir)
    assert (caught.value.line, caught.value.field) == (1, "colour")


@pytest.mark.django_db
def test_loading_twice_changes_nothing_and_keeps_history(faults_dir):
    first = fault_guide_load(data_dir=faults_dir)
    assert first.created == len(read_guide(faults_dir)) and first.updated == 0
    again = fault_guide_load(data_dir=faults_dir)
    assert (again.created, again.updated, again.unchanged) == (0, 0, first.created)
    _break_cell(faults_dir / "faults.csv", "xid-43", ",85,", ",84,")
    changed = fault_guide_load(data_dir=faults_dir)
    assert changed.updated == 1
    entry = FaultEntry.objects.get(reference_key="xid-43")
    assert entry.weight == 84 and entry.history.count() == 2


@pytest.mark.django_db
def test_a_bad_file_changes_nothing(faults_dir):
    fault_guide_load(data_dir=faults_dir)
    _break_cell(faults_dir / "faults.csv", "xid-43", ",85,", ",84,")
    _break_cell(faults_dir / "faults.csv", "xid-45", ",60,", ",sixty,")
    with pytest.raises(CatalogDataError):
        fault_guide_load(data_dir=faults_dir)
    assert FaultEntry.objects.get(reference_key="xid-43").weight == 85
