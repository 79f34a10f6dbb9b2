from rest_framework.routers import DefaultRouter

from planner.prices.api.views import PriceViewSet

router = DefaultRouter()
router.register("prices", PriceViewSet, basename="price")
urlpatterns = router.urls
