"""The rules as NVIDIA and PyTorch state them, on the seed articles' examples. No database."""

import subprocess
import sys

import pytest

from planner.compat import data
from planner.compat.rules import Stack, check, runs_on
from planner.compat.sentences import english
from planner.compat.smi import parse_nvidia_smi
from planner.engine import RequestError


def sentences(messages) -> str:
    return " ".join(english(m) for m in messages)


def test_a_470_driver_cannot_run_a_cuda_12_build_and_is_pointed_at_cu118():
    # NVIDIA minor-version compatibility guide: CUDA 12.x needs >= 525 (525.60.13, the 12.0
    # GA driver); the seed's "CUDA driver version is insufficient".
    verdict = check(Stack(driver="470.82.01", torch="2.4", build="cu121"))
    assert not verdict.compatible
    problem = sentences(verdict.problems)
    assert "525.60.13" in problem and "470.82.01" in problem and "CUDA 12.1" in problem
    assert "insufficient" in problem
    first = verdict.fixes[0]
    assert first.command == (
        "pip install torch==2.4.0 --index-url https://download.pytorch.org/whl/cu118"
    )
    assert [f.effort for f in verdict.fixes] == sorted(f.effort for f in verdict.fixes)
    # The driver that runs CUDA 12.1 in full: the 12.1 GA installer's 530.30.02.
    assert "530.30.02" in english(verdict.fixes[-1].sentence)


def test_a_525_driver_runs_a_cuda_12_4_build_through_minor_version_compatibility():
    verdict = check(Stack(driver="525", torch="2.5", build="cu124"))
    assert verdict.compatible and verdict.limited
    note = sentences(verdict.notes)
    assert "minor-version compatibility" in note
    assert "newer than CUDA 12.0" in note  # the newest the 525 branch supports in full
    assert "PTX" in note  # the limit NVIDIA lists


def test_a_525_60_13_driver_supports_12_0_in_full_and_nothing_newer():
    full = check(Stack(driver="525.60.13", cuda="12.0"))
    assert full.compatible and not full.limited
    newer = check(Stack(driver="525.60.13", cuda="12.4"))
    assert newer.compatible and newer.limited


def test_an_rtx_5090_cannot_run_pytorch_2_5_cu124_and_needs_the_cu128_build_of_2_7():
    verdict = check(
        Stack(card="GeForce RTX 5090", compute_capability="12.0", torch="2.5", build="cu124")
    )
    assert not verdict.compatible
    problem = sentences(verdict.problems)
    assert "12.0" in problem and "2.5+cu124" in problem
    assert verdict.fixes[0].command == (
        "pip install torch==2.7.0 --index-url https://download.pytorch.org/whl/cu128"
    )


def test_an_h100_with_driver_550_and_pytorch_2_4_cu121_is_compatible():
    verdict = check(
        Stack(card="H100", compute_capability="9.0", driver="550", torch="2.4", build="cu121")
    )
    assert verdict.compatible and not verdict.limited and not verdict.fixes


def test_a_cuda_13_build_needs_a_580_driver():
    verdict = check(Stack(driver="570.86.10", torch="2.13", build="cu130"))
    assert not verdict.compatible
    assert "580.65.06" in sentences(verdict.problems)


def test_without_a_build_the_check_names_the_one_that_fits():
    verdict = check(Stack(driver="470", torch="2.5"))
    assert verdict.compatible and verdict.build.build == "cu118"


def test_a_build_the_release_does_not_ship_is_a_clash_naming_both():
    verdict = check(Stack(driver="550", torch="2.5", build="cu128"))
    assert not verdict.compatible
    assert "PyTorch 2.5 has no cu128 build (CUDA 12.8)" in sentences(verdict.problems)
    assert verdict.fixes[0].command.endswith("/whl/cu124")


@pytest.mark.parametrize(
    ("arch", "capability", "runs"),
    [
        ("8.0", "8.6", True),  # sm_80 runs on 8.6: same major, higher minor
        ("8.6", "8.0", False),
        ("9.0", "12.0", False),  # never across majors
        ("9.0a", "9.0", True),
        ("9.0a", "9.1", False),  # arch-specific: that capability only
        ("12.0+PTX", "12.1", True),
        ("10.0+PTX", "12.0", True),  # PTX runs on newer capabilities
    ],
)
def test_binary_compatibility_follows_nvidia(arch, capability, runs):
    assert runs_on(arch, capability) is runs


def test_every_row_of_the_data_has_a_source_and_a_date():
    rows = [
        *data.toolkits(),
        *data.families().values(),
        *data.torch_builds(),
        *data.capabilities().values(),
    ]
    assert rows
    for row in rows:
        assert row.sources and all(u.startswith("https://") for u in row.sources), row
        assert row.read_on, row
    assert all(b.source.startswith("https://") and b.read_on for b in data.branches().values())


def test_every_nvidia_card_in_the_catalog_has_a_compute_capability():
    import csv

    from planner.compat.data import DATA_DIR

    with (DATA_DIR.parent / "accelerators" / "nvidia.csv").open(encoding="utf-8") as handle:
        slugs = {row["slug"] for row in csv.DictReader(handle)}
    assert slugs == set(data.capabilities())


SMI = """
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 525.60.13              Driver Version: 525.60.13      CUDA Version: 12.0     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
|=========================================+========================+======================|
|   0  NVIDIA H100 80GB HBM3          On  |   00000000:18:00.0 Off |                    0 |
| N/A   31C    P0             71W /  700W |      0MiB /  81559MiB  |      0%      Default |
+-----------------------------------------+------------------------+----------------------+
"""


def test_nvidia_smi_gives_the_driver_its_cuda_line_and_the_gpus():
    report = parse_nvidia_smi(SMI)
    assert report.driver == "525.60.13" and report.cuda == "12.0"
    assert report.gpus[0].name == "NVIDIA H100 80GB HBM3"
    assert report.gpus[0].memory_gib == pytest.approx(79.6, abs=0.1)


def test_text_that_is_not_nvidia_smi_names_the_field():
    with pytest.raises(RequestError) as caught:
        parse_nvidia_smi("command not found")
    assert caught.value.field == "nvidia_smi"


def test_the_rules_import_without_django_numpy_or_pydantic():
    # The probe prints the verdict on a GPU machine that has PyTorch and nothing of flopfit's
    # web stack.
    code = (
        "import sys, planner.compat.rules, planner.compat.sentences;"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('django', 'numpy', 'pydantic')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
