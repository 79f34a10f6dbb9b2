"""The shape every question-and-answer command shares: JSON from a file or stdin, an answer
as JSON or a table, and exit status 2 with one line naming the bad field."""

import json
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from django.core.management.base import BaseCommand

from config.json_input import loads
from planner.engine import RequestError

EXIT_BAD_INPUT = 2


class JsonQuestionCommand(BaseCommand):
    run: Callable[..., dict]  # service taking data=...
    table: Callable[[dict], str]  # human summary of an answer

    def add_arguments(self, parser):
        parser.add_argument("file", help="JSON question, or - for standard input")
        parser.add_argument("--format", choices=("json", "table"), default="json")

    def handle(self, *args, file: str, format: str, **options):
        self.respond(self.question(file), format)

    def respond(self, data: Any, format: str) -> None:
        """Answer the question read, on stdout as JSON or a table."""
        try:
            answer = type(self).run(data=data)
        except RequestError as exc:
            self.fail(str(exc))
        self.stdout.write(
            type(self).table(answer) if format == "table" else json.dumps(answer, indent=2)
        )

    def question(self, file: str) -> Any:
        """The JSON question in `file` (`-`: standard input); a file that cannot be read, is
        not UTF-8, is not JSON or holds what no store accepts (config/json_input) fails with
        one line."""
        try:
            if file == "-":
                stdin = getattr(sys.stdin, "buffer", sys.stdin)
                text = stdin.read()
            else:
                with open(file, "rb") as handle:
                    text = handle.read()
        except OSError as exc:
            self.fail(f"file: cannot read {file!r}: {exc.strerror}")
        except UnicodeDecodeError as exc:  # a text-mode stdin that is not UTF-8
            self.fail(f"request: not UTF-8 (byte {exc.start} cannot be decoded)")
        try:
            return loads(text)
        except json.JSONDecodeError as exc:
            self.fail(
                f"request: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
            )
        except ValueError as exc:  # JsonInputError: names the value at fault
            self.fail(str(exc))

    def fail(self, message: str) -> NoReturn:
        self.stderr.write(f"error: {message}")
        sys.exit(EXIT_BAD_INPUT)
