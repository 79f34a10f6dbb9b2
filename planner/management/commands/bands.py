from django.core.management.base import BaseCommand, CommandError

from planner.validation.bands import BANDS_FILE, build, collect, rows_digest, write


class Command(BaseCommand):
    help = (
        "Replay every validation row through the engine and write the uncertainty bands each "
        "estimate carries (planner/validation/bands.json): p50 and p90 of the held-out error "
        "per job, metric and framework, with the rows and sources of each band."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--check",
            action="store_true",
            help="write nothing; fail when the file is not what the rows give today",
        )

    def handle(self, *args, **options):
        data = build(collect(), rows_digest())
        if options["check"]:
            if not BANDS_FILE.is_file() or _read(BANDS_FILE) != data:
                raise CommandError(
                    f"{BANDS_FILE.name} is stale: the rows or the engine changed; "
                    "run manage.py bands"
                )
            self.stdout.write(f"{BANDS_FILE.name} is current ({len(data['bands'])} bands)")
            return
        write(data)
        self.stdout.write(f"wrote {len(data['bands'])} bands to {BANDS_FILE}")


def _read(path):
    import json

    return json.loads(path.read_text(encoding="utf-8"))
