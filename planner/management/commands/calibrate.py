"""`manage.py calibrate FILE` (or `-`): store a flopfit-probe report as a calibration profile
and print what was derived from it."""

import json

from planner.calibrations.services import calibration_create
from planner.management.json_command import JsonQuestionCommand


def calibrate(*, data) -> dict:
    profile = calibration_create(probe=data)
    return {
        "id": profile.pk,
        "name": profile.name,
        "device": profile.device_name,
        "accelerator": profile.accelerator.slug if profile.accelerator else None,
        "derived": profile.derived,
    }


def calibration_table(answer: dict) -> str:
    if answer["accelerator"] is None:
        return f"profile {answer['id']}: {answer['device']} matches no catalog accelerator; stored, nothing derived"
    lines = [f"profile {answer['id']}: {answer['device']} -> {answer['accelerator']}"]
    for row in answer["derived"]["rows"]:
        extra = (
            f"  calibrated {row['calibrated']:,.1f}" if row.get("calibrated") is not None else ""
        )
        lines.append(
            f"  {row['figure']:<40} measured {row['measured']:>12,.1f}  engine {row['engine']:>12,.1f}{extra} {row['unit']}"
        )
    lines.append("  factors: " + json.dumps(answer["derived"]["calibration"]))
    return "\n".join(lines)


class Command(JsonQuestionCommand):
    help = "Store a flopfit-probe report as a calibration profile and derive its factors."
    run = staticmethod(calibrate)
    table = staticmethod(calibration_table)
