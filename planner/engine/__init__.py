"""flopfit's engine: the physics of memory, throughput, time, facility fit and cost.

Pure Python and numpy. Nothing here imports Django, DRF, Celery, `catalog` or the rest of
`planner`: frozen dataclasses go in, frozen dataclasses come out, and `planner.services` is the
only bridge to the database. Every saved result records `MODEL_VERSION`, so results computed
by an older engine can be told apart after the formulas change.
"""

MODEL_VERSION = "0.1.0"

__all__ = ["MODEL_VERSION"]
