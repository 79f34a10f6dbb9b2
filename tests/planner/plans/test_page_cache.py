"""The plan page keeps its rendered ranking and rejected-builds sections in the shared cache:
a second view of the same plan, language, weights and page costs no re-ranking, and anything
that changes what the sections show gives another key."""

import re

import pytest

from planner.plans.services import plan_create
from planner.plans.views import plans as plan_views

pytestmark = pytest.mark.django_db

QUESTION = {
    "workload": {"task": "train", "model": "meta-llama-3-8b", "tokens": 1e11, "seq_len": 4096},
    "name": "Cluster 2026",
    "accelerators": ["amd-mi300x", "nvidia-h100-sxm5-80gb", "nvidia-rtx-4090"],
    "count": {"min": 8, "max": 64},
}
# Ordered by the five scores alone, so the weights decide the order.
BY_SCORE = {"objective": "score"}
ONLY_SOFTWARE = {
    "memory_capacity": 0,
    "memory_bandwidth": 0,
    "interconnect": 0,
    "cooling": 0,
    "software": 100,
}


@pytest.fixture
def plan(loaded_catalog, cast):
    return plan_create(data=QUESTION, user=cast.viewer, team=cast.team)


@pytest.fixture
def renders(monkeypatch):
    """How many times the page's costly context was built."""
    calls = []
    real = plan_views._plan_page_context
    monkeypatch.setattr(
        plan_views,
        "_plan_page_context",
        lambda request, plan: calls.append(plan.pk) or real(request, plan),
    )
    return calls


def unmasked(html: str) -> str:
    html = re.sub(r'"X-CSRFToken": "[^"]+"', "", html)
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)


def test_a_second_view_is_served_from_the_cache_with_the_same_html(cast, plan, renders):
    client = cast.browser("viewer")
    first = client.get(plan.get_absolute_url()).content.decode()
    second = client.get(plan.get_absolute_url()).content.decode()
    assert renders == [plan.pk]
    # The same page but for the CSRF token, which Django masks afresh for each response.
    assert unmasked(first) == unmasked(second)
    assert f"{len(plan.ranking['rejected'])} rejected builds" in second


def test_weights_pages_and_htmx_partials_each_have_their_own_entry(cast, plan, renders):
    client = cast.browser("viewer")
    default = client.get(plan.get_absolute_url()).content.decode()
    software = client.get(plan.get_absolute_url(), ONLY_SOFTWARE).content.decode()
    assert default != software and len(renders) == 2
    # The partial HTMX asks for is the page's own ranking section, already cached.
    partial = client.get(plan.get_absolute_url(), ONLY_SOFTWARE, HTTP_HX_REQUEST="true")
    assert len(renders) == 2
    section = partial.content.decode()
    assert section.lstrip().startswith('<section id="results"') and section in software


def test_another_language_is_rendered_in_that_language(cast, plan, renders):
    client = cast.browser("viewer")
    english = client.get(plan.get_absolute_url()).content.decode()
    chinese = client.get(plan.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "Ranking" in english and "排名" in chinese and "排名" not in english
    assert len(renders) == 2


def test_a_plan_saved_again_is_rendered_again(cast, plan, renders):
    client = cast.browser("viewer")
    client.get(plan.get_absolute_url())
    plan.name = "Cluster 2027"
    plan.save()
    client.get(plan.get_absolute_url())
    assert renders == [plan.pk, plan.pk]
