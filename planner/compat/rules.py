"""Will this software run on this card and driver? The rules as NVIDIA and PyTorch state them,
over the tables in `planner.compat.data`. Plain Python: the pages, the API, the command and the
probe all call `check`.

- A CUDA build needs a driver at least as new as its major release's minimum (CUDA 12.x from
  525.60.13); below the toolkit's own driver it runs through minor-version compatibility, with
  NVIDIA's limits (CUDA minor-version compatibility guide).
- A card runs a build only if the build ships a kernel for it: sm_X.y runs on compute capability
  X.z with z >= y, sm_X.ya only on X.y, PTX for X.y on X.y and newer (CUDA binary
  compatibility, CUDA programming guide)."""

from __future__ import annotations

from dataclasses import dataclass, field

from planner.compat import data, frameworks, stacks
from planner.compat.data import TorchBuild, version_key
from planner.compat.sentences import Message, message
from planner.compat.stacks import Found

INDEX_URL = "https://download.pytorch.org/whl/{build}"
# Efforts, lowest first: a pip install beside what is there, a newer release, a new driver.
EFFORT_BUILD, EFFORT_RELEASE, EFFORT_DRIVER = 1, 2, 3


@dataclass(frozen=True)
class Stack:
    """What is known of one machine; any part may be missing."""

    card: str = ""
    compute_capability: str | None = None
    software_stack: str = "cuda"  # the catalog's software_stack: cuda, rocm, cann, ...
    driver: str | None = None
    driver_cuda: str | None = None  # nvidia-smi's "CUDA Version"
    torch: str | None = None  # minor release, "2.5"
    build: str | None = None  # "cu124"
    cuda: str | None = None  # a CUDA toolkit without PyTorch
    gfx: str | None = None  # an AMD card's LLVM target, "gfx942"
    rocm: str | None = None  # a ROCm user space installed without PyTorch, "6.2"
    amdgpu: str | None = None  # the ROCm kernel-mode driver release, "6.3"
    cann: str | None = None  # "8.0.RC3"
    npu_driver: str | None = None  # the Ascend HDK release, "24.1.RC3"
    framework: str = ""  # vllm, tensorrt-llm, mindspore; "" for PyTorch alone
    framework_version: str | None = None


@dataclass(frozen=True)
class Fix:
    effort: int
    sentence: Message
    command: str = ""


@dataclass(frozen=True)
class Verdict:
    compatible: bool
    limited: bool
    problems: tuple[Message, ...]
    notes: tuple[Message, ...]
    fixes: tuple[Fix, ...]
    build: TorchBuild | None = None
    sources: tuple[str, ...] = field(default_factory=tuple)


def pip_command(build: TorchBuild) -> str:
    return f"pip install torch=={build.release} --index-url {INDEX_URL.format(build=build.build)}"


def _capability(text: str) -> tuple[int, int]:
    major, minor = version_key(text)[:2]
    return major, minor


def runs_on(arch: str, capability: str) -> bool:
    """Does one entry of an arch list ("8.6", "9.0a", "12.0+PTX") run on the capability?"""
    card = _capability(capability)
    ptx = arch.endswith("+PTX")
    specific = arch.removesuffix("+PTX").endswith("a")
    built = _capability(arch.removesuffix("+PTX").removesuffix("a"))
    if ptx and card >= built:
        return True
    if specific:
        return card == built
    return card[0] == built[0] and card[1] >= built[1]


def ships_kernel_for(build: TorchBuild, capability: str) -> bool:
    return any(runs_on(arch, capability) for arch in build.arch_list)


def _branch(driver: str) -> int:
    return version_key(driver)[0]


def _below(driver: str, minimum: str) -> bool:
    """Is the driver older than `minimum`? A bare branch ("525") stands for its newest release,
    so it is older only when its branch is."""
    if len(version_key(driver)) == 1:
        return _branch(driver) < _branch(minimum)
    return version_key(driver) < version_key(minimum)


def full_cuda(driver: str, driver_cuda: str | None = None) -> str | None:
    """The newest CUDA the driver supports in full: nvidia-smi's line when given, else the newest
    toolkit whose GA driver is not newer."""
    if driver_cuda:
        return driver_cuda
    fitting = [t.cuda for t in data.toolkits() if not _below(driver, t.linux_driver)]
    return fitting[-1] if fitting else None


