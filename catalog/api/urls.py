from rest_framework.routers import DefaultRouter

from catalog.api import views

router = DefaultRouter()
router.register("accelerators", views.AcceleratorViewSet, basename="accelerator")
router.register("servers", views.ServerPlatformViewSet, basename="server")
router.register("fabrics", views.FabricViewSet, basename="fabric")
router.register("models", views.ModelArchitectureViewSet, basename="model")

urlpatterns = router.urls
