"""Which known faults a pasted text shows, ranked, each with the line that shows it.

Pure Python: no Django, no database. A rule is a fault's patterns (regular expressions searched
in each line) and Xid codes; the text is a kernel log, `nvidia-smi -q` output, a Python
traceback or NCCL output, in any mix. An Xid line names its code exactly
(`NVRM: Xid (PCI:0000:3b:00): 79, ...`), so a rule that lists that code outranks every rule
that only recognises words on the same line."""

from __future__ import annotations

import re
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


@dataclass
class _Tally:
    best: int = -1
    evidence: Evidence | None = None
    xid_code: int | None = None
    lines: int = 0


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


def _strength(rule: Rule, patterns: list[re.Pattern[str]], line: str, codes: list[int]):
    """(how strongly the line shows the rule, the Xid code it named), or None."""
    named = next((code for code in codes if code in rule.xid_codes), None)
    if named is not None:
        return rule.weight + XID_EXACT_BONUS, named
    if any(pattern.search(line) for pattern in patterns):
        return rule.weight, None
    return None


def diagnose(text: str, rules: Iterable[Rule]) -> Diagnosis:
    """Every rule the text shows, best first: by score (the strongest line's weight, the Xid
    bonus, one point per further line up to a cap, the rule's own bonus), then by where the
    evidence is in the text, then by key."""
    compiled = _compiled(list(rules))
    listed = {code for rule, _ in compiled for code in rule.xid_codes}
    tallies: dict[str, _Tally] = {rule.key: _Tally() for rule, _ in compiled}
    unlisted: list[int] = []
    lines = text.splitlines()
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()[:MAX_LINE_CHARS]
        if not line:
            continue
        codes = xid_codes_in(line)
        unlisted.extend(code for code in codes if code not in listed and code not in unlisted)
        for rule, patterns in compiled:
            hit = _strength(rule, patterns, line, codes)
            if hit is None:
                continue
            tally = tallies[rule.key]
            tally.lines += 1
            if hit[0] > tally.best:
                tally.best = hit[0]
                tally.evidence = Evidence(number, line[:EVIDENCE_CHARS])
                tally.xid_code = hit[1]
    matches = [
        Match(
            key=rule.key,
            score=tally.best + min(tally.lines - 1, REPEAT_BONUS_CAP) + rule.bonus,
            evidence=tally.evidence,
            lines_matched=tally.lines,
            xid_code=tally.xid_code,
        )
        for rule, _ in compiled
        if (tally := tallies[rule.key]).evidence is not None
    ]
    matches.sort(key=lambda m: (-m.score, m.evidence.line_number, m.key))
    return Diagnosis(tuple(matches), tuple(unlisted), len(lines))
