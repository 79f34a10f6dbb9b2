"""Sentences as data: every reason, warning and explanation the engine gives is a `Message`, a
stable code with the figures it quotes. The edge (planner/messages.py) holds each code's
template in the translation catalogue and writes the sentence in the reader's language; a
program reads the code and the figures.

Parameters are numbers, strings, other messages (a label inside a sentence), or lists of them
(a list of labels the sentence joins)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any


@dataclass(frozen=True)
class Message:
    code: str
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def as_dict(self) -> dict[str, Any]:
        """JSON: {"code": ..., "params": {...}}, nested messages likewise."""
        return {"code": self.code, "params": {k: plain(v) for k, v in self.params.items()}}


def message(code: str, **params: Any) -> Message:
    return Message(code, MappingProxyType(params))


def plain(value: Any) -> Any:
    """A message parameter as JSON."""
    if isinstance(value, Message):
        return value.as_dict()
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def binding_label(binding: str) -> Message:
    """The facility limit that binds ("power", "cooling type"...) as a label in a sentence."""
    return message("binding." + binding.replace(" ", "_"))
