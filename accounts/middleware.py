from django.contrib.auth.middleware import LoginRequiredMiddleware as DjangoLoginRequired

# The API answers 401 itself (DRF); the admin has its own login; the language and currency
# switches, static files and health checks serve everyone.
PUBLIC_PREFIXES = ("/api/", "/admin/", "/i18n/", "/jsi18n/", "/static/")
# Probes and the metrics scrape (which has its own optional bearer token).
PUBLIC_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})


class LoginRequiredMiddleware(DjangoLoginRequired):
    """Django's LoginRequiredMiddleware, minus the paths that answer for themselves."""

    def process_view(self, request, view_func, view_args, view_kwargs):
        if request.path in PUBLIC_PATHS or request.path.startswith(PUBLIC_PREFIXES):
            return None
        return super().process_view(request, view_func, view_args, view_kwargs)
