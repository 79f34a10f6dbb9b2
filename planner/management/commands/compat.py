"""`manage.py compat FILE` (or `-` for stdin): a card, driver, CUDA, PyTorch or pasted
nvidia-smi in; whether it runs, the clashes, and the fixes in order of effort out. Exit status 0
with a verdict either way, 2 with one line naming the field on bad input."""

from planner.compat.services import compat_check
from planner.management.json_command import JsonQuestionCommand


def compat_table(answer: dict) -> str:
    """The answer for a terminal."""
    if not answer["compatible"]:
        verdict = "INCOMPATIBLE"
    elif answer["limited"]:
        verdict = "compatible, with the limits of minor-version compatibility"
    else:
        verdict = "compatible"
    stack = answer["stack"]
    lines = [
        f"verdict   {verdict}",
        "stack     " + "  ".join(f"{k} {v}" for k, v in stack.items() if v is not None),
    ]
    lines.extend(f"problem   {p}" for p in answer["problems"])
    lines.extend(f"note      {n}" for n in answer["notes"])
    for fix in answer["fixes"]:
        lines.append(f"fix {fix['effort']}     {fix['sentence']}")
        if fix["command"]:
            lines.append(f"            {fix['command']}")
    lines.extend(f"source    {url}" for url in answer["sources"])
    return "\n".join(lines)


class Command(JsonQuestionCommand):
    help = "Will it run here? Driver, CUDA, PyTorch and card compatibility, with fixes."
    run = staticmethod(compat_check)
    table = staticmethod(compat_table)
