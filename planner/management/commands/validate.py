from django.core.management.base import BaseCommand

from planner.validation.report import validation_report


class Command(BaseCommand):
    help = (
        "Replay published training and inference runs and runs measured on an H200 through "
        "the engine; print measured vs predicted per row and each source group's accuracy."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--summary",
            action="store_true",
            help="print only the per-source-group table and the fits verdicts",
        )

    def handle(self, *args, summary: bool, **options):
        self.stdout.write(validation_report(summary_only=summary))
