"""ROCm, Ascend, vLLM and TensorRT-LLM, and the PyTorch kernel lists, as their publishers' tables
state them. No database."""

import pytest

from planner.compat import data
from planner.compat.rules import Stack, check
from planner.compat.sentences import english


def sentences(messages) -> str:
    return " ".join(english(m) for m in messages)


def codes(verdict) -> set[str]:
    return {m.code for m in (*verdict.problems, *verdict.notes)}


# PyTorch kernel lists: RELEASE.md's CUDA support matrix (2.9 to 2.11), the 2.8 build script and
# the conda packages' kernels (2.0 to 2.4).


@pytest.mark.parametrize(
    ("torch", "build", "runs"),
    [
        ("2.4", "cu124", False),  # 2.4's builds stop at sm_90
        ("2.8", "cu126", False),  # Maxwell to Hopper only
        ("2.8", "cu128", True),  # 7.0;...;9.0;10.0;12.0
        ("2.9", "cu130", True),
        ("2.11", "cu128", True),
    ],
)
def test_an_rtx_5090_runs_only_builds_that_ship_sm_120(torch, build, runs):
    verdict = check(Stack(card="RTX 5090", compute_capability="12.0", torch=torch, build=build))
    assert verdict.compatible is runs
    assert ("compat.arch_missing" in codes(verdict)) is not runs


def test_an_rtx_5090_with_pytorch_2_4_is_pointed_at_the_first_build_with_sm_120():
    verdict = check(Stack(card="RTX 5090", compute_capability="12.0", torch="2.4", build="cu121"))
    assert not verdict.compatible
    assert verdict.fixes[0].command.endswith(
        "torch==2.7.0 --index-url https://download.pytorch.org/whl/cu128"
    )
    assert "the first that ships kernels for compute capability 12.0" in english(
        verdict.fixes[0].sentence
    )


def test_a_v100_has_no_kernel_in_2_11s_cuda_12_8_build_but_has_one_in_its_cuda_12_6_build():
    # Release 2.11 drops Volta from the 12.8 build (RELEASE.md, pull request 175253).
    verdict = check(Stack(card="V100", compute_capability="7.0", torch="2.11", build="cu128"))
    assert not verdict.compatible
    assert verdict.fixes[0].command.endswith("/whl/cu126")
    assert check(
        Stack(card="V100", compute_capability="7.0", torch="2.10", build="cu128")
    ).compatible


def test_every_cuda_build_from_2_0_on_has_its_kernel_list():
    missing = [
        (b.torch, b.build) for b in data.torch_builds() if b.kind == "cuda" and not b.arch_list
    ]
    assert missing == []


# NVIDIA's three caveats of minor-version compatibility.


def test_a_build_run_through_minor_version_compatibility_lists_nvidias_three_limits():
    verdict = check(Stack(driver="525.60.13", torch="2.5", build="cu124"))
    assert verdict.limited
    limits = [m for m in verdict.notes if m.code.startswith("compat.limit.")]
    assert [m.code for m in limits] == [
        "compat.limit.feature_set",
        "compat.limit.ptx",
        "compat.limit.arch_flag",
    ]
    text = sentences(limits)
    assert "cudaErrorCallRequiresNewerDriver" in text and "cudaErrorUnsupportedPtxVersion" in text
    assert any("minor-version-compatibility" in url for url in verdict.sources)


def test_a_driver_that_supports_the_build_in_full_lists_no_limits():
    verdict = check(Stack(driver="550.54.15", torch="2.5", build="cu124"))
    assert not verdict.limited
    assert not any(m.code.startswith("compat.limit.") for m in verdict.notes)


def test_cuda_12_8_needs_570_26_as_the_release_notes_table_states():
    # CUDA release notes, Table 3: CUDA 12.8 GA >=570.26 (the installer bundles 570.86.10).
    assert next(t for t in data.toolkits() if t.cuda == "12.8").linux_driver == "570.26"
    assert check(Stack(driver="570.26", cuda="12.8")).limited is False
    assert check(Stack(driver="565", cuda="12.8")).limited is True


# ROCm: the compatibility matrix's GPU lists, the user and kernel-space support matrix.


def amd(card: str, gfx: str, torch: str, build: str, **more) -> Stack:
    return Stack(card=card, software_stack="rocm", gfx=gfx, torch=torch, build=build, **more)


def test_an_mi300x_runs_the_rocm_6_3_build():
    verdict = check(amd("MI300X", "gfx942", "2.7", "rocm6.3"))
    assert verdict.compatible and "compat.rocm_gpu_ok" in codes(verdict)


def test_an_mi355x_is_not_in_the_gpu_list_of_rocm_6_2():
    verdict = check(amd("MI355X", "gfx950", "2.5", "rocm6.2"))
    assert not verdict.compatible
    problem = sentences(verdict.problems)
    assert "ROCm 6.2" in problem and "gfx950" in problem and "gfx942" in problem
    # No recorded ROCm release lists gfx950, so no build is named as a fix.
    assert verdict.fixes == ()


def test_a_rocm_release_whose_gpu_list_is_not_recorded_is_said_so_not_refused():
    verdict = check(amd("MI300X", "gfx942", "2.11", "rocm7.2"))
    assert verdict.compatible and "compat.rocm_gpu_unknown" in codes(verdict)


