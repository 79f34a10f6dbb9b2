import csv
from pathlib import Path

import pytest

from catalog.choices import LoadStatus
from catalog.loader import CatalogDataError
from catalog.models import Accelerator, CatalogLoad, ModelArchitecture, ServerPlatform
from catalog.services import catalog_load

pytestmark = pytest.mark.django_db


def edit_cell(path: Path, slug: str, column: str, value: str) -> int:
    """Set one cell of a data file; returns the file line of the row edited."""
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    header = list(rows[0].keys())
    index = next(i for i, row in enumerate(rows) if row["slug"] == slug)
    rows[index][column] = value
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=header)
        writer.writeheader()
        writer.writerows(rows)
    return index + 2  # header is line 1; no cell in these files spans lines


def test_loading_twice_changes_nothing_the_second_time(data_dir):
    first = catalog_load(data_dir=data_dir)
    second = catalog_load(data_dir=data_dir)
    assert first.totals["created"] > 0 and first.totals["unchanged"] == 0
    assert second.totals == {"created": 0, "updated": 0, "unchanged": first.totals["created"]}


def test_an_edited_row_is_counted_as_updated(data_dir):
    catalog_load(data_dir=data_dir)
    edit_cell(data_dir / "models" / "models.csv", "meta-llama-3-8b", "context", "16384")
    run = catalog_load(data_dir=data_dir)
    assert run.counts["models"]["updated"] == 1
    assert ModelArchitecture.objects.get(slug="meta-llama-3-8b").context == 16384


def test_a_bad_row_names_file_line_and_field_and_loads_nothing(data_dir):
    path = data_dir / "accelerators" / "nvidia.csv"
    line = edit_cell(path, "nvidia-h100-sxm5-80gb", "memory_gib", "-80")
    with pytest.raises(CatalogDataError) as excinfo:
        catalog_load(data_dir=data_dir)
    error = excinfo.value
    assert (error.path, error.line, error.field) == (path, line, "memory_gib")
    assert Accelerator.objects.count() == 0
    assert ModelArchitecture.objects.count() == 0


def test_a_bad_row_leaves_the_previous_catalog_untouched(data_dir):
    catalog_load(data_dir=data_dir)
    before = Accelerator.objects.get(slug="nvidia-a100-sxm4-80gb").memory_bw_gb_s
    edit_cell(
        data_dir / "accelerators" / "nvidia.csv", "nvidia-a100-sxm4-80gb", "memory_bw_gb_s", "1"
    )
    edit_cell(data_dir / "accelerators" / "nvidia.csv", "nvidia-h100-sxm5-80gb", "kind", "toaster")
    with pytest.raises(CatalogDataError, match="kind"):
        catalog_load(data_dir=data_dir)
    assert Accelerator.objects.get(slug="nvidia-a100-sxm4-80gb").memory_bw_gb_s == before


def test_a_failed_load_is_recorded_with_its_error(data_dir):
    edit_cell(data_dir / "models" / "models.csv", "meta-llama-3-8b", "heads", "not-a-number")
    with pytest.raises(CatalogDataError):
        catalog_load(data_dir=data_dir)
    run = CatalogLoad.objects.get()
    assert run.status == LoadStatus.FAILED
    assert "models.csv" in run.error and "heads" in run.error


def test_an_unknown_column_is_rejected(data_dir):
    path = data_dir / "fabrics" / "fabrics.csv"
    text = path.read_text(encoding="utf-8").splitlines()
    text[0] = text[0].replace("latency_us", "latency_ms")
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    with pytest.raises(CatalogDataError) as excinfo:
        catalog_load(data_dir=data_dir)
    assert (excinfo.value.line, excinfo.value.field) == (1, "latency_ms")


def test_a_duplicate_slug_is_rejected(data_dir):
    path = data_dir / "fabrics" / "fabrics.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([*lines, lines[1]]) + "\n", encoding="utf-8")
    with pytest.raises(CatalogDataError, match="already given"):
        catalog_load(data_dir=data_dir)


def test_a_server_naming_an_unknown_accelerator_is_rejected(data_dir):
    path = data_dir / "servers" / "servers.csv"
    edit_cell(path, "nvidia-dgx-h100", "fixed_accelerator", "nvidia-h999")
    with pytest.raises(CatalogDataError) as excinfo:
        catalog_load(data_dir=data_dir)
    assert excinfo.value.field == "fixed_accelerator"
    assert ServerPlatform.objects.count() == 0


def test_a_bad_boolean_is_rejected(data_dir):
    edit_cell(data_dir / "accelerators" / "nvidia.csv", "nvidia-l4", "ecc", "yes")
    with pytest.raises(CatalogDataError, match="true or false"):
        catalog_load(data_dir=data_dir)
