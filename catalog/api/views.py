"""Read-only catalog API: one viewset per model, filtered by the same FilterSet as the pages."""

from rest_framework import viewsets
from rest_framework.permissions import AllowAny

from catalog.api.serializers import (
    AcceleratorSerializer,
    FabricSerializer,
    ModelArchitectureSerializer,
    ServerPlatformSerializer,
)
from catalog.filtersets import (
    AcceleratorFilterSet,
    FabricFilterSet,
    ModelArchitectureFilterSet,
    ServerPlatformFilterSet,
)
from catalog.models import Accelerator, Fabric, ModelArchitecture, ServerPlatform
from catalog.models.base import SLUG_PATTERN


class _CatalogViewSet(viewsets.ReadOnlyModelViewSet):
    # Filtering and ordering come from each model's FilterSet (its `ordering` parameter).
    lookup_field = "slug"
    permission_classes = [AllowAny]  # the catalog is public
    lookup_value_regex = SLUG_PATTERN


class AcceleratorViewSet(_CatalogViewSet):
    """Accelerators (GPUs, NPUs) with dense peak rates and datasheet sources."""

    queryset = Accelerator.objects.order_by("vendor", "name")
    serializer_class = AcceleratorSerializer
    filterset_class = AcceleratorFilterSet


class ServerPlatformViewSet(_CatalogViewSet):
    """Servers and rack-scale systems that hold accelerators."""

    queryset = ServerPlatform.objects.select_related("fixed_accelerator").order_by("name")
    serializer_class = ServerPlatformSerializer
    filterset_class = ServerPlatformFilterSet


class FabricViewSet(_CatalogViewSet):
    """Scale-out networks: InfiniBand, RoCE, Ethernet."""

    queryset = Fabric.objects.order_by("port_gbps", "name")
    serializer_class = FabricSerializer
    filterset_class = FabricFilterSet


class ModelArchitectureViewSet(_CatalogViewSet):
    """Transformer model shapes the estimates are computed from."""

    queryset = ModelArchitecture.objects.order_by("family", "params")
    serializer_class = ModelArchitectureSerializer
    filterset_class = ModelArchitectureFilterSet
