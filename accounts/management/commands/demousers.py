from django.core.management.base import BaseCommand

from accounts.services import demo_users_ensure


class Command(BaseCommand):
    help = "Create one demo user per role; prints each new password once."

    def handle(self, *args, **options):
        for demo in demo_users_ensure():
            if demo.password:
                self.stdout.write(
                    f"demo user {demo.username:<16} password {demo.password}  ({demo.role})"
                )
            else:
                self.stdout.write(
                    f"demo user {demo.username:<16} exists; its password was printed when it was created"
                )
