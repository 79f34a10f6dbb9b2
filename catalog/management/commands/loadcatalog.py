from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from catalog.loader import DATA_DIR, CatalogDataError
from catalog.services import catalog_load


class Command(BaseCommand):
    help = "Load the curated catalog (catalog/data) into the database; safe to run again."

    def add_arguments(self, parser):
        parser.add_argument("--data-dir", type=Path, default=DATA_DIR, help="Folder of CSV files")

    def handle(self, *args, data_dir: Path, **options):
        try:
            run = catalog_load(data_dir=data_dir)
        except CatalogDataError as exc:
            raise CommandError(f"catalog not loaded, nothing changed: {exc}") from None
        width = max(len(kind) for kind in run.counts)
        for kind, tally in run.counts.items():
            self.stdout.write(
                f"{kind:<{width}}  created {tally['created']:>3}  updated {tally['updated']:>3}"
                f"  unchanged {tally['unchanged']:>3}"
            )
        totals = run.totals
        self.stdout.write(
            self.style.SUCCESS(
                f"catalog loaded: {totals['created']} created, {totals['updated']} updated, "
                f"{totals['unchanged']} unchanged"
            )
        )
