from rest_framework.routers import DefaultRouter

from planner.racks.api.views import EquipmentViewSet, RackViewSet

router = DefaultRouter()
router.register("racks", RackViewSet, basename="rack")
router.register("equipment", EquipmentViewSet, basename="equipment")
urlpatterns = router.urls