def _software(stack: Stack, build: TorchBuild | None) -> str:
    if build is not None:
        return f"PyTorch {build.torch}+{build.build}"
    return f"CUDA {stack.cuda}"


def build_cuda(build: str) -> str | None:
    """cu124 -> "12.4"; None for a tag that is not a CUDA build."""
    digits = build.removeprefix("cu")
    if not build.startswith("cu") or len(digits) < 3 or not digits.isdigit():
        return None
    return f"{digits[:-1]}.{digits[-1]}"


def driver_messages(stack: Stack, cuda: str, software: str) -> tuple[list[Message], list[Message]]:
    """Problems and notes about the driver against software built with `cuda`."""
    if stack.driver is None:
        return [], []
    major = version_key(cuda)[0]
    family = data.families().get(major)
    if family is None:
        return [], []
    params = {"driver": stack.driver, "software": software, "cuda": cuda, "major": major}
    if _branch(stack.driver) < family.min_branch or _below(stack.driver, family.min_linux_driver):
        return [message("compat.driver_too_old", minimum=family.min_linux_driver, **params)], []
    toolkit = next((t for t in data.toolkits() if t.cuda == cuda), None)
    full = full_cuda(stack.driver, stack.driver_cuda)
    if full is None:
        note = message("compat.minor_version_older", minimum=family.min_linux_driver, **params)
        return [], [note]
    newer = version_key(cuda) > version_key(full)
    if newer or (toolkit is not None and _below(stack.driver, toolkit.linux_driver)):
        note = message("compat.minor_version", full=full, minimum=family.min_linux_driver, **params)
        return [], [note]
    return [], [message("compat.full_support", full=full, **params)]


def _rocm_messages(stack: Stack, rocm: str, software: str) -> Found:
    gpu = stacks.rocm_gpu(rocm=rocm, gfx=stack.gfx, card=stack.card, software=software)
    kernel = stacks.rocm_kernel(rocm=rocm, amdgpu=stack.amdgpu, software=software)
    return _merge(gpu, kernel)


def _merge(*found: Found) -> Found:
    return Found(
        tuple(p for f in found for p in f.problems),
        tuple(n for f in found for n in f.notes),
        tuple(x for f in found for x in f.fixes),
        tuple(dict.fromkeys(u for f in found for u in f.sources)),
    )


def card_messages(stack: Stack, build: TorchBuild) -> tuple[list[Message], list[Message]]:
    software = _software(stack, build)
    if build.kind == "rocm":
        found = _rocm_messages(stack, build.build, software)
        return list(found.problems), list(found.notes)
    if stack.software_stack != "cuda" and build.kind == "cuda":
        return [
            message(
                "compat.not_cuda",
                card=stack.card,
                stack=stack.software_stack,
                build=build.build,
                torch=build.torch,
            )
        ], []
    if stack.compute_capability is None or build.kind != "cuda":
        return [], []
    params = {"software": software, "card": stack.card, "capability": stack.compute_capability}
    if not build.arch_list:
        return [], [message("compat.arch_unknown", **params)]
    if ships_kernel_for(build, stack.compute_capability):
        return [], [message("compat.arch_ok", **params)]
    return [message("compat.arch_missing", archs=list(build.arch_list), **params)], []


def _evaluate(stack: Stack, build: TorchBuild) -> tuple[list[Message], list[Message]]:
    problems, notes = card_messages(stack, build)
    if build.kind == "cuda":
        more, more_notes = driver_messages(stack, build.cuda, _software(stack, build))
        problems, notes = more + problems, more_notes + notes
    return problems, notes


def releases() -> list[str]:
    return sorted({b.torch for b in data.torch_builds()}, key=version_key)


def builds_of(torch: str, kind: str | None = None) -> list[TorchBuild]:
    return [b for b in data.torch_builds() if b.torch == torch and kind in (None, b.kind)]


def _fits(stack: Stack, build: TorchBuild) -> bool:
    problems, _notes = _evaluate(stack, build)
    return not problems


def _kind(stack: Stack) -> str:
    """The builds to look among: ROCm ones for an AMD card, a ROCm build named or a ROCm
    driver given; CUDA ones otherwise."""
    amd = stack.software_stack == "rocm" or stack.amdgpu is not None or stack.rocm is not None
    return "rocm" if amd or (stack.build or "").startswith("rocm") else "cuda"


