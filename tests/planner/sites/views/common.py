"""Forms and files the facility page tests share."""

from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from planner.choices import Visibility
from planner.models import Site
from planner.sites.services import CSV_COLUMNS

HTMX = {"HTTP_HX_REQUEST": "true"}
SITE_FORM = {
    "name": "Shanghai DC2",
    "location": "Shanghai, Pudong",
    "visibility": Visibility.TEAM,
    "currency": "CNY",
    "electricity_price_per_kwh": "0.65",
    "pue": "1.3",
    "notes": "",
}
RACK_FORM = {
    "name": "Row B",
    "count": "4",
    "power_kw": "30",
    "feeds": "2n",
    "cooling_kw": "35",
    "cooling": "rdhx",
    "units": "42",
    "max_kg": "1200",
    "inlet_c": "24",
}  # liquid_loops left unticked, no fabrics
HEADER = ",".join(CSV_COLUMNS)
GOOD_CSV = (
    f"{HEADER}\n"
    "Row B,4,30,2n,35,rdhx,42,1200,24,false,\n"
    "Row C,2,120,2n,120,liquid,48,2000,30,true,\n"
).encode()


def upload(data: bytes, name: str = "racks.csv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="text/csv")


def import_url(site: Site) -> str:
    return reverse("planner:rack_import", args=[site.pk])
