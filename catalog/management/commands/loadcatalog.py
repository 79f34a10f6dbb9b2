from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from catalog.hf_import import MODELS_FILE, CatalogEntry, model_row, read_config, write_model_row
from catalog.loader import DATA_DIR, CatalogDataError
from catalog.services import catalog_load

HF_OPTIONS = ("slug", "name", "family", "source")


class Command(BaseCommand):
    help = (
        "Load the curated catalog (catalog/data) into the database; safe to run again. With "
        "--hf-config, first add (or update) a model in the curated data from its Hugging Face "
        "config.json."
    )

    def add_arguments(self, parser):
        parser.add_argument("--data-dir", type=Path, default=DATA_DIR, help="Folder of CSV files")
        hf = parser.add_argument_group("a model from its Hugging Face config.json")
        hf.add_argument("--hf-config", type=Path, metavar="FILE", help="The model's config.json")
        hf.add_argument("--slug", help="Catalog slug, e.g. qwen2.5-3b")
        hf.add_argument("--name", help="Name as published, e.g. 'Qwen2.5 3B'")
        hf.add_argument("--family", help="Family, e.g. Qwen2.5 (gpt/opt/bloom...: plain MLP)")
        hf.add_argument(
            "--source",
            action="append",
            default=[],
            help="Where the figures come from (the config.json URL first); repeat for more",
        )
        hf.add_argument("--notes", default="", help="What a reader should know about the shape")
        hf.add_argument("--context", type=int, help="Context length, tokens; default: the config's")

    def handle(self, *args, data_dir: Path, hf_config: Path | None, **options):
        if hf_config is not None:
            self._add_model(hf_config, data_dir, options)
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

    def _add_model(self, path: Path, data_dir: Path, options: dict) -> None:
        """Write the model's row into the curated data; if the catalog then fails to load, the
        data file is put back as it was."""
        missing = [f"--{name}" for name in HF_OPTIONS if not options.get(name)]
        if missing:
            raise CommandError(f"--hf-config needs {', '.join(missing)}")
        entry = CatalogEntry(
            slug=options["slug"],
            name=options["name"],
            family=options["family"],
            sources=tuple(options["source"]),
            notes=options["notes"],
            context=options["context"],
        )
        models_file = data_dir / MODELS_FILE
        before = models_file.read_bytes()
        try:
            row = model_row(read_config(path), entry, path=path)
            outcome = write_model_row(row, data_dir=data_dir)
            catalog_load(data_dir=data_dir)
        except CatalogDataError as exc:
            models_file.write_bytes(before)
            raise CommandError(f"model not added, nothing changed: {exc}") from None
        self.stdout.write(
            f"{entry.slug}: {outcome} in {models_file} ({int(row['params']):,} parameters, "
            f"{int(row['active_params']):,} active)"
        )
