"""`manage.py netbox_import FILE... --user NAME` (or `--url URL --token TOKEN`): a team's racks, power feeds and devices from
NetBox's own exports, imported all or nothing, and kept in step when run again."""

from __future__ import annotations

import argparse
import json
import os
import sys
from decimal import Decimal, InvalidOperation
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.core.management.base import BaseCommand, CommandError
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from catalog.choices import Currency
from planner.choices import RackCooling
from planner.netbox.formats import ImportRefused
from planner.netbox.live import NetboxUnreachable, netbox_pull
from planner.netbox.readers import NetboxFile
from planner.netbox.results import ImportOptions, ImportResult
from planner.netbox.services import netbox_import

DESCRIPTION = gettext_noop("""\
Import the racks, power feeds and devices a facility team keeps in NetBox into the sites of
USER's team. Importing again is a sync: rows are matched by NetBox's ids (API JSON) or names
(CSV), changed values are updated with history, and nothing is duplicated. The files are
refused whole, nothing written, when any of them has a problem; each problem names its file,
line and column. Another team's sites are never touched.

Which NetBox exports to take (give any of them, in any order):
  CSV, as NetBox's bulk import takes it (the "Import" page of each list, or a list exported
  with the import columns): sites.csv (name, physical_address...), racks.csv (site, location,
  name, u_height, max_weight, weight_unit...), power-panels.csv (site, name), power-feeds.csv
  (site, power_panel, rack, name, status, type, supply, phase, voltage, amperage,
  max_utilization), devices.csv (site, rack, position, face, device_type...) and
  power-ports.csv (device, name, maximum_draw, allocated_draw in W).
  Device types: the community device-type library's YAML (or JSON) files of the models in
  your racks (u_height, weight, power-ports).
  REST API JSON, as saved from /api/dcim/sites/, racks/, power-panels/, power-feeds/,
  devices/, power-ports/ and device-types/ (pages of "results"; save every page), or
  pulled live with --url and --token (pynetbox reads every page of each).

NetBox keeps no cooling, PUE or electricity price: new sites take --pue and
--price-per-kwh; new rack groups take --cooling-kw (else the site's other rack groups', else
their power), and the result says which.""")


def _decimal(text: str) -> Decimal:
    try:
        return Decimal(text)
    except InvalidOperation:
        raise argparse.ArgumentTypeError(_("%(text)r is not a number") % {"text": text}) from None


def _help_language(argv: list[str]) -> str:
    """The language --help and the messages speak: --language, else the shell's locale (a
    terminal set to zh_CN reads Chinese), else English. Read before parsing, because argparse
    prints --help while it parses."""
    for i, arg in enumerate(argv):
        if arg.startswith("--language="):
            return arg.split("=", 1)[1]
        if arg == "--language" and i + 1 < len(argv):
            return argv[i + 1]
    shell = os.environ.get("LC_ALL") or os.environ.get("LC_MESSAGES") or os.environ.get("LANG", "")
    return "zh-hans" if shell.lower().startswith("zh") else "en"


