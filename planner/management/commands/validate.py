from django.core.management.base import BaseCommand

from planner.validation.public import run_all, table


class Command(BaseCommand):
    help = "Replay published training runs through the engine and print measured vs predicted."

    def handle(self, *args, **options):
        self.stdout.write(table(run_all()))
