"""The compatibility check behind the page, the API, the command and the probe upload: parse
the question, resolve the card, run `planner.compat.rules.check`, write the answer in the
reader's language."""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext_noop as _

from catalog.models import Accelerator
from planner.calibrations.services import match_accelerator
from planner.compat import frameworks, rules
from planner.compat.question import CompatQuestion
from planner.compat.selectors import compute_capability_of, gfx_target_of
from planner.compat.sentences import TEMPLATES, Message
from planner.compat.smi import parse_nvidia_smi
from planner.engine import RequestError
from planner.engine.contract import parse
from planner.messages.render import fill

DRIVER = re.compile(r"^\d{3}(\.\d+){0,2}$")
CUDA = re.compile(r"^(\d+)\.(\d+)(\.\d+)?$")
TORCH = re.compile(r"^(\d+)\.(\d+)(\.\d+)?([ab]\d+|rc\d+)?(\+(?P<build>[a-z0-9.]+))?$")
RELEASE = re.compile(r"^(\d+)\.(\d+)(\.\d+)*$")
# CANN and Ascend HDK releases: "8.0.RC3", "8.0.0", "24.1.RC3", "25.0.rc1.1".
ASCEND = re.compile(r"^\d+\.\d+\.(\d+|rc\d+)(\.\d+)?$", re.IGNORECASE)
PYTORCH_NAMES = ("pytorch", "torch")


def _matched(value: str, field: str, pattern: re.Pattern[str], template: str) -> str:
    """The value, stripped, when the pattern matches it; else `RequestError` on the field."""
    if not pattern.match(value.strip()):
        raise RequestError(field, template, value=repr(value))
    return value.strip()


def _driver(value: str, field: str) -> str:
    template = _("must be an NVIDIA driver version such as 550.54.15, not {value}")
    return _matched(value, field, DRIVER, template)


def _cuda(value: str, field: str) -> str:
    match = CUDA.match(value)
    if not match or int(match.group(1)) not in (11, 12, 13):
        raise RequestError(
            field,
            _("must be a CUDA version from 11.8 to 13.x such as 12.4, not {value}"),
            value=repr(value),
        )
    return f"{match.group(1)}.{match.group(2)}"


def _torch(value: str, field: str) -> tuple[str, str | None]:
    match = TORCH.match(value.strip())
    if not match:
        raise RequestError(
            field,
            _("must be a PyTorch version such as 2.5.1+cu124 or 2.5, not {value}"),
            value=repr(value),
        )
    release = f"{match.group(1)}.{match.group(2)}"
    known = rules.releases()
    if release not in known:
        raise RequestError(
            field,
            _("no PyTorch {release} in the compatibility data ({first} to {last})"),
            release=release,
            first=known[0],
            last=known[-1],
        )
    return release, match.group("build")


def _release(value: str, field: str) -> str:
    """A ROCm or framework release, "6.2" or "0.8.5"."""
    template = _("must be a release number such as 6.2 or 0.8.5, not {value}")
    return _matched(value, field, RELEASE, template)


def _ascend(value: str, field: str) -> str:
    """A CANN or Ascend HDK release as Huawei writes it: "8.0.RC3" ("rc" read as "RC")."""
    template = _("must be a release such as 8.0.RC3 or 24.1.RC3, not {value}")
    return re.sub("rc", "RC", _matched(value, field, ASCEND, template), flags=re.IGNORECASE)


def _framework(question: CompatQuestion) -> tuple[str, str | None]:
    """The serving framework and its version ("" and None for PyTorch alone)."""
    framework = question.framework
    if framework is None or framework.name in PYTORCH_NAMES:
        return "", None
    name = frameworks.canonical(framework.name)
    return name, _release(framework.version, "framework.version")


def _card(question: CompatQuestion, smi) -> Accelerator | None:
    if question.accelerator is not None:
        card = Accelerator.objects.filter(slug=question.accelerator).first()
        if card is None:
            raise RequestError(
                "accelerator", _("no accelerator {slug} in the catalog"), slug=question.accelerator
            )
        return card
    if smi is not None and smi.gpus:
        gpu = smi.gpus[0]
        return match_accelerator({"name": gpu.name, "memory_gib": gpu.memory_gib or 0})
    return None


