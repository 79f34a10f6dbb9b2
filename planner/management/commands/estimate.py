"""`manage.py estimate FILE` (or `-` for stdin): the estimate contract's JSON in, its answer out."""

from planner.estimates.services import estimate_run
from planner.estimates.tables import estimate_table
from planner.management.json_command import JsonQuestionCommand


class Command(JsonQuestionCommand):
    help = "Estimate memory, throughput and time for a training, fine-tuning or inference job."
    run = staticmethod(estimate_run)
    table = staticmethod(estimate_table)
