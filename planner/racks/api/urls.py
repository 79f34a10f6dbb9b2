from rest_framework.routers import DefaultRouter

from planner.racks.api.views import EquipmentViewSet, PowerFeedViewSet, RackViewSet

router = DefaultRouter()
router.register("racks", RackViewSet, basename="rack")
router.register("equipment", EquipmentViewSet, basename="equipment")
router.register("power-feeds", PowerFeedViewSet, basename="power-feed")
urlpatterns = router.urls
