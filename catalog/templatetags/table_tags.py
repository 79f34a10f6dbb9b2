"""The headings of the site's data tables, declared once per table in its template:

    {% column_heads _("Name") _("Memory (GiB)")|num _("Compare")|unseen %}

writes one `<th scope="col">` per label, with class "num" for a column of figures (right
aligned) and the label visible to screen readers only for a column of buttons or check boxes.
`table_columns ... as columns` keeps the same list for templates/htmx/data_table.html, which
also needs the number of columns for its empty row."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from django import template
from django.template.base import FilterExpression, Parser, Token
from django.utils.functional import Promise
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeData, SafeString, mark_safe
from django.utils.text import smart_split
from django.utils.translation import gettext

register = template.Library()


@dataclass(frozen=True)
class Column:
    """One column's heading: what it says, whether it holds figures, whether only screen
    readers say it."""

    label: str
    numeric: bool = False
    unseen: bool = False


def as_column(label: str | Promise | Column) -> Column:
    """A label as a column. Django looks a template's `_(...)` up with its percent signs
    doubled, as {% translate %} does, but makemessages extracts it from a tag's arguments with
    single ones: a label that comes back doubled is restored and looked up as extracted."""
    if isinstance(label, Column):
        return label
    if not isinstance(label, str | Promise) or not str(label):
        raise template.TemplateSyntaxError(f"a column needs a label, not {label!r}")
    text = str(label)
    restored = gettext(text.replace("%%", "%")) if "%%" in text else text
    return Column(label=mark_safe(restored) if isinstance(text, SafeData) else restored)


@register.filter
def num(label: str | Promise | Column) -> Column:
    """A column of figures: right aligned, like its cells (class "num")."""
    return replace(as_column(label), numeric=True)


@register.filter
def unseen(label: str | Promise | Column) -> Column:
    """A column whose cells speak for themselves (buttons, check boxes): its label is for
    screen readers only."""
    return replace(as_column(label), unseen=True)


def columns_of(labels: Iterable[Any], *, actions: bool = False) -> list[Column]:
    """The columns named, in order; a list of columns (a `table_columns` result) counts as
    its items. With `actions` true, a last column for the row's buttons (Edit, Copy, Delete)."""
    columns: list[Column] = []
    for label in labels:
        if isinstance(label, list | tuple):
            columns.extend(as_column(item) for item in label)
        else:
            columns.append(as_column(label))
    if actions:
        columns.append(Column(label=gettext("Actions"), unseen=True))
    return columns


def heads_html(columns: Iterable[Column]) -> SafeString:
    """The `<th scope="col">` cells of a table's heading row, labels escaped."""
    return format_html_join("", "{}", ((_heading(column),) for column in columns))


def _heading(column: Column) -> SafeString:
    align = mark_safe(' class="num"') if column.numeric else ""
    label = (
        format_html('<span class="sr-only">{}</span>', column.label)
        if column.unseen
        else column.label
    )
    return format_html('<th scope="col"{}>{}</th>', align, label)


class ColumnsNode(template.Node):
    """The columns, resolved in the page's context: written as heading cells, or kept in the
    context under `target`."""

    def __init__(
        self, labels: list[FilterExpression], actions: FilterExpression | None, target: str | None
    ):
        self.labels = labels
        self.actions = actions
        self.target = target

    def render(self, context: template.Context) -> str:
        actions = bool(self.actions.resolve(context)) if self.actions else False
        columns = columns_of((label.resolve(context) for label in self.labels), actions=actions)
        if self.target:
            context[self.target] = columns
            return ""
        return heads_html(columns)


def _parse_columns(parser: Parser, token: Token) -> ColumnsNode:
    # Django's own argument splitting takes a translated `_(...)` only when nothing follows
    # it, so `_(...)|num` is split here and each bit compiled as a filter expression.
    name, *bits = list(smart_split(token.contents))
    target = None
    if len(bits) >= 2 and bits[-2] == "as":
        target = bits[-1]
        bits = bits[:-2]
    actions = None
    if bits and bits[-1].startswith("actions="):
        actions = parser.compile_filter(bits.pop().removeprefix("actions="))
    if not bits:
        raise template.TemplateSyntaxError(f"{name} needs at least one column")
    return ColumnsNode([parser.compile_filter(bit) for bit in bits], actions, target)


@register.tag
def column_heads(parser: Parser, token: Token) -> ColumnsNode:
    """`{% column_heads _("Name") _("Power (W)")|num actions=can_edit %}`: the heading cells."""
    return _parse_columns(parser, token)


@register.tag
def table_columns(parser: Parser, token: Token) -> ColumnsNode:
    """`{% table_columns ... as columns %}`: the same columns kept for a data_table.html."""
    node = _parse_columns(parser, token)
    if node.target is None:
        raise template.TemplateSyntaxError("table_columns ends with `as <name>`")
    return node
