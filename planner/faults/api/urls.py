from django.urls import path
from rest_framework.routers import DefaultRouter

from planner.faults.api.views import DiagnoseView, FaultEntryViewSet, FaultIncidentViewSet

router = DefaultRouter()
router.register("fault-entries", FaultEntryViewSet, basename="faultentry")
router.register("fault-incidents", FaultIncidentViewSet, basename="faultincident")
urlpatterns = [
    path("diagnose/", DiagnoseView.as_view(), name="diagnose"),
    *router.urls,
]