class Command(BaseCommand):
    help = gettext_noop(
        "Import racks, power feeds and devices from NetBox's CSV, device-type YAML or API JSON."
    )

    def create_parser(self, prog_name, subcommand, **kwargs):
        # The help texts are translated as the parser is built (gettext, not lazy), so the
        # language need not outlive this call.
        with translation.override(_help_language(sys.argv)):
            parser = super().create_parser(prog_name, subcommand, **kwargs)
            parser.description = _(DESCRIPTION)
        parser.formatter_class = argparse.RawDescriptionHelpFormatter
        return parser

    def add_arguments(self, parser):
        parser.add_argument(
            "files",
            nargs="*",
            type=Path,
            metavar="FILE",
            help=_("NetBox's CSV exports, device-type YAML or JSON, API JSON pages"),
        )
        parser.add_argument(
            "--url",
            default="",
            help=_("Pull live from this NetBox (https://netbox.example.com) through its REST API"),
        )
        parser.add_argument(
            "--token",
            default=os.environ.get("NETBOX_TOKEN", ""),
            help=_(
                "The NetBox API token for --url (default: $NETBOX_TOKEN); it needs only read rights"
            ),
        )
        parser.add_argument(
            "--user",
            required=True,
            help=_("Who imports: a facility engineer; their team's sites take the rows"),
        )
        parser.add_argument("--site", default="", help=_("Only this NetBox site's objects"))
        parser.add_argument(
            "--dry-run", action="store_true", help=_("Say what would change; write nothing")
        )
        parser.add_argument("--format", choices=("table", "json"), default="table")
        parser.add_argument("--pue", type=float, help=_("PUE of the sites the import creates"))
        parser.add_argument(
            "--price-per-kwh",
            dest="electricity_price_per_kwh",
            metavar="PRICE",
            type=_decimal,
            help=_("Electricity price of the sites it creates"),
        )
        parser.add_argument(
            "--currency", choices=Currency.values, default="", help=_("Currency of that price")
        )
        parser.add_argument(
            "--cooling-kw", type=float, help=_("Cooling per rack of the rack groups it creates")
        )
        parser.add_argument("--cooling", choices=RackCooling.values, default=RackCooling.ROOM_AIR)
        parser.add_argument(
            "--max-kg", type=float, help=_("Load per rack where NetBox states no max_weight")
        )
        parser.add_argument(
            "--power-kw", type=float, help=_("Power per rack where its racks have no feeds")
        )
        parser.add_argument(
            "--language", default="", help=_("Language of the messages: en or zh-hans")
        )

    def handle(self, *args, files: list[Path], **options):
        with translation.override(options["language"] or _help_language(sys.argv)):
            self._import(files, options)

    def _import(self, files: list[Path], options: dict) -> None:
        user = get_user_model().objects.filter(username=options["user"]).first()
        if user is None:
            raise CommandError(_("--user: no account named %(name)r") % {"name": options["user"]})
        if not files and not options["url"]:
            raise CommandError(_("give NetBox's files, or --url and --token to pull them live"))
        uploads = self._pull(options["url"], options["token"]) if options["url"] else []
        for path in files:
            try:
                uploads.append(NetboxFile(path.name, path.read_bytes()))
            except OSError as exc:
                raise CommandError(f"{path}: {exc.strerror}") from None
        try:
            result = netbox_import(
                user=user,
                files=uploads,
                options=ImportOptions.of(options),
                dry_run=options["dry_run"],
            )
        except PermissionDenied as exc:
            raise CommandError(str(exc)) from None
        except ImportRefused as refused:
            for problem in refused.problems:
                self.stderr.write(str(problem))
            raise CommandError(_("nothing was imported: fix the files and run again.")) from None
        if options["format"] == "json":
            self.stdout.write(
                json.dumps(result.as_json(), indent=2, ensure_ascii=False, default=str)
            )
        else:
            self.stdout.write(result_table(result))

    @staticmethod
    def _pull(url: str, token: str) -> list[NetboxFile]:
        if not token:
            raise CommandError(
                _("--url needs --token (or $NETBOX_TOKEN): NetBox's API asks for one")
            )
        try:
            return netbox_pull(url=url, token=token)
        except NetboxUnreachable as exc:
            raise CommandError(_("nothing was imported: %(why)s") % {"why": exc}) from None


def result_table(result: ImportResult) -> str:
    """The result for a terminal: each row's action, the racks' usable power, the notes."""
    lines = [f"{c.action:<9}  {c.kind:<10}  {c.name}" + _detail(c) for c in result.changes]
    lines.append("")
    lines.extend(
        _("%(site)s / %(group)s / %(rack)s: %(kw)s kW usable (%(source)s)")
        % {
            "site": r.site,
            "group": r.rack_group,
            "rack": r.rack,
            "kw": f"{r.usable_power_kw:,.1f}",
            "source": r.power_from,
        }
        for r in result.racks
    )
    lines.extend(_("note: %(note)s") % {"note": note} for note in result.notes)
    counts = ", ".join(f"{n} {action}" for action, n in result.counts.items())
    done = (
        _("dry run, nothing written: %(counts)s") if result.dry_run else _("imported: %(counts)s")
    )
    lines.append(done % {"counts": counts})
    return "\n".join(lines)


def _detail(change) -> str:
    if change.fields:
        return "  (" + ", ".join(f"{f}: {old} -> {new}" for f, old, new in change.fields) + ")"
    return f"  ({change.note})" if change.note else ""
