"""Simulations belong to a team: another team's run is a 404 to read and to cancel, through the
API and the pages; the same question asked by two teams makes two rows, and asked again within
a team returns the team's row. Nothing reaches a broker (`_publish` is replaced)."""

import importlib

import pytest
from django.apps import apps
from django.urls import reverse

from planner.choices import SimulationStatus
from planner.models import Simulation
from planner.simulations import services as simulations
from planner.simulations.selectors import simulation_visible_to
from tests.planner.simulations.test_api import SERVING, TRAINING

pytestmark = pytest.mark.django_db

API = "/api/v1/simulations/"


@pytest.fixture
def published(monkeypatch) -> list[int]:
    sent: list[int] = []
    monkeypatch.setattr(simulations, "_publish", lambda simulation: sent.append(simulation.pk))
    return sent


@pytest.fixture
def alphas_run(loaded_catalog, published, cast) -> Simulation:
    simulation, _ = simulations.simulation_start(data=TRAINING, user=cast.planner)
    return simulation


def test_a_run_belongs_to_the_team_of_whoever_started_it(alphas_run, cast):
    assert alphas_run.team == cast.team


def test_another_teams_run_is_404_to_read_and_to_cancel_over_the_api(alphas_run, cast):
    client = cast.api("outsider")
    assert client.get(f"{API}{alphas_run.pk}/").status_code == 404
    assert client.post(f"{API}{alphas_run.pk}/cancel/").status_code == 404
    assert client.get(API).json()["count"] == 0
    alphas_run.refresh_from_db()
    assert alphas_run.status == SimulationStatus.QUEUED


def test_another_teams_run_is_404_on_the_pages_and_its_cancel_button(alphas_run, cast):
    client = cast.browser("outsider")
    detail = reverse("planner:simulation_detail", args=[alphas_run.pk])
    cancel = reverse("planner:simulation_cancel", args=[alphas_run.pk])
    assert client.get(detail).status_code == 404
    assert client.post(cancel).status_code == 404
    assert detail not in client.get(reverse("planner:simulation_list")).content.decode()
    alphas_run.refresh_from_db()
    assert alphas_run.status == SimulationStatus.QUEUED


def test_the_own_team_reads_it_and_its_planner_cancels_it(alphas_run, cast):
    assert cast.api("viewer").get(f"{API}{alphas_run.pk}/").status_code == 200
    assert cast.api("planner").post(f"{API}{alphas_run.pk}/cancel/").status_code == 202


def test_two_teams_asking_the_same_question_get_a_row_each(alphas_run, cast, published):
    betas, queued = simulations.simulation_start(data=TRAINING, user=cast.outsider)
    assert queued and betas.pk != alphas_run.pk and betas.team == cast.other_team
    # Beta cancelling its own run leaves Alpha's alone.
    assert cast.api("outsider").post(f"{API}{betas.pk}/cancel/").status_code == 202
    alphas_run.refresh_from_db()
    assert alphas_run.status == SimulationStatus.QUEUED


def test_asking_again_within_a_team_returns_the_teams_row(alphas_run, cast, published):
    again, queued = simulations.simulation_start(data=TRAINING, user=cast.admin)
    assert again.pk == alphas_run.pk and not queued
    over_api = cast.api("planner").post(API, TRAINING, format="json")
    assert over_api.status_code == 200 and over_api.json()["id"] == alphas_run.pk


def test_a_run_with_no_team_is_seen_by_admins_only(loaded_catalog, published, cast):
    orphan, _ = simulations.simulation_start(data=SERVING)  # as `manage.py simulate` does
    assert orphan.team is None
    for who in ("viewer", "planner", "facility", "outsider"):
        assert not simulation_visible_to(cast[who]).filter(pk=orphan.pk).exists(), who
        assert cast.api(who).get(f"{API}{orphan.pk}/").status_code == 404, who
    assert cast.api("admin").get(f"{API}{orphan.pk}/").status_code == 200


def test_the_migration_gives_existing_rows_their_creators_team(loaded_catalog, cast):
    migration = importlib.import_module("planner.migrations.0010_simulation_team")
    made = Simulation.objects.create(
        kind="training",
        inputs=TRAINING,
        inputs_hash="old-1",
        created_by=cast.outsider,
        model_version="1",
    )
    orphan = Simulation.objects.create(
        kind="serving", inputs=SERVING, inputs_hash="old-2", model_version="1"
    )
    migration.give_rows_their_creators_team(apps, None)
    made.refresh_from_db()
    orphan.refresh_from_db()
    assert made.team == cast.other_team and orphan.team is None
    # The hash now covers the team, as the service computes it: asking again finds the row.
    assert made.inputs_hash == simulations.simulation_hash(TRAINING, cast.other_team.pk)
    assert orphan.inputs_hash == simulations.simulation_hash(SERVING, None)
