"""The shape every command that reads FILE (or `-` for stdin) shares: exit status 2 with one
line naming what is wrong; and, for question-and-answer commands, JSON in and an answer out as
JSON or a table."""

import json
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from django.core.management.base import BaseCommand

from config.json_input import loads
from planner.engine import RequestError

EXIT_BAD_INPUT = 2


class InputCommand(BaseCommand):
    """A command that reads FILE, or `-` for standard input, and fails with one line."""

    def read_input(self, file: str, *, text: bool = False, limit: int = -1) -> Any:
        """At most `limit` characters or bytes of `file` (`-`: standard input, all by
        default): bytes, or with `text` UTF-8 text, undecodable bytes replaced. A file that
        cannot be read fails with one line."""
        try:
            if file == "-":
                stdin = sys.stdin if text else getattr(sys.stdin, "buffer", sys.stdin)
                return stdin.read(limit)
            if text:
                with open(file, encoding="utf-8", errors="replace") as handle:
                    return handle.read(limit)
            with open(file, "rb") as handle:
                return handle.read(limit)
        except OSError as exc:
            self.fail(f"file: cannot read {file!r}: {exc.strerror}")

    def fail(self, message: str) -> NoReturn:
        self.stderr.write(f"error: {message}")
        sys.exit(EXIT_BAD_INPUT)


class JsonQuestionCommand(InputCommand):
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
            text = self.read_input(file)
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