def _install(code: str, build: TorchBuild, stack: Stack, effort: int) -> Fix:
    """The fix that installs `build`: its sentence names the build, its release and the driver
    and card it suits, and its command is the pip line."""
    sentence = message(
        code,
        build=build.build,
        torch=build.torch,
        driver=stack.driver or "-",
        capability=stack.compute_capability or "-",
    )
    return Fix(effort, sentence, pip_command(build))


def _fixes(
    stack: Stack, release: str | None, build: TorchBuild | None, problems: list[Message]
) -> list[Fix]:
    """What would make it run, lowest effort first: another build of the same release, the
    first release whose build fits, a newer driver."""
    codes = {p.code for p in problems}
    fixes: list[Fix] = []
    kind = _kind(stack)
    same = [b for b in builds_of(release, kind) if b != build] if release else []
    fitting = [b for b in reversed(same) if _fits(stack, b)]
    if fitting:
        fit = fitting[0]
        code = "compat.fix.build" if stack.driver else "compat.fix.rocm"
        if fit.kind == "cuda" and "compat.arch_missing" in codes:
            code = "compat.fix.build_arch"
        fixes.append(_install(code, fit, stack, EFFORT_BUILD))
    else:
        anywhere = [b for t in releases() for b in builds_of(t, kind) if _fits(stack, b)]
        if kind == "rocm" and stack.gfx:
            # Only a build whose ROCm release is recorded as listing the card is named.
            anywhere = [b for b in anywhere if stacks.rocm_lists(b.build, stack.gfx)]
        chosen = _first_release(stack, anywhere, build)
        if chosen is not None:
            code = "compat.fix.build"
            if chosen.kind == "rocm":
                code = "compat.fix.rocm"
            elif "compat.arch_missing" in codes:
                code = "compat.fix.release"
            fixes.append(_install(code, chosen, stack, EFFORT_RELEASE))
    if "compat.driver_too_old" in codes:
        cuda = build.cuda if build is not None and build.kind == "cuda" else stack.cuda
        toolkit = next((t for t in data.toolkits() if t.cuda == cuda), None)
        if toolkit is not None:
            sentence = message("compat.fix.driver", minimum=toolkit.linux_driver, cuda=cuda)
            fixes.append(Fix(EFFORT_DRIVER, sentence))
    if "compat.rocm_kmd" in codes and build is not None and build.kind == "rocm":
        kernel = stacks.rocm_kernel(rocm=build.build, amdgpu=stack.amdgpu, software="")
        fixes.extend(Fix(effort, sentence, command) for effort, sentence, command in kernel.fixes)
    return sorted(fixes, key=lambda f: f.effort)


def _first_release(
    stack: Stack, fitting: list[TorchBuild], build: TorchBuild | None
) -> TorchBuild | None:
    """For a missing kernel, the first release that ships one (the smallest step up); for a
    driver that is too old, the newest build it runs."""
    if not fitting:
        return None
    if (
        build is not None
        and stack.compute_capability
        and not ships_kernel_for(build, stack.compute_capability)
        and build.arch_list
    ):
        later = [
            b for b in fitting if version_key(b.torch) >= version_key(build.torch) and b.arch_list
        ]
        return later[0] if later else fitting[0]
    return fitting[-1]


def _sources(build: TorchBuild | None, stack: Stack) -> tuple[str, ...]:
    urls: list[str] = []
    if build is not None:
        urls.extend(build.sources)
    if build is not None and build.kind == "rocm":
        urls.extend(_rocm_messages(stack, build.build, "").sources)
    cuda = build.cuda if build is not None and build.kind == "cuda" else stack.cuda
    if cuda:
        family = data.families().get(version_key(cuda)[0])
        urls.extend(family.sources if family else ())
        urls.extend(next((t.sources for t in data.toolkits() if t.cuda == cuda), ()))
    return tuple(dict.fromkeys(urls))


def _branch_note(stack: Stack) -> list[Message]:
    if stack.driver is None:
        return []
    branch = data.branches().get(_branch(stack.driver))
    if branch is None:
        return []
    eol = f" (end of life {branch.end_of_life})" if branch.end_of_life else ""
    return [
        message(
            "compat.branch_status", branch=branch.branch, designation=branch.designation, eol=eol
        )
    ]


