"""The catalog loader refuses what would make every page that shows the item fail: NaN,
Infinity and 1e308 in any numeric column, formula-like text in any text column, bytes that are
not UTF-8 and NUL characters in any file; each refusal names the file, the line and the field,
and loads nothing. The columns are read from the models, so a new column is covered too."""

import re

import pytest
from django.core.management import CommandError, call_command
from django.db import models

from catalog.loader import KINDS, NUMBER_LIMIT, CatalogDataError, read_rows
from catalog.models import Accelerator
from catalog.services import catalog_load
from tests.catalog.test_loader import edit_cell

NOT_FINITE = ["NaN", "nan", "Infinity", "-inf", "1e308", "-1e308", "1e16"]
FORMULAS = ["=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(A1)"]


def _first_row(data_dir, kind):
    path = sorted((data_dir / kind).glob("*.csv"))[0]
    return path, read_rows(kind, data_dir)[0]


def _columns(kind, data_dir, types):
    path = sorted((data_dir / kind).glob("*.csv"))[0]
    header = path.read_text(encoding="utf-8").splitlines()[0].split(",")
    model = KINDS[kind]
    return [
        name
        for name in header
        if isinstance(model._meta.get_field(name), types)
        and not model._meta.get_field(name).is_relation
        and not model._meta.get_field(name).choices
        and name != "slug"
    ]


def _cases(types, values):
    from catalog.loader import DATA_DIR

    for kind in KINDS:
        for column in _columns(kind, DATA_DIR, types):
            for value in values:
                yield kind, column, value


NUMERIC = (models.FloatField, models.DecimalField, models.IntegerField)
TEXT = (models.CharField, models.TextField, models.JSONField)


@pytest.mark.parametrize(("kind", "column", "value"), list(_cases(NUMERIC, NOT_FINITE)))
def test_every_numeric_column_refuses_numbers_that_are_not_finite_or_too_large(
    data_dir, kind, column, value
):
    path, row = _first_row(data_dir, kind)
    line = edit_cell(path, row.values["slug"], column, value)
    with pytest.raises(CatalogDataError) as caught:
        read_rows(kind, data_dir)
    error = caught.value
    assert (error.path, error.line, error.field) == (path, line, column)


def test_the_limit_is_in_the_message(data_dir):
    path = data_dir / "accelerators" / "nvidia.csv"
    edit_cell(path, "nvidia-h100-sxm5-80gb", "memory_bw_gb_s", "1e308")
    with pytest.raises(CatalogDataError, match=re.escape(f"{NUMBER_LIMIT:g}")):
        read_rows("accelerators", data_dir)


@pytest.mark.parametrize(("kind", "column", "value"), list(_cases(TEXT, FORMULAS)))
def test_every_text_column_refuses_formula_like_text(data_dir, kind, column, value):
    path, row = _first_row(data_dir, kind)
    line = edit_cell(path, row.values["slug"], column, value)
    with pytest.raises(CatalogDataError, match="formula") as caught:
        read_rows(kind, data_dir)
    assert (caught.value.path, caught.value.line, caught.value.field) == (path, line, column)


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize(("bad", "words"), [(b"\xff\xfe", "not UTF-8"), (b"\x00", "NUL")])
def test_every_data_file_refuses_bad_bytes_naming_line_and_field(data_dir, kind, bad, words):
    path, row = _first_row(data_dir, kind)
    # The name (or another text cell) of the second line gets the bad bytes in its middle.
    column = "name" if "name" in path.read_text(encoding="utf-8").splitlines()[0] else "notes"
    line = edit_cell(path, row.values["slug"], column, "Abc MARK def")
    path.write_bytes(path.read_bytes().replace(b"MARK", bad, 1))
    with pytest.raises(CatalogDataError, match=words) as caught:
        read_rows(kind, data_dir)
    assert (caught.value.path, caught.value.line, caught.value.field) == (path, line, column)


@pytest.mark.django_db
def test_loadcatalog_stores_nothing_and_says_where_for_a_nan(data_dir):
    path = data_dir / "accelerators" / "nvidia.csv"
    line = edit_cell(path, "nvidia-h100-sxm5-80gb", "bf16_tflops", "NaN")
    with pytest.raises(CommandError, match=f"nvidia.csv, line {line}, bf16_tflops"):
        call_command("loadcatalog", data_dir=data_dir)
    assert Accelerator.objects.count() == 0


@pytest.mark.django_db
def test_a_catalog_loaded_before_keeps_its_figures_when_a_nan_arrives(data_dir):
    catalog_load(data_dir=data_dir)
    path = data_dir / "accelerators" / "nvidia.csv"
    edit_cell(path, "nvidia-h100-sxm5-80gb", "memory_gib", "inf")
    with pytest.raises(CatalogDataError):
        catalog_load(data_dir=data_dir)
    assert Accelerator.objects.get(slug="nvidia-h100-sxm5-80gb").memory_gib == 80


@pytest.mark.django_db
def test_the_reference_prices_refuse_bad_bytes_too(data_dir, loaded_catalog):
    from planner.prices.reference import read_reference_prices

    path = sorted((data_dir / "prices").rglob("*.csv"))[0]
    text = path.read_bytes()
    first_newline = text.index(b"\n")
    path.write_bytes(text[: first_newline + 3] + b"\xff" + text[first_newline + 3 :])
    with pytest.raises(CatalogDataError, match="not UTF-8") as caught:
        read_reference_prices(data_dir=data_dir / "prices")
    assert caught.value.line == 2
