"""`manage.py estimate FILE` (or `-` for stdin): the estimate contract's JSON in, its answer out.
A JSON array of questions answers an array in the same order, each element its answer or its
own error, in one process (procurement scripts compare hundreds of builds)."""

import json

from planner.engine import RequestError
from planner.estimates.services import estimate_batch_run, estimate_run
from planner.estimates.tables import estimate_table
from planner.management.json_command import JsonQuestionCommand


class Command(JsonQuestionCommand):
    help = (
        "Estimate memory, throughput and time for a training, fine-tuning or inference job; "
        "a JSON array of jobs answers an array."
    )
    run = staticmethod(estimate_run)
    table = staticmethod(estimate_table)

    def respond(self, data, format: str) -> None:
        if not isinstance(data, list):
            super().respond(data, format)
            return
        try:
            answers = estimate_batch_run(data=data)
        except RequestError as exc:
            self.fail(str(exc))
        if format == "json":
            self.stdout.write(json.dumps(answers, indent=2))
            return
        for index, answer in enumerate(answers):
            self.stdout.write(f"[{index}]")
            error = answer.get("error")
            self.stdout.write(
                f"error: {error['field']}: {error['message']}" if error else estimate_table(answer)
            )
