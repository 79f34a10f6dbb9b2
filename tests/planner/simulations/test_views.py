"""The simulation pages: who may read, start and cancel; the forms' questions and their errors
beside the fields; the detail page polling its progress partial while a row runs, and the
result with its tables and chart data once it is done. `_publish` is replaced throughout, so no
broker is reached (the worker is tested with Celery elsewhere)."""

import json
import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import Team
from accounts.services import team_get_or_create
from planner.choices import SimulationKind, SimulationStatus
from planner.engine import MODEL_VERSION
from planner.models import Simulation
from planner.simulations import services as simulations
from planner.simulations.forms import ServingSimulationForm, TrainingSimulationForm
from tests.cast import TEAM

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
TRAINING = {
    "kind": "training",
    "estimate": {
        "task": "train",
        "model": "meta-llama-3-8b",
        "accelerator": "nvidia-h100-sxm5-80gb",
        "count": 64,
        "tokens": 1e11,
    },
    "trials": 200,
}
SERVING = {
    "kind": "serving",
    "estimate": {
        "task": "inference",
        "model": "meta-llama-3-8b",
        "accelerator": "nvidia-h100-sxm5-80gb",
        "count": 1,
    },
    "rate_per_s": 5,
    "requests": 300,
    "ttft_slo_ms": 500,
    "tpot_slo_ms": 50,
    "search": {"target_rate": 20},
}
TRAINING_FORM = {
    "model": "meta-llama-3-8b",
    "accelerator": "nvidia-h100-sxm5-80gb",
    "count": "64",
    "precision": "bf16",
    "fabric": "",
    "tokens": "1e11",
    "failures_per_gpu_hour": "2e-5",
    "checkpoint_gb_s": "",
    "restart_min": "15",
    "trials": "200",
}
SERVING_FORM = {
    "model": "meta-llama-3-8b",
    "accelerator": "nvidia-h100-sxm5-80gb",
    "count": "1",
    "precision": "bf16",
    "rate_per_s": "5",
    "arrival": "bursty",
    "requests": "300",
    "prompt_kind": "uniform",
    "prompt_lo": "100",
    "prompt_hi": "900",
    "output_kind": "lognormal",
    "output_value": "200",
    "output_sigma": "0.5",
    "ttft_slo_ms": "500",
    "tpot_slo_ms": "",
    "target_rate": "",
}


def detail_url(simulation: Simulation) -> str:
    return reverse("planner:simulation_detail", kwargs={"pk": simulation.pk})


def errors_of(html: str, field: str) -> str:
    """The text of the error block beside one field."""
    match = re.search(rf'id="errors-{field}">(.*?)</div>', html, re.S)
    assert match, f"no error block for {field}"
    return match.group(1)


@pytest.fixture
def published(monkeypatch) -> list[int]:
    sent: list[int] = []
    monkeypatch.setattr(simulations, "_publish", lambda simulation: sent.append(simulation.pk))
    return sent


def finished(data: dict, *, team: Team | None = None, **fields) -> Simulation:
    """A row that a worker has answered for `team` (by default the cast's own), made directly
    with the engine's real result."""
    now = timezone.now()
    team = team or team_get_or_create(name=TEAM)
    return Simulation.objects.create(
        kind=data["kind"],
        inputs=data,
        team=team,
        inputs_hash=simulations.simulation_hash(data, team.pk),
        status=SimulationStatus.SUCCEEDED,
        progress=1.0,
        result=simulations.simulation_question(data=data).run(),
        attempts=1,
        model_version=MODEL_VERSION,
        queued_at=now - timedelta(seconds=5),
        started_at=now - timedelta(seconds=4),
        finished_at=now,
        **fields,
    )


@pytest.fixture
def running(loaded_catalog, published, cast) -> Simulation:
    simulation, _ = simulations.simulation_start(data=TRAINING, user=cast.planner)
    Simulation.objects.filter(pk=simulation.pk).update(
        status=SimulationStatus.RUNNING,
        progress=0.4,
        attempts=2,
        started_at=timezone.now() - timedelta(seconds=42),
    )
    simulation.refresh_from_db()
    return simulation


# --- access ----------------------------------------------------------------------------------


def test_anonymous_visitors_are_sent_to_sign_in(cast, running):
    for url in (reverse("planner:simulation_list"), detail_url(running)):
        answer = cast.browser("anonymous").get(url)
        assert answer.status_code == 302
        assert reverse("accounts:login") in answer["Location"]


