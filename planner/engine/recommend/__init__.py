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
    COST_BASES,
    DEFAULT_OBJECTIVE,
    OBJECTIVES,
    Said,
    cost_tier,
    recommend,
    rerank,
)

__all__ = [
    "COST_BASES",
    "DEFAULT_OBJECTIVE",
    "OBJECTIVES",
    "AcceleratorOption",
    "Candidate",
    "PlanQuestion",
    "RackGroupOption",
    "Ranking",
    "Said",
    "ServerOption",
    "cost_tier",
    "recommend",
    "rerank",
    "server_counts",
    "sharded_state_gib",
]
