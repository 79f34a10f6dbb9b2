"""Simplified Chinese number formats as our readers write amounts and figures: a comma every
three digits (Django's default for zh-Hans groups none), as procurement documents and vendors'
price lists in China do."""

from django.conf.locale.zh_Hans.formats import *  # noqa: F403

THOUSAND_SEPARATOR = ","
NUMBER_GROUPING = 3
