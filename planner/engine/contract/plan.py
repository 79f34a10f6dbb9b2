"""The recommend question (`manage.py recommend`, `POST /api/v1/plans/`): a workload, where it
must run, what it may cost and which builds to consider. The catalog's options and a saved
site's racks are added by the caller; this declares what the question itself may say."""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Discriminator, Field, Tag, model_validator

from planner.engine.contract.base import (
    Count,
    Flag,
    GivenFigures,
    NonNegative,
    PositiveFigure,
    Question,
    Text,
    number,
    one_of,
    problem,
    whole,
)
from planner.engine.contract.estimate import Job
from planner.engine.contract.fit import Feeds, RackCooling, rack_spec
from planner.engine.errors import gettext_noop as _
from planner.engine.recommend import OBJECTIVES, RackGroupOption
from planner.engine.specs import (
    PRECISIONS,
    AcceleratorSpec,
    EstimateRequest,
    FabricSpec,
    ModelSpec,
)

CURRENCIES = ("USD", "CNY")
Objective = Literal["cost", "capex", "rent", "time", "devices", "tokens_per_joule", "score"]
Currency = Annotated[Literal["USD", "CNY"], BeforeValidator(one_of(CURRENCIES))]
MAX_PLAN_COUNT = 100_000
# What a plan chooses per candidate; a workload that states them is refused, not overridden.
CHOSEN_BY_THE_PLAN = ("accelerator", "count", "parallelism", "per_node")


# Stand-in for validating the workload before each candidate's card replaces it.
ANY_CARD = AcceleratorSpec(
    memory_gib=1000,
    memory_bw_gb_s=1000,
    tflops=MappingProxyType(dict.fromkeys(PRECISIONS, 1.0)),
    name="any card",
)


