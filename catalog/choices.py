"""Enumerations of the catalog. The values are the ones the data files under catalog/data use."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class AcceleratorKind(models.TextChoices):
    GPU = "gpu", _("GPU")
    NPU = "npu", _("NPU")
    OTHER = "other", _("Other")


class Segment(models.TextChoices):
    DATACENTER = "datacenter", _("Data centre")
    WORKSTATION = "workstation", _("Workstation")
    CONSUMER = "consumer", _("Consumer")
    LAPTOP = "laptop", _("Laptop")


class FormFactor(models.TextChoices):
    SXM = "sxm", _("SXM module")
    OAM = "oam", _("OAM module")
    PCIE = "pcie", _("PCIe card")
    SUPERCHIP = "superchip", _("Superchip (CPU+GPU module)")
    MOBILE = "mobile", _("Mobile (soldered)")


class Cooling(models.TextChoices):
    PASSIVE = "passive", _("Passive (chassis airflow)")
    BLOWER = "blower", _("Blower fan")
    OPEN_AIR = "open_air", _("Open-air fans")
    LIQUID = "liquid", _("Liquid")


class SoftwareStack(models.TextChoices):
    CUDA = "cuda", "CUDA"
    ROCM = "rocm", "ROCm"
    ONEAPI = "oneapi", "oneAPI"
    CANN = "cann", "CANN"
    SYNAPSEAI = "synapseai", "SynapseAI"


class Maturity(models.TextChoices):
    """How well mainstream frameworks (PyTorch, Megatron, vLLM...) support a stack for a task."""

    MATURE = "mature", _("Mature")
    GOOD = "good", _("Good")
    LIMITED = "limited", _("Limited")
    EXPERIMENTAL = "experimental", _("Experimental")


MATURITY_RANK = {
    Maturity.MATURE: 4,
    Maturity.GOOD: 3,
    Maturity.LIMITED: 2,
    Maturity.EXPERIMENTAL: 1,
}


class Currency(models.TextChoices):
    USD = "USD", _("US dollar")
    CNY = "CNY", _("Chinese yuan")


class Topology(models.TextChoices):
    """How accelerators inside one server talk to each other."""

    NVSWITCH = "nvswitch", _("NVSwitch, all-to-all")
    MESH = "mesh", _("Direct all-to-all links (Infinity Fabric, HCCS)")
    NVLINK_PAIRS = "nvlink_pairs", _("NVLink bridges in pairs")
    PCIE_SWITCH = "pcie_switch", _("PCIe switch")
    PCIE_CPU = "pcie_cpu", _("PCIe through the CPU")


class Population(models.TextChoices):
    """How a server is sold with its accelerators."""

    FIXED = "fixed", _("Only fully populated (DGX, HGX and OAM boards, rack systems)")
    ANY = "any", _("Any count up to its slots")


class ServerCooling(models.TextChoices):
    AIR = "air", _("Air")
    LIQUID = "liquid", _("Liquid")


class Airflow(models.TextChoices):
    FRONT_TO_BACK = "front_to_back", _("Front to back (rack)")
    DESKTOP = "desktop", _("Desktop tower")


class FabricKind(models.TextChoices):
    INFINIBAND = "infiniband", "InfiniBand"
    ROCE = "roce", "RoCE"
    ETHERNET = "ethernet", _("Ethernet (TCP)")


class Precision(models.TextChoices):
    """Numeric formats with a dense peak rate column on Accelerator (`<value>_tflops`)."""

    FP64 = "fp64", "FP64"
    FP32 = "fp32", "FP32"
    TF32 = "tf32", "TF32"
    FP16 = "fp16", "FP16"
    BF16 = "bf16", "BF16"
    FP8 = "fp8", "FP8"
    INT8 = "int8", "INT8"
    INT4 = "int4", "INT4"


class LoadStatus(models.TextChoices):
    SUCCEEDED = "succeeded", _("Succeeded")
    FAILED = "failed", _("Failed")
