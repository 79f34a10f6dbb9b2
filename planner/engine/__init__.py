"""flopfit's engine: the physics of memory, throughput, time, facility fit and cost.

Pure Python and numpy (and pydantic for the contract). Nothing here imports Django, DRF, Celery,
`catalog` or the rest of `planner`: frozen dataclasses go in, frozen dataclasses come out, and
the feature packages' services are the only bridge to the database. Every saved result records
`MODEL_VERSION`, so results computed by an older engine can be told apart after the formulas
change.
"""

from planner.engine.errors import RequestError
from planner.engine.estimate import Estimate, estimate
from planner.engine.specs import (
    AcceleratorSpec,
    EstimateRequest,
    FabricSpec,
    InferenceSpec,
    ModelSpec,
    ParallelSpec,
)
from planner.engine.version import MODEL_VERSION

__all__ = [
    "MODEL_VERSION",
    "AcceleratorSpec",
    "Estimate",
    "EstimateRequest",
    "FabricSpec",
    "InferenceSpec",
    "ModelSpec",
    "ParallelSpec",
    "RequestError",
    "estimate",
]
