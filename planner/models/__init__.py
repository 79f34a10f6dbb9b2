"""The planner's tables, one module per feature. Django finds them here."""

from planner.models.calibrations import CalibrationProfile
from planner.models.equipment import Equipment, RackCommitment
from planner.models.faults import FaultEntry, FaultIncident
from planner.models.feeds import PowerFeed
from planner.models.netbox import NetboxLink
from planner.models.plans import Plan, Workload
from planner.models.prices import Price
from planner.models.racks import Rack
from planner.models.simulations import Simulation
from planner.models.sites import RackGroup, Site

__all__ = [
    "CalibrationProfile",
    "Equipment",
    "FaultEntry",
    "FaultIncident",
    "NetboxLink",
    "Plan",
    "PowerFeed",
    "Price",
    "Rack",
    "RackCommitment",
    "RackGroup",
    "Simulation",
    "Site",
    "Workload",
]
