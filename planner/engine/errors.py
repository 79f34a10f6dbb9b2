"""The error every question raises when it cannot be answered as asked.

Its sentence is a template with named fields and the values that fill them: the English text
is `message`, and the edge translates the template (Django's catalogue) before filling it, so a
person reading Chinese sees Chinese. Templates are marked with `gettext_noop` so that
`makemessages` finds them here."""

from __future__ import annotations

from typing import Any


def gettext_noop(template: str) -> str:
    """Marks a template for the translation catalogue; the engine itself never translates."""
    return template


class RequestError(ValueError):
    """`field` is the dotted path of the value at fault (`inference.batch`,
    `site.racks[0].power_kw`); `template` and `params` say what is wrong with it."""

    def __init__(self, field: str, template: str, **params: Any):
        self.field, self.template, self.params = field, template, params
        super().__init__(f"{field}: {self.message}")

    @property
    def message(self) -> str:
        """The English sentence."""
        return self.template.format(**self.params) if self.params else self.template

    def at(self, field: str) -> RequestError:
        """The same error about another path (a question nested in another)."""
        return RequestError(field, self.template, **self.params)

    def under(self, prefix: str) -> RequestError:
        """The same error for a question nested under `prefix` (`workload`, `estimate`)."""
        return self.at(f"{prefix}.{self.field}" if self.field else prefix)
