"""Which known faults a pasted text shows, ranked, each with the line that shows it.

Pure Python: no Django, no database. A rule is a fault's patterns (regular expressions searched
in each line) and Xid codes; the text is a kernel log, `nvidia-smi -q` output, a Python
traceback or NCCL output, in any mix. An Xid line names its code exactly
(`NVRM: Xid (PCI:0000:3b:00): 79, ...`), so a rule that lists that code outranks every rule
that only recognises words on the same line."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# The driver writes "NVRM: Xid (PCI:0000:3b:00): 79, pid=..." (older drivers leave out "PCI:");
# people write "Xid 79" in notes and tickets.
XID_LINE = re.compile(r"NVRM: Xid \((?:PCI:)?[0-9A-Fa-f:.]+\): (\d{1,3})\b")
XID_MENTION = re.compile(r"\bXid[ :]+(\d{1,3})\b", re.IGNORECASE)
# Added to a rule's weight when a line names one of its Xid codes: the code is the driver's
# own diagnosis, worth more than any wording.
XID_EXACT_BONUS = 100
# Each further matching line adds one point, up to this many: a fault seen on many lines is
# likelier, but a flood of one message must not bury a rarer, more telling one.
REPEAT_BONUS_CAP = 5
# Lines are cut to this many characters before searching: log lines are short, and a bound
# keeps a pathological line from slowing every pattern.
MAX_LINE_CHARS = 2000
EVIDENCE_CHARS = 300


@dataclass(frozen=True)
class Rule:
    """A fault as the matcher sees it. `bonus` ranks a rule higher (a team's incidents of it)."""

    key: str
    patterns: tuple[str, ...] = ()
    xid_codes: tuple[int, ...] = ()
    weight: int = 60
    bonus: int = 0


@dataclass(frozen=True)
class Evidence:
    line_number: int  # from 1, in the text as given
    line: str


@dataclass(frozen=True)
class Match:
    key: str
    score: int
    evidence: Evidence
    lines_matched: int
    xid_code: int | None  # the Xid code the evidence line names, when it named one of the rule's


@dataclass(frozen=True)
class Diagnosis:
    matches: tuple[Match, ...]
    # Xid codes the text names that no rule lists: worth looking up in NVIDIA's catalog.
    unlisted_xid_codes: tuple[int, ...]
    lines_read: int


def xid_codes_in(line: str) -> list[int]:
    """The Xid codes a line names, in order."""
    codes = [int(code) for code in XID_LINE.findall(line)]
    return codes or [int(code) for code in XID_MENTION.findall(line)]


def _compiled(rules: Sequence[Rule]) -> list[tuple[Rule, list[re.Pattern[str]]]]:
    out = []
    for rule in rules:
        patterns = []
        for pattern in rule.patterns:
            try:
                patterns.append(re.compile(pattern))
            except re.error:
                continue  # a stored pattern is checked when saved; never fail a diagnosis
        out.append((rule, patterns))
    return out


class _Text:
    """The pasted text and where each of its lines starts, so that a pattern is searched over
    the whole text at once (one pass in C) and each hit is traced back to its line."""

    def __init__(self, text: str):
        self.text = text
        self.raw = text.split("\n")
        if self.raw and self.raw[-1] == "" and len(self.raw) > 1:
            self.raw.pop()  # the newline that ends the last line opens no new one
        self.starts = [0]
        for line in self.raw[:-1]:
            self.starts.append(self.starts[-1] + len(line) + 1)
        self._lines: dict[int, str] = {}

    def line(self, index: int) -> str:
        """Line `index` (from 0) as searched and shown: trimmed and cut to MAX_LINE_CHARS."""
        if index not in self._lines:
            self._lines[index] = self.raw[index].strip()[:MAX_LINE_CHARS]
        return self._lines[index]

    def lines_with(self, pattern: re.Pattern[str]) -> Iterable[int]:
        """Each line the pattern matches within, once, in order. A hit found over the whole text
        is kept only if the pattern also matches inside that line alone (`\\s*` may run across
        a newline; a line's own search may not), and the search goes on from the next line."""
        position = 0
        while position <= len(self.text):
            found = pattern.search(self.text, position)
            if found is None:
                return
            index = bisect_right(self.starts, found.start()) - 1
            if pattern.search(self.line(index)):
                yield index
            if index + 1 >= len(self.starts):
                return
            position = self.starts[index + 1]

    def xid_codes(self) -> dict[int, list[int]]:
        """The Xid codes each line names: the driver's own lines, else mentions in notes."""
        codes: dict[int, list[int]] = {}
        driver_lines = set()
        for pattern in (XID_LINE, XID_MENTION):
            for found in pattern.finditer(self.text):
                index = bisect_right(self.starts, found.start()) - 1
                if pattern is XID_MENTION and index in driver_lines:
                    continue
                if pattern is XID_LINE:
                    driver_lines.add(index)
                if found.group(1) and found.group(0) in self.line(index):
                    codes.setdefault(index, []).append(int(found.group(1)))
        return codes


def _hits(rule: Rule, patterns: list[re.Pattern[str]], text: _Text, codes: dict[int, list[int]]):
    """{line index: (strength, the Xid code it named)} for every line that shows the rule."""
    hits: dict[int, tuple[int, int | None]] = {}
    for index, named in codes.items():
        code = next((c for c in named if c in rule.xid_codes), None)
        if code is not None:
            hits[index] = (rule.weight + XID_EXACT_BONUS, code)
    for pattern in patterns:
        for index in text.lines_with(pattern):
            hits.setdefault(index, (rule.weight, None))
    return hits


def diagnose(text: str, rules: Iterable[Rule]) -> Diagnosis:
    """Every rule the text shows, best first: by score (the strongest line's weight, the Xid
    bonus, one point per further line up to a cap, the rule's own bonus), then by where the
    evidence is in the text, then by key."""
    compiled = _compiled(list(rules))
    listed = {code for rule, _ in compiled for code in rule.xid_codes}
    pasted = _Text(text)
    codes = pasted.xid_codes()
    unlisted: list[int] = []
    for index in sorted(codes):
        unlisted.extend(c for c in codes[index] if c not in listed and c not in unlisted)
    matches = []
    for rule, patterns in compiled:
        hits = _hits(rule, patterns, pasted, codes)
        if not hits:
            continue
        # The strongest line is the evidence; of equally strong lines, the first.
        index, (strength, code) = min(hits.items(), key=lambda hit: (-hit[1][0], hit[0]))
        matches.append(
            Match(
                key=rule.key,
                score=strength + min(len(hits) - 1, REPEAT_BONUS_CAP) + rule.bonus,
                evidence=Evidence(index + 1, pasted.line(index)[:EVIDENCE_CHARS]),
                lines_matched=len(hits),
                xid_code=code,
            )
        )
    matches.sort(key=lambda m: (-m.score, m.evidence.line_number, m.key))
    lines_read = sum(1 for line in pasted.raw if line.strip())
    return Diagnosis(tuple(matches), tuple(unlisted), lines_read)
