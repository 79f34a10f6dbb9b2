"""Reading NetBox's files into Records: bulk-import CSV, REST API JSON (a page of `results`, a
list, or one object) and the device-type library's YAML or JSON. Every problem names the file,
the line and the column; a file with any problem is refused whole."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import yaml
from django.utils.translation import gettext as _

from planner.netbox import formats
from planner.netbox.formats import READ, Problem, Record, Spec, Where

# A NetBox API page holds at most 1,000 results (MAX_PAGE_SIZE); a rack file of a large hall is
# well under this.
NETBOX_MAX_BYTES = 2 * 1024 * 1024


@dataclass(frozen=True)
class NetboxFile:
    """A file as uploaded or named on the command line."""

    name: str
    data: bytes


class _Mapping(dict):
    """A YAML or JSON object that remembers where it and each of its values stood."""

    mark: tuple[int, int] = (1, 1)
    marks: dict[str, tuple[int, int]]


class _Loader(yaml.SafeLoader):
    pass


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> _Mapping:
    loader.flatten_mapping(node)
    mapping = _Mapping()
    mapping.mark = (node.start_mark.line + 1, node.start_mark.column + 1)
    mapping.marks = {}
    for key_node, value_node in node.value:
        key = str(loader.construct_object(key_node, deep=True))
        mapping[key] = loader.construct_object(value_node, deep=True)
        mapping.marks[key] = (value_node.start_mark.line + 1, value_node.start_mark.column + 1)
    return mapping


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def read_files(files: Iterable[NetboxFile]) -> tuple[list[Record], list[Problem]]:
    records: list[Record] = []
    problems: list[Problem] = []
    for upload in files:
        found, wrong = read_file(upload)
        records.extend(found)
        problems.extend(wrong)
    return records, problems


def read_file(upload: NetboxFile) -> tuple[list[Record], list[Problem]]:
    """The records of one file, or the problems that refuse it."""
    start = Where(upload.name, 1)
    if len(upload.data) > NETBOX_MAX_BYTES:
        limit = NETBOX_MAX_BYTES // 1024
        return [], [Problem(start, _("larger than %(limit)d KiB; split it.") % {"limit": limit})]
    try:
        text = upload.data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = upload.data[: exc.start].count(b"\n") + 1
        return [], [Problem(Where(upload.name, line), _("not UTF-8 text."))]
    if "\x00" in text:
        return [], [Problem(start, _("binary data, not a NetBox export."))]
    name = upload.name.lower()
    if name.endswith(".csv"):
        return _read_csv(upload.name, text)
    if name.endswith((".json", ".yaml", ".yml")):
        return _read_document(upload.name, text, is_json=name.endswith(".json"))
    return [], [
        Problem(start, _("not a NetBox export: name it .csv, .json, .yaml or .yml as exported."))
    ]


# --- values -----------------------------------------------------------------------------------


def _value(spec: Spec, raw: Any) -> tuple[Any, str | None]:
    """The value a spec reads from a CSV cell or a JSON/YAML value, or why it cannot."""
    if isinstance(raw, dict):
        # An API answer names a related object ({"id": 3, "name": "DC1", ...}) and a choice as
        # {"value": "active", "label": "Active"}.
        raw = raw.get("value") if spec.kind == "choice" else raw.get(spec.ref_key)
    if raw is None or (isinstance(raw, str) and raw.strip() == ""):
        return None, (_("is required.") if spec.required else None)
    if spec.kind in ("text", "ref"):
        return str(raw).strip(), None
    if spec.kind == "choice":
        text = str(raw).strip().lower()
        if text not in spec.choices:
            return None, _("%(value)r is not one of NetBox's %(choices)s.") % {
                "value": raw,
                "choices": ", ".join(spec.choices),
            }
        return text, None
    if isinstance(raw, bool):
        return None, _("%(value)r is not a number.") % {"value": raw}
    try:
        number = float(str(raw).strip())
    except ValueError:
        return None, _("%(value)r is not a number.") % {"value": raw}
    if number != number or number in (float("inf"), float("-inf")):
        return None, _("%(value)r is not a number.") % {"value": raw}
    if spec.kind == "whole":
        if number != int(number):
            return None, _("%(value)r is not a whole number.") % {"value": raw}
        return int(number), None
    return number, None


def _record(
    kind: str, raw: dict[str, Any], where: dict[str, Where], problems: list[Problem]
) -> Record:
    values: dict[str, Any] = {}
    netbox_id = raw.get("id")
    if isinstance(netbox_id, int) or (isinstance(netbox_id, str) and netbox_id.isdigit()):
        values["id"] = int(netbox_id)
    for name, spec in READ[kind].items():
        value, wrong = _value(spec, raw.get(name))
        if wrong:
            problems.append(Problem(where.get(name) or where[""], wrong))
        values[name] = value
        nested = raw.get(name)
        if isinstance(nested, dict) and isinstance(nested.get("id"), int):
            values[f"{name}_id"] = nested["id"]
            if name == "device_type" and nested.get("slug"):
                values["device_type_slug"] = str(nested["slug"])
    return Record(kind, values, where)


# --- CSV --------------------------------------------------------------------------------------


def _csv_kind(name: str, header: list[str]) -> str | None:
    columns = set(header)
    for kind, signature in formats.SIGNATURES:
        if columns & signature:
            return kind
    lowered = name.lower().replace("-", "_")
    for kind, hint in ((formats.POWER_PANEL, "panel"), (formats.RACK, "rack")):
        if hint in lowered and {"site", "name"} <= columns:
            return kind
    if "site" not in columns and "name" in columns:
        return formats.SITE
    return None


def _read_csv(name: str, text: str) -> tuple[list[Record], list[Problem]]:
    try:
        reader = csv.reader(io.StringIO(text))
        header = [cell.strip() for cell in next(reader, [])]
    except csv.Error as exc:
        return [], [Problem(Where(name, 1), _("not a CSV file: %(error)s") % {"error": exc})]
    kind = _csv_kind(name, header)
    if kind is None:
        return [], [
            Problem(
                Where(name, 1),
                _(
                    "cannot tell which NetBox export this is from its columns; take the CSV "
                    "of sites, racks, power panels, power feeds, devices or power ports."
                ),
            )
        ]
    allowed = set(formats.IMPORT_COLUMNS[kind]) | {"id"}
    problems = [
        Problem(
            Where(name, 1, index, column),
            _("%(column)s is not a column of NetBox's %(kind)s import.")
            % {"column": column, "kind": kind.replace("_", " ")},
        )
        for index, column in enumerate(header, start=1)
        if column not in allowed and not column.startswith("cf_")
    ]
    if problems:
        return [], problems
    return _csv_rows(name, kind, header, reader)


def _csv_rows(name, kind, header, reader) -> tuple[list[Record], list[Problem]]:
    records: list[Record] = []
    problems: list[Problem] = []
    try:
        for cells in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in cells):
                continue
            if len(cells) != len(header):
                problems.append(
                    Problem(
                        Where(name, line),
                        _("%(cells)d cells; the header has %(columns)d.")
                        % {"cells": len(cells), "columns": len(header)},
                    )
                )
                continue
            where = {"": Where(name, line)} | {
                column: Where(name, line, index, column)
                for index, column in enumerate(header, start=1)
            }
            records.append(_record(kind, dict(zip(header, cells, strict=True)), where, problems))
    except csv.Error as exc:
        line = reader.line_num
        problems.append(Problem(Where(name, line), _("not a CSV file: %(error)s") % {"error": exc}))
    if not records and not problems:
        problems.append(Problem(Where(name, 1), _("a header but no rows.")))
    return records, problems


# --- JSON and YAML ----------------------------------------------------------------------------


def _load(name: str, text: str, *, is_json: bool) -> tuple[list[Any], Problem | None]:
    if is_json:
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            return [], Problem(
                Where(name, exc.lineno, exc.colno), _("not JSON: %(error)s") % {"error": exc.msg}
            )
        # JSON is YAML (tabs between tokens aside: JSON strings hold none unescaped), and the
        # YAML reader keeps each value's line and column.
        text = text.replace("\t", " ")
    try:
        documents = [doc for doc in yaml.load_all(text, Loader=_Loader) if doc is not None]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, None)
        return [], Problem(
            Where(name, line, column), _("not YAML: %(error)s") % {"error": exc.problem}
        )
    return documents, None


def _document_kind(item: dict[str, Any]) -> str | None:
    keys = set(item)
    if "power_panel" in keys:
        return formats.POWER_FEED
    if "device" in keys and ({"maximum_draw", "allocated_draw"} & keys):
        return formats.POWER_PORT
    if "device_type" in keys:
        return formats.DEVICE
    if "model" in keys and ("u_height" in keys or "manufacturer" in keys):
        return formats.DEVICE_TYPE
    if "site" in keys and ("u_height" in keys or "max_weight" in keys or "outer_unit" in keys):
        return formats.RACK
    if "site" in keys and "powerfeed_count" in keys:
        return formats.POWER_PANEL
    if "slug" in keys and ("facility" in keys or "time_zone" in keys or "region" in keys):
        return formats.SITE
    return None


def _items(document: Any) -> list[Any]:
    if isinstance(document, dict) and isinstance(document.get("results"), list):
        return document["results"]
    if isinstance(document, list):
        return document
    return [document]


def _read_document(name: str, text: str, *, is_json: bool) -> tuple[list[Record], list[Problem]]:
    documents, problem = _load(name, text, is_json=is_json)
    if problem:
        return [], [problem]
    records: list[Record] = []
    problems: list[Problem] = []
    for item in (item for document in documents for item in _items(document)):
        if not isinstance(item, _Mapping):
            problems.append(
                Problem(
                    Where(name, 1), _("expected NetBox objects, found %(value)r.") % {"value": item}
                )
            )
            continue
        kind = _document_kind(item)
        here = Where(name, *item.mark)
        if kind is None:
            problems.append(
                Problem(
                    here,
                    _(
                        "not a NetBox site, rack, power panel, power feed, device, power port or "
                        "device type."
                    ),
                )
            )
            continue
        where = {"": here} | {
            key: Where(name, line, column, key) for key, (line, column) in item.marks.items()
        }
        record = _record(kind, item, where, problems)
        if kind == formats.DEVICE_TYPE:
            record.values["power_ports"] = _ports(name, item.get("power-ports"), problems)
        records.append(record)
    if not records and not problems:
        problems.append(Problem(Where(name, 1), _("no NetBox objects in the file.")))
    return records, problems


def _ports(name: str, ports: Any, problems: list[Problem]) -> list[Record]:
    """A device type's power ports (the library's `power-ports`), each with its draws in W."""
    out = []
    for port in ports if isinstance(ports, list) else []:
        if not isinstance(port, _Mapping):
            continue
        where = {"": Where(name, *port.mark)} | {
            key: Where(name, line, column, key) for key, (line, column) in port.marks.items()
        }
        values: dict[str, Any] = {}
        for key in ("maximum_draw", "allocated_draw"):
            values[key], wrong = _value(Spec("number"), port.get(key))
            if wrong:
                problems.append(Problem(where.get(key) or where[""], wrong))
        out.append(Record(formats.POWER_PORT, values, where))
    return out
