"""The error every question raises when it cannot be answered as asked."""

from __future__ import annotations


class RequestError(ValueError):
    """`field` is the dotted path of the value at fault (`inference.batch`,
    `site.racks[0].power_kw`) and `message` what is wrong with it."""

    def __init__(self, field: str, message: str):
        self.field, self.message = field, message
        super().__init__(f"{field}: {message}")

    def under(self, prefix: str) -> RequestError:
        """The same error for a question nested under `prefix` (`workload`, `estimate`)."""
        return RequestError(f"{prefix}.{self.field}" if self.field else prefix, self.message)
