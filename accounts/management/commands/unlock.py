from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from accounts.services import user_unlock


class Command(BaseCommand):
    help = "Let accounts locked out by failed sign-ins sign in again at once."

    def add_arguments(self, parser):
        parser.add_argument("usernames", nargs="+", metavar="USERNAME")

    def handle(self, *args, usernames: list[str], **options):
        known = set(
            get_user_model()
            .objects.filter(username__in=usernames)
            .values_list("username", flat=True)
        )
        unknown = [name for name in usernames if name not in known]
        if unknown:
            raise CommandError(f"no such user: {', '.join(unknown)}")
        for username in usernames:
            user_unlock(username=username)
            self.stdout.write(f"unlocked: {username}")
