"""Every build that suits a workload, estimated, fitted into the site, costed and scored on the
five dimensions; ranked, with the ones that break a hard constraint listed apart."""

from planner.engine.recommend.builds import candidate_layouts, sharded_state_gib
from planner.engine.recommend.plan import (
    AcceleratorOption,
    Candidate,
    PlanQuestion,
    RackGroupOption,
    Ranking,
    ServerOption,
)
from planner.engine.recommend.ranking import recommend, rerank

__all__ = [
    "AcceleratorOption",
    "Candidate",
    "PlanQuestion",
    "RackGroupOption",
    "Ranking",
    "ServerOption",
    "candidate_layouts",
    "recommend",
    "rerank",
    "sharded_state_gib",
]