def test_a_viewer_reads_the_list_and_a_row_but_may_not_start_or_cancel(running, cast):
    client = cast.browser("viewer")
    listing = client.get(reverse("planner:simulation_list"))
    assert listing.status_code == 200
    assert detail_url(running) in listing.content.decode()
    assert reverse("planner:simulation_create", args=["training"]) not in listing.content.decode()
    page = client.get(detail_url(running)).content.decode()
    assert "simulation_cancel" not in page and "/cancel/" not in page
    assert client.get(reverse("planner:simulation_create", args=["training"])).status_code == 403
    cancel = client.post(reverse("planner:simulation_cancel", args=[running.pk]))
    assert cancel.status_code == 403
    running.refresh_from_db()
    assert running.status == SimulationStatus.RUNNING


def test_a_planner_sees_both_new_simulation_buttons(loaded_catalog, cast):
    page = cast.browser("planner").get(reverse("planner:simulation_list"))
    html = page.content.decode()
    assert reverse("planner:simulation_create", args=["training"]) in html
    assert reverse("planner:simulation_create", args=["serving"]) in html


def test_an_unknown_kind_of_simulation_is_404(loaded_catalog, cast):
    page = cast.browser("planner").get("/simulations/new/weather/")
    assert page.status_code == 404


# --- the list --------------------------------------------------------------------------------


def test_the_list_filters_by_status_and_answers_htmx_with_the_results_alone(running, cast):
    done = finished(SERVING)
    client = cast.browser("viewer")
    html = client.get(reverse("planner:simulation_list")).content.decode()
    assert "<html" in html and detail_url(running) in html and detail_url(done) in html
    assert "meta-llama-3-8b" in html

    partial = client.get(reverse("planner:simulation_list"), {"status": "succeeded"}, **HTMX)
    text = partial.content.decode()
    assert "<html" not in text
    assert detail_url(done) in text and detail_url(running) not in text
    assert partial["Vary"] and "HX-Request" in partial["Vary"]


# --- the forms -------------------------------------------------------------------------------


def test_the_training_form_queues_its_question_and_redirects_to_the_row(
    loaded_catalog, published, cast
):
    answer = cast.browser("planner").post(
        reverse("planner:simulation_create", args=["training"]), TRAINING_FORM
    )
    simulation = Simulation.objects.get()
    assert answer.status_code == 302
    assert answer["Location"] == detail_url(simulation)
    assert published == [simulation.pk]
    assert simulation.kind == SimulationKind.TRAINING
    assert simulation.created_by == cast.planner
    # Blank fields are left out, so the engine's defaults apply; minutes become seconds.
    assert simulation.inputs == {
        "kind": "training",
        "estimate": {
            "task": "train",
            "model": "meta-llama-3-8b",
            "accelerator": "nvidia-h100-sxm5-80gb",
            "count": 64,
            "precision": "bf16",
            "tokens": 1e11,
        },
        "failures_per_gpu_hour": 2e-5,
        "restart_s": 900.0,
        "trials": 200,
    }


def test_the_serving_form_builds_length_distributions_and_the_replica_search(
    loaded_catalog, published, cast
):
    form = {**SERVING_FORM, "target_rate": "12"}
    answer = cast.browser("admin").post(
        reverse("planner:simulation_create", args=["serving"]), form
    )
    assert answer.status_code == 302
    inputs = Simulation.objects.get().inputs
    assert inputs["arrival"] == "bursty"
    assert inputs["prompt"] == {"kind": "uniform", "lo": 100, "hi": 900}
    assert inputs["output"] == {"kind": "lognormal", "mean": 200, "sigma": 0.5}
    assert inputs["search"] == {"target_rate": 12.0}
    assert inputs["ttft_slo_ms"] == 500.0 and "tpot_slo_ms" not in inputs


def test_the_training_form_asks_a_lora_fine_tune_with_its_sequence_length(
    loaded_catalog, published, cast
):
    form = {**TRAINING_FORM, "task": "finetune", "method": "lora", "seq_len": "4096"}
    answer = cast.browser("planner").post(
        reverse("planner:simulation_create", args=["training"]), form
    )
    assert answer.status_code == 302
    estimate = Simulation.objects.get().inputs["estimate"]
    assert (estimate["task"], estimate["method"], estimate["seq_len"]) == ("finetune", "lora", 4096)


def test_the_form_opens_prefilled_from_the_query_string(loaded_catalog, cast):
    url = reverse("planner:simulation_create", args=["serving"])
    response = cast.browser("planner").get(url, {"count": "4", "rate_per_s": "12.5", "junk": "x"})
    form = response.context["form"]
    assert form.initial == {"count": "4", "rate_per_s": "12.5"}
    assert not form.is_bound
    assert 'value="12.5"' in response.content.decode()


