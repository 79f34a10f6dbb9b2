"""`manage.py estimate FILE` (or `-` for stdin): the estimate contract's JSON in, its answer out."""

import json
import sys

from django.core.management.base import BaseCommand

from planner.engine import RequestError
from planner.services import estimate_run
from planner.tables import estimate_table

EXIT_BAD_INPUT = 2


class Command(BaseCommand):
    help = "Estimate memory, throughput and time for a training, fine-tuning or inference job."

    def add_arguments(self, parser):
        parser.add_argument("file", help="JSON question, or - for standard input")
        parser.add_argument("--format", choices=("json", "table"), default="json")

    def handle(self, *args, file: str, format: str, **options):
        try:
            text = sys.stdin.read() if file == "-" else open(file, encoding="utf-8").read()  # noqa: SIM115
        except OSError as exc:
            self._fail(f"file: cannot read {file!r}: {exc.strerror}")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            self._fail(
                f"request: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
            )
        try:
            answer = estimate_run(data=data)
        except RequestError as exc:
            self._fail(str(exc))
        if format == "table":
            self.stdout.write(estimate_table(answer))
        else:
            self.stdout.write(json.dumps(answer, indent=2))

    def _fail(self, message: str):
        self.stderr.write(f"error: {message}")
        sys.exit(EXIT_BAD_INPUT)