def test_an_old_amdgpu_driver_refuses_a_newer_rocm_user_space_and_names_both_fixes():
    # KMD 6.0 is tested with user space 5.6 to 6.2 (AMD's user and kernel-space matrix).
    verdict = check(amd("MI300X", "gfx942", "2.7", "rocm6.3", amdgpu="6.0"))
    assert not verdict.compatible
    assert "amdgpu) 6.0" in sentences(verdict.problems) and "ROCm 6.3" in sentences(
        verdict.problems
    )
    assert [f.effort for f in verdict.fixes] == [2, 3]
    assert verdict.fixes[0].command.endswith("/whl/rocm6.2.4")
    assert "to 6.1 or later" in english(verdict.fixes[1].sentence)


def test_a_rocm_install_without_pytorch_is_checked_against_the_card_and_driver():
    verdict = check(
        Stack(card="MI250X", software_stack="rocm", gfx="gfx90a", rocm="6.1", amdgpu="6.4")
    )
    assert verdict.compatible
    assert {"compat.rocm_gpu_ok", "compat.rocm_kmd_ok"} <= codes(verdict)


# Ascend: torch_npu is built for one PyTorch and one CANN; CANN pairs with an HDK driver.


def test_pytorch_2_1_on_cann_8_0_rc3_is_a_pair():
    verdict = check(Stack(card="Ascend 910B", software_stack="cann", torch="2.1", cann="8.0.RC3"))
    assert verdict.compatible
    assert "torch_npu 2.1.0.post8" in sentences(verdict.notes)


def test_pytorch_2_4_on_cann_8_0_rc2_has_no_torch_npu_and_the_fixes_name_the_pairs():
    verdict = check(Stack(card="Ascend 910B", software_stack="cann", torch="2.4", cann="8.0.RC2"))
    assert not verdict.compatible
    assert "only with CANN 8.1.RC1, 8.0.0, 8.0.RC3" in sentences(verdict.problems)
    assert verdict.fixes[0].command == "pip install torch==2.3.1 torch_npu==2.3.1"
    assert "Install CANN 8.1.RC1" in english(verdict.fixes[1].sentence)


def test_a_cuda_build_is_not_checked_on_an_ascend_card():
    verdict = check(Stack(card="Ascend 910B", software_stack="cann", torch="2.5", build="cu124"))
    assert verdict.build is None
    assert "compat.arch_missing" not in codes(verdict)


def test_an_hdk_driver_other_than_the_one_paired_with_cann_is_noted():
    verdict = check(
        Stack(
            card="Ascend 910B",
            software_stack="cann",
            torch="2.5",
            cann="8.1.RC1",
            npu_driver="24.1.RC3",
        )
    )
    assert verdict.compatible
    assert "CANN 8.1.RC1 with the Ascend HDK driver 25.0.RC1" in sentences(verdict.notes)


def test_mindspore_names_the_cann_it_recommends():
    verdict = check(
        Stack(
            software_stack="cann", framework="mindspore", framework_version="2.6.0", cann="8.0.RC3"
        )
    )
    assert "recommends CANN 8.1.RC1, not the 8.0.RC3" in sentences(verdict.notes)


# vLLM and TensorRT-LLM: the PyTorch they pin, the cards they support.


def test_vllm_needs_compute_capability_7_0():
    verdict = check(
        Stack(card="GTX 1080", compute_capability="6.1", framework="vllm", framework_version="0.8")
    )
    assert not verdict.compatible
    assert "compute capability 7.0 or higher" in sentences(verdict.problems)


def test_vllm_pinning_another_pytorch_is_a_clash_and_the_release_that_pins_it_is_named():
    verdict = check(Stack(torch="2.6", framework="vllm", framework_version="0.7", driver="550"))
    assert not verdict.compatible
    assert "pins PyTorch 2.5, not the PyTorch 2.6" in sentences(verdict.problems)
    assert verdict.fixes[0].command == 'pip install "vllm==0.8.*"'


def test_tensorrt_llm_0_18_does_not_list_a_b200_and_0_19_does():
    verdict = check(
        Stack(
            card="B200",
            compute_capability="10.0",
            framework="tensorrt-llm",
            framework_version="0.18",
        )
    )
    assert not verdict.compatible
    assert "community support only" in sentences(verdict.problems)
    assert verdict.fixes[0].command == 'pip install "tensorrt_llm==0.19.*"'
    later = check(
        Stack(
            card="B200",
            compute_capability="10.0",
            framework="tensorrt-llm",
            framework_version="0.19",
        )
    )
    assert later.compatible


def test_an_unrecorded_framework_release_is_said_so():
    verdict = check(Stack(framework="vllm", framework_version="0.5"))
    assert verdict.compatible and "compat.framework_unknown" in codes(verdict)


def test_every_row_of_the_new_tables_has_a_source_and_a_date():
    rows = [
        *data.minor_limits(),
        *data.framework_releases(),
        *data.rocm_releases().values(),
        *data.rocm_kernel_drivers().values(),
        *data.gfx_targets().values(),
        *data.cann_pairs(),
        *data.cann_drivers().values(),
        *data.mindspore_pairs().values(),
    ]
    for row in rows:
        assert row.sources and all(u.startswith("https://") for u in row.sources), row
        assert row.read_on, row


def test_every_amd_card_in_the_catalog_has_an_llvm_target():
    import csv

    from planner.compat.data import DATA_DIR

    with (DATA_DIR.parent / "accelerators" / "amd.csv").open(encoding="utf-8") as handle:
        slugs = {row["slug"] for row in csv.DictReader(handle)}
    assert slugs == set(data.gfx_targets())


def test_a_rocm_build_without_a_card_is_fixed_with_rocm_builds_and_cites_amds_matrix():
    verdict = check(Stack(torch="2.7", build="rocm6.3", amdgpu="6.0"))
    assert not verdict.compatible
    assert all("/whl/cu" not in f.command for f in verdict.fixes)
    assert any("user-kernel-space-compat-matrix" in url for url in verdict.sources)
