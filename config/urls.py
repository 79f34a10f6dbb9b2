from csp.decorators import csp_update
from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from catalog import views as catalog_views
from config import health, metrics

# The API's documentation pages start from an inline script: the policy they need on top of the
# pages' (settings.FLOPFIT_CSP_API_DOCS).
api_docs_csp = csp_update(settings.FLOPFIT_CSP_API_DOCS)

urlpatterns = [
    path("", catalog_views.home, name="home"),
    path("catalog/", include("catalog.urls")),
    path("", include("planner.urls")),
    path("currency/", catalog_views.set_currency, name="set_currency"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("accounts/", include("accounts.urls")),
    path("admin/", admin.site.urls),
    path("api/v1/", include("catalog.api.urls")),
    path("api/v1/", include("planner.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path(
        "api/docs/",
        api_docs_csp(SpectacularSwaggerView.as_view(url_name="schema")),
        name="swagger-ui",
    ),
    path("api/redoc/", api_docs_csp(SpectacularRedocView.as_view(url_name="schema")), name="redoc"),
    # Probes and scrapes: plain views, outside the API schema, login and throttling.
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", metrics.metrics_view, name="metrics"),
]
