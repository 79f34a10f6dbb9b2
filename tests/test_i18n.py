"""Every page is translated: the Chinese catalogue is complete, compiled and current."""

import gettext
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PO = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"
MO = PO.with_suffix(".mo")


def po_entries() -> dict[str, str]:
    """msgid -> msgstr (msgstr[0] for plurals) from the .po file, joined across lines."""
    entries, key, current, field = {}, None, {"msgid": "", "msgstr": ""}, None
    for line in [*PO.read_text(encoding="utf-8").splitlines(), ""]:
        if not line.strip():
            if field:
                entries[current["msgid"]] = current["msgstr"]
            current, field = {"msgid": "", "msgstr": ""}, None
            continue
        if line.startswith("#"):
            continue
        match = re.match(r'^(msgid_plural|msgid|msgstr(?:\[0\])?|msgstr\[\d+\])\s+"(.*)"$', line)
        if match:
            key = match.group(1)
            field = (
                "msgid" if key == "msgid" else "msgstr" if key in ("msgstr", "msgstr[0]") else None
            )
            if field:
                current[field] = match.group(2)
        elif line.startswith('"') and field:
            current[field] += line[1:-1]
    return entries


def test_catalogue_has_no_fuzzy_or_missing_translations():
    text = PO.read_text(encoding="utf-8")
    assert "#, fuzzy" not in text
    missing = [msgid for msgid, msgstr in po_entries().items() if msgid and not msgstr]
    assert missing == []


def test_compiled_catalogue_matches_the_source():
    with MO.open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    for msgid, msgstr in po_entries().items():
        if msgid and "%" not in msgid and "\\" not in msgid:
            assert compiled.gettext(msgid) == msgstr.replace('\\"', '"'), msgid


def test_every_template_string_is_in_the_catalogue():
    ids = set(po_entries())
    pattern = re.compile(r'{%\s*translate\s+"([^"]+)"')
    for template in (ROOT / "templates").rglob("*.html"):
        for msgid in pattern.findall(template.read_text(encoding="utf-8")):
            # makemessages escapes a literal % in template strings as %%.
            assert msgid in ids or msgid.replace("%", "%%") in ids, (
                f"{template.name}: {msgid!r} is not in the catalogue (run make messages)"
            )
