import factory

from catalog.choices import (
    AcceleratorKind,
    Airflow,
    Cooling,
    FabricKind,
    FormFactor,
    Maturity,
    Segment,
    ServerCooling,
    SoftwareStack,
    Topology,
)
from catalog.models import Accelerator, Fabric, ModelArchitecture, ServerPlatform


class AcceleratorFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Accelerator

    slug = factory.Sequence(lambda n: f"vendor-card-{n}")
    name = factory.Sequence(lambda n: f"Card {n}")
    vendor = "NVIDIA"
    kind = AcceleratorKind.GPU
    segment = Segment.DATACENTER
    architecture = "Hopper"
    launch_year = 2022
    memory_gib = 80
    memory_type = "HBM3"
    memory_bw_gb_s = 3350
    fp32_tflops = 67
    bf16_tflops = 989
    fp16_tflops = 989
    fp8_tflops = 1979
    board_power_w = 700
    form_factor = FormFactor.SXM
    cooling = Cooling.PASSIVE
    ecc = True
    scale_up_link = "NVLink 4"
    scale_up_gb_s = 450
    scale_up_domain = 8
    software_stack = SoftwareStack.CUDA
    training_maturity = Maturity.MATURE
    inference_maturity = Maturity.MATURE
    source_urls = "https://example.com/datasheet.pdf"


class ServerPlatformFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ServerPlatform

    slug = factory.Sequence(lambda n: f"vendor-server-{n}")
    name = factory.Sequence(lambda n: f"Server {n}")
    vendor = "Acme"
    accelerator_slots = 8
    form_factors = factory.LazyFunction(lambda: [FormFactor.SXM.value])
    topology = Topology.NVSWITCH
    rack_units = 8
    max_power_kw = 10.2
    weight_kg = 130
    cooling = ServerCooling.AIR
    airflow = Airflow.FRONT_TO_BACK
    network_ports = 8
    network_port_gbps = 400
    source_urls = "https://example.com/server.pdf"


class FabricFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Fabric

    slug = factory.Sequence(lambda n: f"fabric-{n}")
    name = factory.Sequence(lambda n: f"Fabric {n}")
    kind = FabricKind.INFINIBAND
    port_gbps = 400
    source_urls = "https://example.com/fabric.pdf"


class ModelArchitectureFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ModelArchitecture

    slug = factory.Sequence(lambda n: f"model-{n}")
    name = factory.Sequence(lambda n: f"Model {n}")
    family = "Llama 3"
    params = 8_030_261_248
    active_params = 8_030_261_248
    layers = 32
    hidden = 4096
    heads = 32
    kv_heads = 8
    ffn = 14336
    vocab = 128256
    context = 8192
    source_urls = "https://example.com/config.json"


# Accounts and sites (imported here so the catalog factories above stay first).
from decimal import Decimal  # noqa: E402

from accounts.models import Team  # noqa: E402
from accounts.roles import Role  # noqa: E402
from accounts.services import user_create  # noqa: E402
from planner.choices import Visibility  # noqa: E402
from planner.models import RackGroup, Site  # noqa: E402
from planner.racks.services import racks_match_count  # noqa: E402


class TeamFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Team

    name = factory.Sequence(lambda n: f"Team {n}")
    slug = factory.Sequence(lambda n: f"team-{n}")


class UserFactory(factory.django.DjangoModelFactory):
    """A user with one role on a team, made by accounts.services.user_create like any other.
    `UserFactory(role=Role.FACILITY, team=team)`."""

    class Meta:
        model = "auth.User"

    username = factory.Sequence(lambda n: f"user-{n}")
    password = "a-long-test-password"
    role = Role.VIEWER
    team = factory.SubFactory(TeamFactory)

    @classmethod
    def _create(cls, model_class, *, username, password, role, team, **kwargs):
        return user_create(username=username, password=password, role=role, team=team, **kwargs)


class SiteFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Site

    team = factory.SubFactory(TeamFactory)
    name = factory.Sequence(lambda n: f"Hall {n}")
    location = "Shanghai"
    electricity_price_per_kwh = Decimal("0.6500")
    pue = 1.3
    visibility = Visibility.TEAM


class RackGroupFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = RackGroup
        skip_postgeneration_save = True

    site = factory.SubFactory(SiteFactory)
    name = factory.Sequence(lambda n: f"Row {n}")
    count = 10
    power_kw = 20.0
    cooling_kw = 20.0
    units = 42
    max_kg = 1200.0

    @factory.post_generation
    def racks(obj, create, extracted, **kwargs):
        """A group's count is its racks (planner.racks.services), however it was made."""
        if create:
            racks_match_count(rack_group=obj)


# Prices.
import datetime as dt  # noqa: E402

from django.utils import timezone  # noqa: E402

from planner.choices import PriceItem, PriceKind, RentTerms  # noqa: E402
from planner.models import Price  # noqa: E402


class PriceFactory(factory.django.DjangoModelFactory):
    """A team's purchase price of one accelerator; `PriceFactory(team=None)` is a reference
    price. Rent: `PriceFactory(rent=True, provider="AWS")`."""

    class Meta:
        model = Price

    class Params:
        rent = factory.Trait(
            kind=PriceKind.RENT,
            amount=Decimal("2.50"),
            provider="Example Cloud",
            region="us-east-1",
            terms=RentTerms.ON_DEMAND,
            instance_name="gpu.8x",
            accelerators_per_instance=8,
        )

    kind = PriceKind.PURCHASE
    item_kind = PriceItem.ACCELERATOR
    accelerator = factory.SubFactory(AcceleratorFactory)
    amount = Decimal("25000")
    currency = "USD"
    price_date = factory.LazyFunction(lambda: timezone.localdate() - dt.timedelta(days=30))
    source = "quote from Example Systems, ref Q-1"
    team = factory.SubFactory(TeamFactory)
