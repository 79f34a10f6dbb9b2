"""`manage.py compat FILE` (or `-` for stdin): a card, driver, CUDA, PyTorch or pasted
nvidia-smi in; whether it runs, the clashes, and the fixes in order of effort out. Exit status 0
with a verdict either way, 2 with one line naming the field on bad input."""

from planner.compat.services import compat_check
from planner.compat.tables import compat_table
from planner.management.json_command import JsonQuestionCommand


class Command(JsonQuestionCommand):
    help = "Will it run here? Driver, CUDA, PyTorch and card compatibility, with fixes."
    run = staticmethod(compat_check)
    table = staticmethod(compat_table)
