"""Serving frameworks on top of PyTorch: the release a vLLM version pins, and the compute
capabilities vLLM and TensorRT-LLM state they support. Plain Python; `planner.compat.rules`
calls `framework_check`, the services call `pinned_torch` to check the pinned PyTorch."""

from __future__ import annotations

from planner.compat import data
from planner.compat.data import FrameworkRelease, version_key
from planner.compat.sentences import Message, message
from planner.compat.stacks import Found, minor

NAMES = {"vllm": "vLLM", "tensorrt-llm": "TensorRT-LLM"}
ALIASES = {"trt-llm": "tensorrt-llm", "tensorrt_llm": "tensorrt-llm"}
PIP = {
    "vllm": 'pip install "vllm=={version}.*"',
    "tensorrt-llm": 'pip install "tensorrt_llm=={version}.*"',
}


def canonical(name: str) -> str:
    return ALIASES.get(name, name)


def releases_of(name: str) -> list[FrameworkRelease]:
    return [r for r in data.framework_releases() if r.framework == canonical(name)]


def release_of(name: str, version: str) -> FrameworkRelease | None:
    return next((r for r in releases_of(name) if r.version == minor(version)), None)


def pinned_torch(name: str, version: str) -> str | None:
    """The PyTorch minor release the framework's version pins, when recorded."""
    release = release_of(name, version)
    return release.torch if release is not None and release.torch else None


def _capability(text: str) -> tuple[int, ...]:
    return version_key(text)[:2]


def _supports(release: FrameworkRelease, capability: str) -> bool | None:
    if release.capabilities:
        return any(_capability(c) == _capability(capability) for c in release.capabilities)
    if release.min_capability:
        return _capability(capability) >= _capability(release.min_capability)
    return None


def _fix(release: FrameworkRelease, sentence: Message) -> tuple[int, Message, str]:
    return 2, sentence, PIP[release.framework].format(version=release.version)


def framework_check(
    *, name: str, version: str, torch: str | None, capability: str | None, card: str
) -> Found:
    """The framework's release against the PyTorch given and the card."""
    name = canonical(name)
    label = NAMES.get(name, name)
    release = release_of(name, version)
    if release is None:
        recorded = [r.version for r in releases_of(name)]
        note = message(
            "compat.framework_unknown", framework=label, version=version, recorded=recorded
        )
        return Found(notes=(note,))
    params = {"framework": label, "version": release.version}
    problems: list[Message] = []
    notes: list[Message] = []
    fixes: list[tuple[int, Message, str]] = []
    if release.torch:
        if torch is not None and torch != release.torch:
            problems.append(
                message("compat.framework_torch", pinned=release.torch, torch=torch, **params)
            )
            pinning = [r for r in releases_of(name) if r.torch == torch]
            if pinning:
                sentence = message(
                    "compat.fix.framework_torch",
                    torch=torch,
                    framework=label,
                    version=pinning[-1].version,
                )
                fixes.append(_fix(pinning[-1], sentence))
        else:
            notes.append(message("compat.framework_pins", torch=release.torch, **params))
    if capability is not None:
        supported = _supports(release, capability)
        arch = {"capability": capability, "card": card, **params}
        if supported is False and release.capabilities:
            problems.append(
                message("compat.framework_arch_list", listed=list(release.capabilities), **arch)
            )
            later = [r for r in releases_of(name) if _supports(r, capability)]
            if later:
                sentence = message(
                    "compat.fix.framework_arch",
                    framework=label,
                    version=later[-1].version,
                    capability=capability,
                )
                fixes.append(_fix(later[-1], sentence))
        elif supported is False:
            problems.append(
                message("compat.framework_arch_min", minimum=release.min_capability, **arch)
            )
        elif supported:
            notes.append(message("compat.framework_arch_ok", **arch))
    return Found(tuple(problems), tuple(notes), tuple(fixes), release.sources)
