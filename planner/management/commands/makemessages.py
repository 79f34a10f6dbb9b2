"""Django's makemessages, which also extracts the message catalogue's plural templates
(planner.messages.catalogue.plural: singular and plural, as ngettext_lazy's first two
arguments)."""

from django.core.management.commands import makemessages


class Command(makemessages.Command):
    xgettext_options = [*makemessages.Command.xgettext_options, "--keyword=plural:1,2"]