def test_asking_the_same_question_on_the_form_opens_the_first_run(loaded_catalog, published, cast):
    client = cast.browser("planner")
    url = reverse("planner:simulation_create", args=["training"])
    first = client.post(url, TRAINING_FORM)
    again = client.post(url, TRAINING_FORM, follow=True)
    assert again.redirect_chain[-1][0] == first["Location"]
    assert Simulation.objects.count() == 1 and len(published) == 1
    assert "already asked" in again.content.decode()


def test_form_errors_sit_beside_their_fields(loaded_catalog, published, cast):
    client = cast.browser("planner")
    url = reverse("planner:simulation_create", args=["training"])
    answer = client.post(url, {**TRAINING_FORM, "count": "0", "trials": "5"})
    html = answer.content.decode()
    assert answer.status_code == 200
    assert "greater than or equal to 1" in errors_of(html, "count")
    assert "greater than or equal to 10" in errors_of(html, "trials")
    assert not Simulation.objects.exists()


def test_engine_errors_sit_beside_the_field_they_name(loaded_catalog, published, cast):
    client = cast.browser("planner")
    url = reverse("planner:simulation_create", args=["serving"])
    # A uniform prompt without its highest length: the engine names prompt.hi.
    no_hi = client.post(url, {**SERVING_FORM, "prompt_hi": ""}).content.decode()
    assert "is required" in errors_of(no_hi, "prompt_hi")
    # A replica search needs an SLO to aim for: the engine names search.
    no_slo = client.post(
        url, {**SERVING_FORM, "ttft_slo_ms": "", "target_rate": "20"}
    ).content.decode()
    assert "ttft_slo_ms or tpot_slo_ms" in errors_of(no_slo, "target_rate")
    assert not Simulation.objects.exists() and published == []


@pytest.mark.parametrize(
    ("form_class", "path", "field"),
    [
        (TrainingSimulationForm, "estimate.model", "model"),
        (TrainingSimulationForm, "estimate.tokens", "tokens"),
        (TrainingSimulationForm, "restart_s", "restart_min"),
        # The task is a field of the training form: a fine-tune or a pre-training run.
        (TrainingSimulationForm, "estimate.task", "task"),
        (ServingSimulationForm, "estimate.accelerator", "accelerator"),
        (ServingSimulationForm, "output.sigma", "output_sigma"),
        (ServingSimulationForm, "prompt.mean", "prompt_value"),
        (ServingSimulationForm, "search.target_rate", "target_rate"),
        (ServingSimulationForm, "estimate", None),
    ],
)
def test_engine_error_paths_map_to_form_fields(loaded_catalog, form_class, path, field):
    assert form_class().error_field(path) == field


def test_a_queue_that_is_down_is_reported_above_the_form_with_503(
    loaded_catalog, cast, monkeypatch
):
    def refuse(simulation):
        raise OSError("Connection refused")

    monkeypatch.setattr(simulations, "_publish", refuse)
    answer = cast.browser("planner").post(
        reverse("planner:simulation_create", args=["training"]), TRAINING_FORM
    )
    assert answer.status_code == 503
    assert "task queue is not answering" in answer.content.decode()


# --- progress --------------------------------------------------------------------------------


def test_a_running_row_shows_a_progress_partial_that_polls_itself(running, cast):
    page = cast.browser("planner").get(detail_url(running))
    html = page.content.decode()
    assert page["Cache-Control"] and "no-cache" in page["Cache-Control"]
    assert 'id="simulation-progress"' in html
    assert f'hx-get="{detail_url(running)}"' in html and 'hx-trigger="every 1s"' in html
    assert '<progress id="simulation-progress-bar" max="100" value="40.0">' in html
    assert f'action="{reverse("planner:simulation_cancel", args=[running.pk])}"' in html
    assert "csrfmiddlewaretoken" in html
    assert f'<a href="{detail_url(running)}">Refresh</a>' in html  # works without JavaScript
    assert 'id="simulation-result"' not in html


def test_the_progress_partial_of_a_running_row_has_elapsed_time_and_attempts(running, cast):
    partial = cast.browser("viewer").get(detail_url(running), **HTMX)
    html = partial.content.decode()
    assert "<html" not in html
    assert 'hx-trigger="every 1s"' in html
    assert 'value="40.0"' in html and "40 %" in html
    elapsed = re.search(r"Elapsed \(s\)</dt><dd>(\d+)</dd>", html)
    assert elapsed and 42 <= int(elapsed.group(1)) < 60
    assert "Attempts</dt><dd>2</dd>" in html
    assert 'id="simulation-status" class="sim-status-line" hx-swap-oob="true"' in html
    assert "Running" in html


