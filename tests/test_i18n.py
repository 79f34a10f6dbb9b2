"""Every page is translated: the Chinese catalogue is complete, compiled and current."""

import gettext
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PO = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"
MO = PO.with_suffix(".mo")


def po_entries() -> list[tuple[str | None, str, str]]:
    """(context, msgid, msgstr) from the .po file (msgstr[0] for plurals), lines joined."""
    entries: list[tuple[str | None, str, str]] = []
    current: dict[str, str] = {}
    field = None
    for line in [*PO.read_text(encoding="utf-8").splitlines(), ""]:
        if not line.strip():
            if "msgid" in current:
                entries.append(
                    (current.get("msgctxt"), current["msgid"], current.get("msgstr", ""))
                )
            current, field = {}, None
            continue
        if line.startswith("#"):
            continue
        match = re.match(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s+"(.*)"$', line)
        if match:
            key = match.group(1)
            field = {
                "msgctxt": "msgctxt",
                "msgid": "msgid",
                "msgstr": "msgstr",
                "msgstr[0]": "msgstr",
            }.get(key)
            if field:
                current[field] = match.group(2)
        elif line.startswith('"') and field:
            current[field] += line[1:-1]
    return entries


def test_catalogue_has_no_fuzzy_or_missing_translations():
    text = PO.read_text(encoding="utf-8")
    assert "#, fuzzy" not in text
    missing = [msgid for _, msgid, msgstr in po_entries() if msgid and not msgstr]
    assert missing == []


def test_compiled_catalogue_matches_the_source():
    with MO.open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    for context, msgid, msgstr in po_entries():
        if msgid and "%" not in msgid and "\\" not in msgid:
            got = compiled.pgettext(context, msgid) if context else compiled.gettext(msgid)
            assert got == msgstr.replace('\\"', '"'), msgid


def test_every_template_string_is_in_the_catalogue():
    ids = {msgid for _, msgid, _ in po_entries()}
    pattern = re.compile(r'{%\s*translate\s+"([^"]+)"')
    for template in (ROOT / "templates").rglob("*.html"):
        for msgid in pattern.findall(template.read_text(encoding="utf-8")):
            # makemessages escapes a literal % in template strings as %%.
            assert msgid in ids or msgid.replace("%", "%%") in ids, (
                f"{template.name}: {msgid!r} is not in the catalogue (run make messages)"
            )


def test_every_marked_python_string_is_in_the_catalogue():
    """Strings the code marks for translation (`_("...")`, `gettext_lazy("...")`, the engine's
    `gettext_noop` templates) are all in the catalogue: none shows in English on a Chinese
    page for want of `make messages`."""
    ids = {msgid for _, msgid, _ in po_entries()}
    pattern = re.compile(r'\b(?:_|gettext|gettext_lazy|gettext_noop)\(\s*"((?:[^"\\]|\\.)+)"\s*\)')
    missing = []
    for folder in ("planner", "catalog", "accounts", "config"):
        for source in (ROOT / folder).rglob("*.py"):
            if "migrations" in source.parts:
                continue
            for msgid in pattern.findall(source.read_text(encoding="utf-8")):
                if msgid not in ids:
                    missing.append(f"{source.relative_to(ROOT)}: {msgid!r}")
    assert missing == [], "run make messages and translate:\n" + "\n".join(missing)