class Workload(Job):
    """The job, as an estimate question without accelerator, count and layout: those the plan
    chooses, one per candidate."""

    @model_validator(mode="before")
    @classmethod
    def _not_chosen_by_the_plan(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for key in CHOSEN_BY_THE_PLAN:
                if key in data:
                    raise problem(_("is chosen by the plan, one per candidate"), at=key)
        return data

    def to_request(
        self,
        *,
        resolve_model: Callable[[str], ModelSpec],
        resolve_fabric: Callable[[str], FabricSpec],
    ) -> EstimateRequest:
        """The workload on a stand-in card; each candidate replaces the card and the count."""
        return self.build_request(
            model=self.resolved_model(resolve_model),
            accelerator=ANY_CARD,
            fabric=self.resolved_fabric(resolve_fabric),
            count=1,
            per_node=1,
            parallelism=None,
        )


class InlineRackGroup(Question):
    """A row of identical racks the plan may fill."""

    name: Text | None = Field(None, description="Default: racks 1, racks 2...")
    count: Annotated[int, whole(ge=1, le=100_000)] = Field(1, description="Racks in the group")
    power_kw: Annotated[float, number(ge=0.1, le=250)] = Field(
        description="Usable power per rack, kW; with 2N feeds what ONE feed carries"
    )
    cooling_kw: Annotated[float, number(ge=0.1, le=250)] | None = Field(
        None, description="Cooling per rack, kW; default: the power"
    )
    units: Annotated[int, whole(ge=1, le=60)] = Field(42, description="Usable U")
    max_kg: Annotated[float, number(ge=1, le=5000)] = Field(1200, description="Weight limit, kg")
    inlet_c: Annotated[float, number(ge=5, le=45)] = Field(25, description="Inlet air, °C")
    cooling: RackCooling = "air"
    feeds: Feeds = "single"
    liquid_loops: Flag | None = None

    def option(self, index: int) -> RackGroupOption:
        return RackGroupOption(
            self.name or f"racks {index + 1}",
            rack_spec(
                self, cooling_kw=self.cooling_kw if self.cooling_kw is not None else self.power_kw
            ),
            self.count,
        )


class InlineSite(Question):
    """A site given in the question rather than saved."""

    racks: list[InlineRackGroup] = Field(default_factory=list)
    pue: Annotated[float, number(ge=1, le=3)] = Field(1.3, description="Facility power / IT power")
    price_per_kwh: NonNegative | None = Field(None, description="Electricity per kWh")
    currency: Currency = Field("USD", description="Currency of price_per_kwh")


class Budget(Question):
    capex: NonNegative | None = Field(None, description="Purchase budget")
    tco: NonNegative | None = Field(None, description="Total cost of ownership budget")
    currency: Currency | None = Field(None, description="Default: the site's currency, else USD")


class CountRange(Question):
    min: Annotated[int, whole(ge=1, le=MAX_PLAN_COUNT)] = Field(
        1, description="Fewest accelerators"
    )
    max: Annotated[int, whole(ge=1, le=MAX_PLAN_COUNT)] | None = Field(
        None, description="Most accelerators; default max(min, 1024)"
    )

    @model_validator(mode="after")
    def _max_not_below_min(self) -> CountRange:
        if self.max is not None and self.max < self.min:
            raise problem(
                _("must be at least {bound}, not {value}"), at="max", bound=self.min, value=self.max
            )
        return self

    @property
    def upper(self) -> int:
        return self.max if self.max is not None else max(self.min, 1024)


Weight = Annotated[float, number(ge=0, le=100)]


class Weights(GivenFigures):
    """The five dimensions' weights, 0-100 each; unnamed ones keep the task's defaults."""

    memory_capacity: Weight | None = None
    memory_bandwidth: Weight | None = None
    interconnect: Weight | None = None
    cooling: Weight | None = None
    software: Weight | None = None


def _strings(what: str) -> Callable[[Any], Any]:
    def validate(value: Any) -> Any:
        if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
            raise problem(what)
        return value

    return validate


def _site_kind(value: Any) -> str:
    return "#name" if isinstance(value, str) else "#inline"


def _site_given(value: Any) -> Any:
    if not isinstance(value, str | dict):
        raise problem(_("must be a site's name or an object with racks"))
    return value


def _profile_id(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int):
        raise problem(_("must be a calibration profile's id"))
    return value


class RecommendQuestion(Question):
    """Every build (accelerator x server x count) that suits the workload, ranked."""

    workload: Workload = Field(
        description="The job: an estimate question without accelerator and count"
    )
    site: (
        Annotated[
            Annotated[Text, Tag("#name")] | Annotated[InlineSite, Tag("#inline")],
            Discriminator(_site_kind),
            BeforeValidator(_site_given),
        ]
        | None
    ) = Field(None, description="A saved site's name, or racks given inline; none: no limits")
    budget: Budget = Field(default_factory=Budget)
    years: Annotated[float, number(ge=0.25, le=15)] = Field(
        4, description="Horizon of the total cost, years"
    )
    limit: Annotated[int, whole(ge=1, le=1000)] = Field(10, description="Candidates in the answer")
    vendors: (
        Annotated[list[str], BeforeValidator(_strings(_("must be a list of vendor names")))] | None
    ) = None
    stacks: (
        Annotated[list[str], BeforeValidator(_strings(_("must be a list of software stacks")))]
        | None
    ) = None
    accelerators: (
        Annotated[list[str], BeforeValidator(_strings(_("must be a list of accelerator slugs")))]
        | None
    ) = Field(None, description="Only these catalog accelerators")
    servers: (
        Annotated[list[str], BeforeValidator(_strings(_("must be a list of server slugs")))] | None
    ) = Field(None, description="Only these catalog servers")
    count: CountRange = Field(default_factory=CountRange)
    deadline_days: PositiveFigure | None = Field(None, description="Training must finish within")
    target_rps: PositiveFigure | None = Field(None, description="Serving: requests per second")
    ttft_ms: PositiveFigure | None = Field(None, description="Serving: time to first token")
    tpot_ms: PositiveFigure | None = Field(None, description="Serving: time per output token")
    rent_per_gpu_hour: NonNegative | None = Field(
        None, description="Rent per accelerator-hour, for renting against buying"
    )
    objective: Annotated[Objective, BeforeValidator(one_of(tuple(OBJECTIVES)))] = Field(
        "cost",
        description="What ranks the builds that meet every requirement: cost (first the builds "
        "with a TCO, where purchase prices exist, by their TCO; then those with only the rent of "
        "the job, by that rent; a TCO is never set against a rent), capex, rent, time, devices, "
        "tokens_per_joule or score (the five dimensions under the weights)",
    )
    utilisation: Annotated[float, number(ge=0.01, le=1)] | None = Field(
        None,
        description="Share of the horizon the fleet is busy, for energy and renting against "
        "buying; default: a training job's own time, serving's load share",
    )
    weights: Weights = Field(default_factory=Weights)
    name: Text | None = Field(None, description="The plan's name")
    calibration: Annotated[int, BeforeValidator(_profile_id)] | None = Field(
        None, description="A calibration profile's id: builds on its card use its figures"
    )


class PlanRequest(RecommendQuestion):
    """What `POST /api/v1/plans/` takes: the recommend question, and optionally a saved site by
    its id instead of by name or inline."""

    site_id: Count | None = Field(
        None, description="A saved site you can see; or give `site`, not both"
    )
