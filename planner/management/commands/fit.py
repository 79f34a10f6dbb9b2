"""`manage.py fit FILE` (or `-` for stdin): a rack and a server in, servers per rack, racks
needed, yearly energy and thermal derating out."""

from planner.estimates.services import fit_run
from planner.estimates.tables import fit_table
from planner.management.json_command import JsonQuestionCommand


class Command(JsonQuestionCommand):
    help = "Fit servers into racks: servers per rack, the binding limit, racks and energy."
    run = staticmethod(fit_run)
    table = staticmethod(fit_table)
