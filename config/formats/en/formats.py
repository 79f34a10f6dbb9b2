"""English formats: Django's own (a comma every three digits)."""

from django.conf.locale.en.formats import *  # noqa: F403
