"""Simulations too heavy for one estimate: a training campaign's Monte Carlo and a serving
discrete-event simulation. Pure Python and numpy, like the rest of the engine; Celery tasks call
them with a `progress` callback (a fraction from 0 to 1) and store `as_dict()`."""

from planner.engine.replica import StepModel, kv_budget_tokens_from_engine, step_model_from_engine
from planner.engine.simulate.serving import (
    ReplicaSearch,
    ServingResult,
    replicas_for_slo,
    simulate_serving,
)
from planner.engine.simulate.serving_spec import LengthDist, ServingSpec, Slo
from planner.engine.simulate.training import CampaignResult, CampaignSpec, simulate_campaign

__all__ = [
    "CampaignResult",
    "CampaignSpec",
    "LengthDist",
    "ReplicaSearch",
    "ServingResult",
    "ServingSpec",
    "Slo",
    "StepModel",
    "kv_budget_tokens_from_engine",
    "replicas_for_slo",
    "simulate_campaign",
    "simulate_serving",
    "step_model_from_engine",
]
