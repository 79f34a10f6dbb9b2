from django.core.management.base import BaseCommand

from accounts.services import roles_ensure


class Command(BaseCommand):
    help = "Create the role groups: viewer, planner, facility, admin."

    def handle(self, *args, **options):
        groups = roles_ensure()
        self.stdout.write(f"roles: {', '.join(g.name for g in groups)}")
