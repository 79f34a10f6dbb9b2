"""Every build that suits a workload, estimated, fitted into the site, costed and scored on the
five dimensions; ranked, with the ones that break a hard constraint listed apart."""

from planner.engine.recommend.builds import server_counts, sharded_state_gib
from planner.engine.recommend.plan import (
    AcceleratorOption,
    Candidate,
    PlanQuestion,
    RackGroupOption,
    Ranking,
    ServerOption,
)
from planner.engine.recommend.ranking import (
    DEFAULT_OBJECTIVE,
    OBJECTIVES,
    Said,
    recommend,
    rerank,
)

__all__ = [
    "DEFAULT_OBJECTIVE",
    "OBJECTIVES",
    "AcceleratorOption",
    "Candidate",
    "PlanQuestion",
    "RackGroupOption",
    "Ranking",
    "Said",
    "ServerOption",
    "recommend",
    "rerank",
    "server_counts",
    "sharded_state_gib",
]
