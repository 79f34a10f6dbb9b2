"""A team's own fault table: planners add entries and incidents, history is kept, the team's
diagnoses rank them beside the guide, and another team never sees them (404)."""

import datetime as dt

import pytest
from django.core.exceptions import ValidationError

from planner.faults.selectors import fault_diagnosis
from planner.faults.services import fault_entry_update, fault_incident_create
from planner.sites.services import site_create
from tests.planner.faults.conftest import XID_79

pytestmark = pytest.mark.django_db
LUSTRE = "LustreError: 11-0: fs-OST0003-osc: operation ost_write to node 10.0.0.7@o2ib timed out"


def test_a_teams_entry_ranks_in_its_own_diagnosis_and_not_in_another_teams(cast, team_entry):
    mine = fault_diagnosis(text=LUSTRE, user=cast.viewer)
    assert [m.entry for m in mine.matches] == [team_entry]
    assert fault_diagnosis(text=LUSTRE, user=cast.outsider).matches == []
    assert fault_diagnosis(text=LUSTRE, user=None).matches == []


def test_incidents_rank_their_entry_higher_and_come_with_the_match(cast, fault_guide):
    xid_79 = fault_guide["xid-79"]
    text = f"{XID_79}\nNVRM: Xid (PCI:0000:3b:00): 45, pid=1, Ch 00000010"
    before = {
        m.entry.reference_key: m.match.score
        for m in fault_diagnosis(text=text, user=cast.planner).matches
    }
    incident = fault_incident_create(
        team=cast.team,
        user=cast.planner,
        entry=xid_79,
        happened_on=dt.date(2026, 11, 20),
        hardware="HGX H100 node gpu-17, GPU 3",
        what_happened="GPU 3 fell off the bus twice in a week",
        fix="Reseated the card and replaced the riser",
        resolved=True,
    )
    after = fault_diagnosis(text=text, user=cast.planner).matches
    assert after[0].entry == xid_79 and after[0].incidents == [incident]
    assert after[0].match.score == before["xid-79"] + 1
    outsider = fault_diagnosis(text=text, user=cast.outsider).matches[0]
    assert outsider.incidents == [] and outsider.match.score == before["xid-79"]


def test_editing_an_entry_keeps_its_history(cast, team_entry):
    team_entry.weight = 80
    fault_entry_update(entry=team_entry, weight=80)
    changes = list(team_entry.history.order_by("history_id"))
    assert len(changes) == 2 and (changes[0].weight, changes[1].weight) == (70, 80)


def test_an_incident_may_not_name_another_teams_site_or_entry(cast, team_entry):
    theirs = site_create(
        team=cast.other_team,
        user=cast.outsider,
        name="Beta hall",
        electricity_price_per_kwh=1,
        pue=1.4,
    )
    with pytest.raises(ValidationError) as caught:
        fault_incident_create(
            team=cast.other_team,
            user=cast.outsider,
            entry=team_entry,
            happened_on=dt.date(2026, 11, 1),
            what_happened="x",
        )
    assert "entry" in caught.value.message_dict
    with pytest.raises(ValidationError) as caught:
        fault_incident_create(
            team=cast.team,
            user=cast.planner,
            site=theirs,
            happened_on=dt.date(2026, 11, 1),
            what_happened="x",
        )
    assert "site" in caught.value.message_dict


def test_a_bad_pattern_is_refused_naming_its_line(cast, team_entry):
    with pytest.raises(ValidationError) as caught:
        fault_entry_update(entry=team_entry, patterns="fine\n(unclosed")
    assert "Pattern 2" in caught.value.message_dict["patterns"][0]


def test_an_entry_needs_a_way_to_be_found(cast, fault_guide):
    from planner.faults.services import fault_entry_create

    with pytest.raises(ValidationError) as caught:
        fault_entry_create(team=cast.team, user=cast.planner, title_zh="无规则", category="cuda")
    assert "patterns" in caught.value.message_dict
