"""The matcher alone: no database, rules written here. The done-when lines come from the issue;
the wording of the other lines is NVIDIA's driver's and PyTorch's."""

from planner.faults.matching import REPEAT_BONUS_CAP, XID_EXACT_BONUS, Rule, diagnose, xid_codes_in
from tests.planner.faults.conftest import ILLEGAL_ACCESS, NOTHING, OOM, XID_79

RULES = (
    Rule("xid-79", patterns=(r"(?i)fallen off the bus",), xid_codes=(79,), weight=95),
    Rule("xid-45", xid_codes=(45,), weight=60),
    # A generic rule that also sees the Xid 79 line: it must rank below the exact code.
    Rule("gpu-missing", patterns=(r"NVRM: Xid", r"RmInitAdapter failed"), weight=70),
    Rule("illegal", patterns=(r"(?i)an illegal memory access was encountered",), weight=95),
    Rule("oom", patterns=(r"(?i)CUDA out of memory",), weight=95),
)


def test_xid_79_line_matches_xid_79_first_with_its_line_as_evidence():
    found = diagnose(f"[ 812.4] {XID_79}", RULES)
    first = found.matches[0]
    assert first.key == "xid-79"
    assert first.xid_code == 79
    assert first.score == 95 + XID_EXACT_BONUS
    assert first.evidence.line_number == 1 and "fallen off the bus" in first.evidence.line
    assert [m.key for m in found.matches] == ["xid-79", "gpu-missing"]


def test_illegal_memory_access_and_out_of_memory_match_their_rules():
    text = f"Traceback (most recent call last):\n  File 'train.py'\n{ILLEGAL_ACCESS}\n{OOM}"
    found = diagnose(text, RULES)
    by_key = {m.key: m for m in found.matches}
    assert by_key["illegal"].evidence.line_number == 3
    assert by_key["oom"].evidence.line_number == 4
    # Equal scores: the earlier evidence ranks first.
    assert [m.key for m in found.matches] == ["illegal", "oom"]


def test_text_that_matches_nothing_gives_no_matches():
    found = diagnose(NOTHING, RULES)
    assert found.matches == () and found.unlisted_xid_codes == ()
    assert found.lines_read == 2


def test_an_xid_code_no_rule_lists_is_reported_as_unlisted():
    found = diagnose("NVRM: Xid (PCI:0000:18:00): 140, pid=9, Unrecovered ECC", RULES)
    assert found.unlisted_xid_codes == (140,)
    assert [m.key for m in found.matches] == ["gpu-missing"]


def test_repeated_lines_add_a_capped_bonus_and_the_team_bonus_adds_on_top():
    text = "\n".join(["RmInitAdapter failed! (0x26:0xffff:1460)"] * 20)
    plain = diagnose(text, RULES).matches[0]
    assert plain.lines_matched == 20
    assert plain.score == 70 + REPEAT_BONUS_CAP
    seen = diagnose(text, [Rule("gpu-missing", patterns=(r"RmInitAdapter",), weight=70, bonus=3)])
    assert seen.matches[0].score == plain.score + 3


def test_a_stronger_later_line_becomes_the_evidence():
    text = f"NVRM: Xid (PCI:0000:3b:00): 13, Graphics Exception\n{XID_79}"
    generic = next(m for m in diagnose(text, RULES).matches if m.key == "gpu-missing")
    assert generic.evidence.line_number == 1  # equal strength: the first line stays
    exact = next(m for m in diagnose(text, RULES).matches if m.key == "xid-79")
    assert exact.evidence.line_number == 2


def test_a_broken_pattern_is_skipped_not_raised():
    found = diagnose(
        OOM, [Rule("bad", patterns=("(unclosed",)), Rule("oom", patterns=("out of memory",))]
    )
    assert [m.key for m in found.matches] == ["oom"]


def test_xid_codes_are_read_from_driver_lines_and_from_notes():
    assert xid_codes_in(XID_79) == [79]
    assert xid_codes_in("NVRM: Xid (0000:03:00): 14, Channel 00000001") == [14]
    assert xid_codes_in("日志里有 Xid 79 错误") == [79]
    assert xid_codes_in("pid=79 no code here") == []


def test_a_pattern_matches_within_one_line_never_across_two():
    rule = Rule("thermal", patterns=(r"Slowdown\s*:\s*Active",), weight=80)
    assert diagnose("HW Slowdown\n: Active", [rule]).matches == ()
    found = diagnose("HW Slowdown\n  HW Thermal Slowdown : Active", [rule])
    assert found.matches[0].evidence.line_number == 2


def test_windows_line_endings_leave_no_carriage_return_in_the_evidence():
    found = diagnose(f"boot ok\r\n{XID_79}\r\n", RULES)
    assert found.matches[0].evidence == found.matches[0].evidence.__class__(2, XID_79)
    assert found.lines_read == 2
