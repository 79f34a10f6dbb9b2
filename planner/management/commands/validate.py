from django.core.management.base import BaseCommand

from planner.validation.measured import run_all_measured
from planner.validation.public import run_all, table
from planner.validation.public_inference import run_all_inference
from planner.validation.report import inference_table, measured_table, source_table


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

    def handle(self, *args, **options):
        public, measured, inference = run_all(), run_all_measured(), run_all_inference()
        if not options["summary"]:
            self.stdout.write(table(public))
            self.stdout.write("")
            self.stdout.write(measured_table(measured))
            self.stdout.write("")
            self.stdout.write(inference_table(inference))
            self.stdout.write("")
        self.stdout.write(source_table(public, measured, inference))
