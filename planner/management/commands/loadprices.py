from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from catalog.loader import CatalogDataError
from planner.prices.reference import PRICES_DIR
from planner.prices.services import price_reference_load


class Command(BaseCommand):
    help = (
        "Load the reference price list (catalog/data/prices) as prices every team reads; "
        "safe to run again. Run after loadcatalog: the prices name catalog items."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--data-dir",
            type=Path,
            default=PRICES_DIR,
            help="Folder with rent.csv and purchase.csv",
        )

    def handle(self, *args, data_dir: Path, **options):
        try:
            load = price_reference_load(data_dir=data_dir)
        except CatalogDataError as exc:
            raise CommandError(f"reference prices not loaded, nothing changed: {exc}") from None
        width = max(len(name) for name in load.counts)
        for name, tally in load.counts.items():
            self.stdout.write(
                f"{name:<{width}}  created {tally['created']:>3}  updated {tally['updated']:>3}"
                f"  unchanged {tally['unchanged']:>3}"
            )
        totals = load.totals
        self.stdout.write(
            self.style.SUCCESS(
                f"reference prices loaded: {totals['created']} created, {totals['updated']} "
                f"updated, {totals['unchanged']} unchanged, {load.retired} retired"
            )
        )
