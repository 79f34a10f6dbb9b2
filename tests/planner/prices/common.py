"""Forms, files and clients the price tests share."""

import csv
import io

from django.core.files.uploadedfile import SimpleUploadedFile

from planner.prices.csv_rows import CSV_COLUMNS

HTMX = {"HTTP_HX_REQUEST": "true"}
# A quote for eight MI300X cards' worth, entered by hand.
PRICE_FORM = {
    "kind": "purchase",
    "item_kind": "accelerator",
    "accelerator": "",  # set per test: the card's pk
    "amount": "12500",
    "currency": "USD",
    "price_date": "2026-11-20",
    "valid_until": "2027-02-20",
    "source": "quote from Example Systems, ref Q-2026-118",
    "read_on": "",
    "support_share_per_year": "0.15",
    "depreciation_years": "5",
    "provider": "Example Systems",
    "region": "",
    "terms": "",
    "instance_name": "",
    "accelerators_per_instance": "",
    "notes": "",
    "item_name": "",
    "server": "",
    "fabric": "",
}
HEADER = ",".join(CSV_COLUMNS)


def upload(data: bytes, name: str = "prices.csv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="text/csv")


def csv_of(*rows: dict) -> bytes:
    """A price CSV with every column, each row's missing cells empty."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        writer.writerow([row.get(column, "") for column in CSV_COLUMNS])
    return out.getvalue().encode()


def form_of(price) -> dict:
    """The edit form of `price` as a browser posts it, unchanged."""
    data = {}
    for name in PRICE_FORM:
        value = getattr(price, name)
        if name in ("accelerator", "server", "fabric"):
            value = getattr(price, f"{name}_id")
        data[name] = "" if value is None else str(value)
    return data
