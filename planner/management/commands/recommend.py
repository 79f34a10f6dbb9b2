"""`manage.py recommend FILE` (or `-`): a workload, a site and a budget in; every build that
suits it, ranked on the five dimensions, out."""

from planner.management.json_command import JsonQuestionCommand
from planner.plans.services import recommend_run


def recommend_table(answer: dict) -> str:
    head = f"{'#':>3} {'accelerator':<28} {'server':<26} {'count':>6} {'overall':>8} {'days':>8} {'TCO':>14}"
    lines = [head, "-" * len(head)]
    for i, c in enumerate(answer["candidates"], 1):
        tco = c["cost"]["tco"]
        lines.append(
            f"{i:>3} {c['accelerator'][:28]:<28} {c['server'][:26]:<26} {c['count']:>6} {c['overall']:>8.1f} "
            f"{c['estimate']['time']['days']:>8.1f} {'' if tco is None else f'{tco:,.0f}':>14}"
        )
    lines.append(
        f"{len(answer['rejected'])} builds rejected; {answer['evaluated']} evaluated; amounts in {answer['currency']}"
    )
    if answer.get("why_none"):
        lines.append(answer["why_none"])
    return "\n".join(lines)


class Command(JsonQuestionCommand):
    help = "Rank every build (accelerator x server x count) for a workload, site and budget."
    run = staticmethod(recommend_run)
    table = staticmethod(recommend_table)
