from django.urls import path

from planner.api import views

urlpatterns = [
    path("estimates/", views.EstimateView.as_view(), name="estimate-api"),
]
