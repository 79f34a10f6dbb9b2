import json

from django.conf import settings
from django.utils import translation

from planner.faults.selectors import MAX_TEXT_CHARS, diagnosis_json, fault_diagnosis
from planner.management.json_command import InputCommand


def table(answer: dict) -> str:
    """The matches, best first: each with its evidence line, checks and fixes."""
    if not answer["matches"]:
        lines = [translation.gettext("No known fault matches this text.")]
    else:
        lines = []
        for rank, match in enumerate(answer["matches"], start=1):
            evidence = match["evidence"]
            lines.append(f"{rank}. {match['title']}  (score {match['score']})")
            lines.append(f"   line {evidence['line_number']}: {evidence['line']}")
            lines.extend(f"   check: {command}" for command in match["checks"])
            lines.extend(f"   fix:   {fix}" for fix in match["fixes"])
            if match["source"]:
                lines.append(f"   source: {match['source']}")
    if answer["unlisted_xid_codes"]:
        codes = ", ".join(str(code) for code in answer["unlisted_xid_codes"])
        lines.append(f"Xid codes not in the guide: {codes}")
    return "\n".join(lines)


class Command(InputCommand):
    help = (
        "Read a kernel log, nvidia-smi -q output, a traceback or NCCL output (FILE, or - for "
        "standard input) and print the known faults it shows, best first, each with the line "
        'that shows it: {"matches": [...]} with --format json. Run loadfaults first.'
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="The text to diagnose, or - for standard input")
        parser.add_argument("--format", choices=("json", "table"), default="table")
        parser.add_argument(
            "--language",
            choices=[code for code, _ in settings.LANGUAGES],
            default=settings.LANGUAGE_CODE,
            help="The language of the titles, causes and fixes",
        )

    def handle(self, *args, file: str, format: str, language: str, **options):
        text = self.read_input(file, text=True, limit=MAX_TEXT_CHARS + 1)
        if len(text) > MAX_TEXT_CHARS:
            self.fail(f"file: longer than {MAX_TEXT_CHARS:,} characters; paste the relevant part")
        with translation.override(language):
            answer = diagnosis_json(fault_diagnosis(text=text, user=None))
            self.stdout.write(
                json.dumps(answer, indent=2, ensure_ascii=False)
                if format == "json"
                else table(answer)
            )