def test_the_progress_partial_of_a_finished_row_stops_polling_and_delivers_the_result(
    loaded_catalog, cast
):
    simulation = finished(TRAINING)
    partial = cast.browser("viewer").get(detail_url(simulation), **HTMX)
    html = partial.content.decode()
    assert "every 1s" not in html
    assert '<div id="simulation-progress" hidden></div>' in html
    assert '<div id="simulation-outcome" hx-swap-oob="true">' in html
    assert 'id="simulation-result"' in html and "Time lost per campaign" in html
    assert "Succeeded" in html


# --- results ---------------------------------------------------------------------------------


def embedded_result(html: str) -> dict:
    match = re.search(
        r'<script id="simulation-result" type="application/json">(.*?)</script>', html
    )
    assert match
    return json.loads(match.group(1))


def test_a_finished_training_row_shows_its_tables_charts_and_data(loaded_catalog, cast):
    simulation = finished(TRAINING)
    page = cast.browser("viewer").get(detail_url(simulation))
    html = page.content.decode()
    assert page.status_code == 200
    assert 'id="simulation-progress"' not in html
    for text in (
        "Completion time over 200 trials",
        "Young/Daly interval (minutes)",
        "Time lost per campaign, by cause (mean)",
        "Writing checkpoints",
        "Work redone since the last checkpoint",
        "Goodput (%)",
        'id="chart-completion"',
        'id="chart-interval"',
        'id="simulation-chart-labels"',
        "vendor/chart-4.6.1.umd.min.js",
        "js/simulation-charts.js",
    ):
        assert text in html, text
    assert embedded_result(html) == simulation.result
    p50 = f"{simulation.result['completion_days']['p50']:.3f}"
    assert f'<th scope="row">p50</th><td class="num">{p50}</td>' in html


def test_a_finished_serving_row_shows_latencies_slos_and_the_replica_search(loaded_catalog, cast):
    simulation = finished(SERVING)
    html = cast.browser("viewer").get(detail_url(simulation)).content.decode()
    for text in (
        "Latency (ms)",
        "Time to first token, TTFT",
        "End to end",
        "Service-level objectives",
        "Replicas for 20 requests/s",
        'id="chart-latency"',
        'id="chart-queue"',
        'id="chart-replicas"',
    ):
        assert text in html, text
    result = embedded_result(html)
    assert result["replica_search"]["tried"]
    assert result == simulation.result


def test_a_failed_row_shows_its_error(loaded_catalog, cast):
    simulation = Simulation.objects.create(
        kind=SimulationKind.SERVING,
        inputs=SERVING,
        team=cast.team,
        inputs_hash=simulations.simulation_hash(SERVING, cast.team.pk),
        status=SimulationStatus.FAILED,
        error="The task queue did not answer: Connection refused",
        model_version=MODEL_VERSION,
        finished_at=timezone.now(),
    )
    html = cast.browser("viewer").get(detail_url(simulation)).content.decode()
    assert "The task queue did not answer: Connection refused" in html
    assert 'id="simulation-progress"' not in html and 'id="simulation-result"' not in html


# --- cancelling ------------------------------------------------------------------------------


def test_cancelling_redirects_to_the_row_now_cancelled(running, cast):
    client = cast.browser("planner")
    answer = client.post(reverse("planner:simulation_cancel", args=[running.pk]), follow=True)
    assert answer.redirect_chain[-1][0] == detail_url(running)
    assert "The simulation was cancelled." in answer.content.decode()
    running.refresh_from_db()
    assert running.status == SimulationStatus.CANCELLED


def test_cancelling_over_htmx_answers_with_the_finished_partial(running, cast):
    answer = cast.browser("admin").post(
        reverse("planner:simulation_cancel", args=[running.pk]), **HTMX
    )
    html = answer.content.decode()
    assert "<html" not in html and "every 1s" not in html
    assert "Cancelled" in html and 'hx-swap-oob="true"' in html


def test_cancelling_needs_the_csrf_token(running, cast):
    client = cast.browser("planner", enforce_csrf_checks=True)
    assert client.post(reverse("planner:simulation_cancel", args=[running.pk])).status_code == 403
    running.refresh_from_db()
    assert running.status == SimulationStatus.RUNNING
