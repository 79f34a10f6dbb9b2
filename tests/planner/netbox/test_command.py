"""`manage.py netbox_import`: the same import from a terminal, its --help naming the exports."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from planner.models import PowerFeed, Site
from tests.planner.netbox.conftest import API_FILES, CSV_FILES, FIXTURES

pytestmark = pytest.mark.django_db
NEW_SITE_FLAGS = ["--pue", "1.3", "--price-per-kwh", "0.65"]


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("netbox_import", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def paths(*names: str) -> list[str]:
    return [str(FIXTURES / name) for name in names]


def test_help_names_the_netbox_exports_to_take(capsys, monkeypatch):
    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    with pytest.raises(SystemExit):
        call_command("netbox_import", "--help")
    text = capsys.readouterr().out
    for export in ("racks.csv", "power-feeds.csv", "device-type library", "/api/dcim/sites/"):
        assert export in text


@pytest.mark.parametrize(
    ("argv", "shell"),
    [(["manage.py", "netbox_import", "--language", "zh-hans"], "C.UTF-8"), ([], "zh_CN.UTF-8")],
)
def test_help_speaks_chinese_when_asked_or_when_the_terminal_does(capsys, monkeypatch, argv, shell):
    monkeypatch.setattr("sys.argv", argv or ["manage.py", "netbox_import", "--help"])
    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", shell)
    with pytest.raises(SystemExit):
        call_command("netbox_import", "--help")
    text = capsys.readouterr().out
    assert "应从 NetBox 导出哪些文件" in text and "racks.csv" in text
    assert "Which NetBox exports to take" not in text


def test_an_unknown_user_is_named_in_the_terminal_language(monkeypatch):
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    with pytest.raises(CommandError, match="没有名为 'nobody' 的账户"):
        run(*paths(*API_FILES), "--user", "nobody")
    with pytest.raises(CommandError, match="no account named 'nobody'"):
        run(*paths(*API_FILES), "--user", "nobody", "--language", "en")


def test_a_dry_run_prints_each_rack_with_its_usable_power_and_writes_nothing(cast):
    out, _err = run(
        *paths(*API_FILES),
        "--user",
        cast.facility.username,
        "--dry-run",
        "--format",
        "json",
        *NEW_SITE_FLAGS,
    )
    answer = json.loads(out)
    assert answer["dry_run"] is True and answer["counts"]["created"] > 0
    # 400 V x 32 A x sqrt 3 x 80 % = 17.736 kW
    assert [(r["rack"], r["usable_power_kw"]) for r in answer["racks"]] == [
        ("B01", 17.736),
        ("B02", 17.736),
    ]
    assert not Site.objects.filter(team=cast.team).exists()


def test_importing_twice_changes_nothing_the_second_time(cast):
    args = [*paths(*CSV_FILES), "--user", cast.facility.username, *NEW_SITE_FLAGS]
    run(*args)
    out, _err = run(*args)
    assert out.strip().splitlines()[-1] == "imported: 0 created, 0 updated, 12 unchanged, 4 skipped"


def test_a_bad_file_is_refused_naming_file_line_and_column(cast, tmp_path):
    bad = tmp_path / "power-feeds.csv"
    bad.write_text("site,power_panel,rack,name,voltage\nDC1,PP-A,A01,A01-A,four hundred\n")
    with pytest.raises(CommandError, match="nothing was imported"):
        run(
            *paths("csv/sites.csv", "csv/racks.csv"),
            str(bad),
            "--user",
            cast.facility.username,
            *NEW_SITE_FLAGS,
        )
    assert not PowerFeed.objects.exists() and not Site.objects.filter(team=cast.team).exists()


def test_the_problems_are_printed_in_chinese_when_asked(cast, tmp_path):
    bad = tmp_path / "racks.csv"
    bad.write_text("site,name,u_height\n,A01,42\n")
    err = StringIO()
    with pytest.raises(CommandError):
        call_command(
            "netbox_import",
            str(bad),
            "--user",
            cast.facility.username,
            "--language",
            "zh-hans",
            stdout=StringIO(),
            stderr=err,
        )
    assert err.getvalue().strip() == "racks.csv，第 2 行，第 1 列（site）：必填。"  # noqa: RUF001


def test_a_viewer_may_not_import(cast):
    with pytest.raises(CommandError, match="facility role"):
        run(*paths(*CSV_FILES), "--user", cast.viewer.username, *NEW_SITE_FLAGS)
