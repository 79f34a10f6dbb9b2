from rest_framework.routers import DefaultRouter

from planner.sites.api.views import RackGroupViewSet, SiteViewSet

router = DefaultRouter()
router.register("sites", SiteViewSet, basename="site")
router.register("rack-groups", RackGroupViewSet, basename="rack-group")
urlpatterns = router.urls
