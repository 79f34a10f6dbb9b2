from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from catalog.loader import CatalogDataError
from planner.faults.reference import FAULTS_DIR
from planner.faults.services import fault_guide_load


class Command(BaseCommand):
    help = (
        "Load the fault guide (catalog/data/faults) as entries every team reads; safe to run "
        "again. A bad row names its file, line and column, and nothing changes."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--data-dir", type=Path, default=FAULTS_DIR, help="Folder of fault CSV files"
        )

    def handle(self, *args, data_dir: Path, **options):
        try:
            load = fault_guide_load(data_dir=data_dir)
        except CatalogDataError as exc:
            raise CommandError(f"fault guide not loaded, nothing changed: {exc}") from None
        self.stdout.write(
            self.style.SUCCESS(
                f"fault guide loaded: {load.created} created, {load.updated} updated, "
                f"{load.unchanged} unchanged, {load.removed} removed"
                + (f", {load.kept} kept (incidents name them)" if load.kept else "")
            )
        )
