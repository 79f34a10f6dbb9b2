"""flopfit's engine: the physics of memory, throughput, time, facility fit and cost.

Pure Python and numpy. Nothing here imports Django, DRF, Celery, `catalog` or the rest of
`planner`: frozen dataclasses go in, frozen dataclasses come out, and `planner.services` is the
only bridge to the database. Every saved result records `MODEL_VERSION`, so results computed
by an older engine can be told apart after the formulas change.
"""

MODEL_VERSION = "1.0.0"

from planner.engine.errors import RequestError  # noqa: E402
from planner.engine.estimate import Estimate, estimate  # noqa: E402
from planner.engine.specs import (  # noqa: E402
    AcceleratorSpec,
    EstimateRequest,
    FabricSpec,
    InferenceSpec,
    ModelSpec,
    ParallelSpec,
)

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