def _torch_check(stack: Stack) -> tuple[TorchBuild | None, list[Message], list[Message]]:
    """The PyTorch build against the driver and the card (CUDA and ROCm builds)."""
    build: TorchBuild | None = None
    problems: list[Message] = []
    notes: list[Message] = []
    kind = _kind(stack)
    candidates = builds_of(stack.torch, kind) if stack.torch else []
    if stack.torch is not None and stack.build is not None:
        named = [b for b in builds_of(stack.torch) if b.build == stack.build]
        if not named:
            problems.append(
                message(
                    "compat.no_such_build",
                    torch=stack.torch,
                    build=stack.build,
                    cuda=build_cuda(stack.build) or stack.build,
                    builds=[b.build for b in candidates],
                )
            )
        candidates = named or candidates
    fitting = [b for b in reversed(candidates) if _fits(stack, b)]
    if not problems and stack.build is None and fitting:
        build = fitting[0]
        notes.append(message("compat.build_chosen", torch=build.torch, build=build.build))
    elif candidates:
        build = candidates[-1] if not problems else None
    if build is not None:
        found, found_notes = _evaluate(stack, build)
        problems.extend(found)
        notes.extend(found_notes)
    return build, problems, notes


def _stack_checks(stack: Stack) -> Found:
    """Everything beside the PyTorch build: a CUDA toolkit alone, a ROCm install alone, the
    Ascend stack, a serving framework."""
    found: list[Found] = []
    if stack.torch is None and stack.cuda is not None:
        problems, notes = driver_messages(stack, stack.cuda, _software(stack, None))
        found.append(Found(tuple(problems), tuple(notes)))
    if stack.torch is None and stack.rocm is not None:
        found.append(_rocm_messages(stack, stack.rocm, f"ROCm {stacks.minor(stack.rocm)}"))
    if stack.software_stack == "cann":
        if stack.torch is not None and stack.framework != "mindspore":
            found.append(stacks.ascend_torch(torch=stack.torch, cann=stack.cann, card=stack.card))
        found.append(stacks.ascend_driver(cann=stack.cann, npu_driver=stack.npu_driver))
    if stack.framework == "mindspore" and stack.framework_version:
        found.append(stacks.mindspore(version=stack.framework_version, cann=stack.cann))
    elif stack.framework and stack.framework_version:
        found.append(
            frameworks.framework_check(
                name=stack.framework,
                version=stack.framework_version,
                torch=stack.torch,
                capability=stack.compute_capability if stack.software_stack == "cuda" else None,
                card=stack.card,
            )
        )
    return _merge(*found)


def _limits(notes: list[Message]) -> tuple[list[Message], tuple[str, ...]]:
    """NVIDIA's caveats for minor-version compatibility, when the answer relies on it."""
    if not any(n.code.startswith("compat.minor_version") for n in notes):
        return [], ()
    limits = data.minor_limits()
    messages = [message(f"compat.limit.{lim.code}", error=lim.error) for lim in limits]
    return messages, tuple(u for lim in limits for u in lim.sources)


def check(stack: Stack) -> Verdict:
    """The verdict for one machine. With a PyTorch release but no build named, every build of
    the release is tried and the one that fits is named. On an Ascend card PyTorch is checked
    through torch_npu and CANN instead."""
    build: TorchBuild | None = None
    problems: list[Message] = []
    notes: list[Message] = []
    if stack.torch is not None and stack.software_stack != "cann":
        build, problems, notes = _torch_check(stack)
    other = _stack_checks(stack)
    fixes = _fixes(stack, stack.torch, build, problems) if problems else []
    problems.extend(other.problems)
    notes.extend(other.notes)
    limit_notes, limit_sources = _limits(notes)
    notes.extend(limit_notes)
    notes.extend(_branch_note(stack))
    fixes.extend(Fix(effort, sentence, command) for effort, sentence, command in other.fixes)
    limited = any(n.code.startswith("compat.minor_version") for n in notes)
    sources = (*_sources(build, stack), *other.sources, *limit_sources)
    return Verdict(
        not problems,
        limited and not problems,
        tuple(problems),
        tuple(notes),
        tuple(sorted(fixes, key=lambda f: f.effort)),
        build,
        tuple(dict.fromkeys(sources)),
    )
