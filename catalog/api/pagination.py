"""The one pagination of every API list: numbered pages of 50, `page_size` up to 200."""

from django.utils.translation import gettext_lazy as _
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination


class CatalogPagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200

    def get_page_size(self, request) -> int:
        """The page size asked for, capped at max_page_size; 400 naming `page_size` when it is
        not a whole number of at least 1 (DRF would silently use the default)."""
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        if not raw.isascii() or not raw.isdigit() or int(raw) < 1:
            raise ValidationError(
                {self.page_size_query_param: [_("Must be a whole number of at least 1.")]}
            )
        # Past 9 digits it is over the cap anyway (and int() refuses 4,300 digits and more).
        return self.max_page_size if len(raw) > 9 else min(int(raw), self.max_page_size)