def stack_from_question(data: Any) -> tuple[rules.Stack, Accelerator | None]:
    question = parse(CompatQuestion, data)
    if not any(question.model_dump(exclude_none=True).values()):
        raise RequestError(
            "request",
            _(
                "give at least one of accelerator, driver, cuda, torch, framework, nvidia_smi, "
                "rocm, amdgpu, cann, npu_driver"
            ),
        )
    smi = parse_nvidia_smi(question.nvidia_smi) if question.nvidia_smi is not None else None
    driver = _driver(question.driver, "driver") if question.driver else None
    driver = driver or (smi.driver if smi else None)
    torch, build = None, None
    framework, framework_version = _framework(question)
    if question.torch is not None:
        torch, build = _torch(question.torch, "torch")
    elif question.framework is not None and not framework:
        torch, build = _torch(question.framework.version, "framework.version")
    elif framework and framework_version:
        torch = frameworks.pinned_torch(framework, framework_version)
    cuda = _cuda(question.cuda, "cuda") if question.cuda else None
    if build is None and cuda is not None and torch is not None:
        build = "cu" + cuda.replace(".", "")
    card = _card(question, smi)
    stack = rules.Stack(
        card=card.name if card else "",
        compute_capability=compute_capability_of(card.slug) if card else None,
        software_stack=card.software_stack if card else "cuda",
        driver=driver,
        driver_cuda=smi.cuda if smi else None,
        torch=torch,
        build=build,
        cuda=cuda,
        gfx=gfx_target_of(card.slug) if card else None,
        rocm=_release(question.rocm, "rocm") if question.rocm else None,
        amdgpu=_release(question.amdgpu, "amdgpu") if question.amdgpu else None,
        cann=_ascend(question.cann, "cann") if question.cann else None,
        npu_driver=_ascend(question.npu_driver, "npu_driver") if question.npu_driver else None,
        framework=framework,
        framework_version=framework_version,
    )
    return stack, card


def sentence(message: Message) -> str:
    return fill(TEMPLATES[message.code], dict(message.params))


def verdict_answer(verdict: rules.Verdict, stack: rules.Stack, card=None) -> dict:
    """The answer as JSON, sentences in the active language."""
    return {
        "compatible": verdict.compatible,
        "limited": verdict.limited,
        "stack": {
            "accelerator": card.slug if card else None,
            "compute_capability": stack.compute_capability,
            "driver": stack.driver,
            "driver_cuda": rules.full_cuda(stack.driver, stack.driver_cuda)
            if stack.driver
            else None,
            "torch": stack.torch,
            "build": verdict.build.build if verdict.build else stack.build,
            "gfx_target": stack.gfx,
            "framework": f"{stack.framework} {stack.framework_version}"
            if stack.framework
            else None,
        },
        "problems": [sentence(m) for m in verdict.problems],
        "notes": [sentence(m) for m in verdict.notes],
        "fixes": [
            {"effort": f.effort, "sentence": sentence(f.sentence), "command": f.command}
            for f in verdict.fixes
        ],
        "messages": [m.as_dict() for m in (*verdict.problems, *verdict.notes)],
        "sources": list(verdict.sources),
    }


def compat_check(*, data: Any) -> dict:
    """Check one machine's stack; `RequestError` naming the field on bad input."""
    stack, card = stack_from_question(data)
    return verdict_answer(rules.check(stack), stack, card)


def probe_check(*, probe: dict) -> dict | None:
    """The check for a flopfit-probe report: its driver, PyTorch build and compute capability.
    None when the report says too little to check."""
    device, software = probe.get("device") or {}, probe.get("software") or {}
    question: dict[str, Any] = {}
    if isinstance(device.get("driver_version"), str) and DRIVER.match(device["driver_version"]):
        question["driver"] = device["driver_version"]
    if isinstance(software.get("torch"), str) and TORCH.match(software["torch"]):
        question["torch"] = software["torch"]
    if isinstance(software.get("cuda"), str) and CUDA.match(software["cuda"]):
        question["cuda"] = software["cuda"]
    if "torch" not in question:
        return None
    try:
        stack, card = stack_from_question(question)
    except RequestError:
        return None
    capability = device.get("capability")
    if isinstance(capability, list) and len(capability) == 2:
        stack = rules.Stack(
            **{
                **stack.__dict__,
                "compute_capability": f"{capability[0]}.{capability[1]}",
                "card": str(device.get("name", "")),
            }
        )
    return verdict_answer(rules.check(stack), stack, card)
