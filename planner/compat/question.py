"""The compatibility question and its answer, declared once: the command, the API (and its
OpenAPI document) and the page all parse through `CompatQuestion`."""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator, Field

from planner.engine.contract.base import Answer, Question, Text, one_of

FRAMEWORKS = ("pytorch", "torch", "vllm", "tensorrt-llm", "trt-llm", "mindspore")


class Framework(Question):
    name: Annotated[str, BeforeValidator(one_of(FRAMEWORKS))] = Field(
        description="The framework: PyTorch (pytorch or torch), vLLM (vllm), TensorRT-LLM "
        "(tensorrt-llm or trt-llm) or MindSpore (mindspore)"
    )
    version: Text = Field(
        description='Its version as it reports it, e.g. "2.5.1+cu124" for PyTorch, "0.8.5" '
        'for vLLM, "2.6.0" for MindSpore'
    )


class CompatQuestion(Question):
    """Any of these; what is missing is not checked."""

    accelerator: Text | None = Field(None, description="Catalog slug of the card")
    driver: Text | None = Field(
        None, description='NVIDIA driver version, e.g. "550.54.15", or a branch, e.g. "525"'
    )
    cuda: Text | None = Field(None, description='CUDA version of the build, e.g. "12.4"')
    torch: Text | None = Field(
        None, description='PyTorch version as torch.__version__ reads, e.g. "2.5.1+cu124"'
    )
    framework: Framework | None = Field(None, description="A framework and its version")
    nvidia_smi: Text | None = Field(
        None, description="The table nvidia-smi prints, pasted whole (driver, CUDA line, GPUs)"
    )
    rocm: Text | None = Field(
        None, description='ROCm release installed, when no PyTorch ROCm build is named: "6.2"'
    )
    amdgpu: Text | None = Field(
        None, description='ROCm kernel-mode driver (amdgpu) release, e.g. "6.3"'
    )
    cann: Text | None = Field(None, description='Huawei CANN release, e.g. "8.0.RC3"')
    npu_driver: Text | None = Field(
        None, description='Ascend HDK driver release (npu-smi), e.g. "24.1.RC3"'
    )


class CompatFix(Answer):
    effort: int = Field(description="1 another build, 2 another release, 3 a new driver")
    sentence: str
    command: str = Field(description="The exact command, when there is one")


class CompatStack(Answer):
    accelerator: str | None
    compute_capability: str | None
    driver: str | None
    driver_cuda: str | None = Field(description="The newest CUDA the driver supports in full")
    torch: str | None
    build: str | None
    gfx_target: str | None = Field(description="An AMD card's LLVM target, e.g. gfx942")
    framework: str | None = Field(description='The serving framework checked, e.g. "vllm 0.8"')


class CompatMessage(Answer):
    code: str
    params: dict[str, object]


class CompatAnswer(Answer):
    compatible: bool
    limited: bool = Field(description="Runs, with the limits of minor-version compatibility")
    stack: CompatStack
    problems: list[str] = Field(description="Each clash in one sentence, naming both versions")
    notes: list[str]
    fixes: list[CompatFix] = Field(description="Lowest effort first")
    messages: list[CompatMessage] = Field(description="Problems then notes, as codes")
    sources: list[str]
