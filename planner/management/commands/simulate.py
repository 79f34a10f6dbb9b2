"""`manage.py simulate FILE [--wait] [--timeout S] [--inline]` (FILE or `-` for stdin): queue the
simulation JSON of the API and print its row; with --wait, follow the row until it finishes and
print the result; with --inline, run it in this process (no worker, no queue, no row) and print
the result, for scripts and benchmarks.

Exit status: 0 queued (or succeeded, with --wait); 1 failed, cancelled or timed out, or still
running when --timeout ran out (the error on stderr); 2 bad input, one line naming the field;
3 the task queue did not answer."""

import json
import sys
import time

from planner.choices import SimulationStatus
from planner.engine import RequestError
from planner.management.json_command import JsonQuestionCommand
from planner.models import Simulation
from planner.simulations.api.views import SimulationSerializer
from planner.simulations.services import (
    QueueUnavailable,
    simulation_run_inline,
    simulation_start,
)

EXIT_NOT_SUCCEEDED = 1
EXIT_QUEUE_UNAVAILABLE = 3
POLL_EVERY_S = 0.5


class Command(JsonQuestionCommand):
    help = "Queue a training or serving simulation; with --wait, wait for and print its result."

    def add_arguments(self, parser):
        parser.add_argument("file", help="JSON question, or - for standard input")
        parser.add_argument(
            "--wait",
            action="store_true",
            help="Wait until it finishes and print the result instead of the row",
        )
        parser.add_argument(
            "--timeout",
            type=float,
            default=None,
            metavar="S",
            help="With --wait: give up after S seconds (the simulation keeps running)",
        )
        parser.add_argument(
            "--inline",
            action="store_true",
            help="Run it here, without the worker or the queue, and print the result",
        )

    def handle(self, *args, file: str, wait: bool, timeout: float | None, inline: bool, **options):
        data = self.question(file)
        if inline:
            try:
                result = simulation_run_inline(data=data)
            except RequestError as exc:
                self.fail(str(exc))
            self.stdout.write(json.dumps(result, indent=2))
            return
        try:
            simulation, _queued = simulation_start(data=data)
        except RequestError as exc:
            self.fail(str(exc))
        except QueueUnavailable as exc:
            self.stderr.write(f"error: the task queue did not answer, nothing is queued: {exc}")
            sys.exit(EXIT_QUEUE_UNAVAILABLE)
        if wait:  # only the result goes to stdout, so it stays one JSON document
            self._wait(simulation, timeout=timeout)
        else:
            self.stdout.write(json.dumps(SimulationSerializer(simulation).data, indent=2))

    def _wait(self, simulation: Simulation, *, timeout: float | None) -> None:
        deadline = None if timeout is None else time.monotonic() + timeout
        shown = None
        while not simulation.finished:
            if simulation.status != shown:  # progress notes on stderr; stdout gets the result
                shown = simulation.status
                self.stderr.write(f"simulation {simulation.pk}: {shown}")
            if deadline is not None and time.monotonic() >= deadline:
                self.stderr.write(
                    f"error: simulation {simulation.pk} is still {simulation.status} after "
                    f"{timeout:g} s; it keeps running"
                )
                sys.exit(EXIT_NOT_SUCCEEDED)
            time.sleep(POLL_EVERY_S)
            simulation.refresh_from_db()
        if simulation.status != SimulationStatus.SUCCEEDED:
            detail = f": {simulation.error}" if simulation.error else ""
            self.stderr.write(f"error: simulation {simulation.pk} {simulation.status}{detail}")
            sys.exit(EXIT_NOT_SUCCEEDED)
        self.stdout.write(json.dumps(simulation.result, indent=2))
