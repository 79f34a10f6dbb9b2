import pytest
from django.core.management import CommandError, call_command

from catalog.models import Accelerator

pytestmark = pytest.mark.django_db


def test_loadcatalog_prints_counts_and_is_idempotent(capsys):
    call_command("loadcatalog")
    first = capsys.readouterr().out
    call_command("loadcatalog")
    second = capsys.readouterr().out
    assert "created" in first and "0 created, 0 updated" in second
    assert Accelerator.objects.count() >= 35


def test_loadcatalog_fails_with_the_location_of_a_bad_row(data_dir):
    path = data_dir / "fabrics" / "fabrics.csv"
    path.write_text(path.read_text(encoding="utf-8").replace(",infiniband,", ",carrier-pigeon,", 1))
    with pytest.raises(CommandError, match=r"fabrics\.csv, line 2, kind"):
        call_command("loadcatalog", data_dir=data_dir)
