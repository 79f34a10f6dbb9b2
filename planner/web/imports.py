"""The CSV import pages' shared parts: the upload form, the upload kept between the preview and
"Import", and the preview's rows as the template shows them.

An import is two requests. The first uploads the file and shows every row checked, nothing
saved; the second, "Import N rows", names the upload by a random token and saves it all or
nothing. Between the two the upload waits in the session with what its preview showed (the
versions of the rows it would overwrite), so the import can refuse when they changed."""

from __future__ import annotations

import base64
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from planner.csv_import import CSV_MAX_BYTES, CsvPreview

# Each pending upload is at most CSV_MAX_BYTES; only the newest few are kept so the session
# stays small.
MAX_PENDING_IMPORTS = 3


class CsvUploadForm(forms.Form):
    file = forms.FileField(
        label=_("CSV file"), widget=forms.FileInput(attrs={"accept": ".csv,text/csv"})
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["file"].help_text = gettext(
            "UTF-8, comma separated, with a header row; at most %(kib)d KiB."
        ) % {"kib": CSV_MAX_BYTES // 1024}

    def clean_file(self):
        upload = self.cleaned_data["file"]
        # Checked from the upload's size, before the view reads it into memory.
        if upload.size > CSV_MAX_BYTES:
            raise ValidationError(
                _("The file is %(size)d KiB; the limit is %(limit)d KiB."),
                code="too_big",
                params={"size": upload.size // 1024, "limit": CSV_MAX_BYTES // 1024},
            )
        return upload


class PendingUploads:
    """Uploads waiting for "Import", in the session under `session_key`, each tied to the
    owner it was checked for (a site, a team's price book) and taken at most once."""

    def __init__(self, session_key: str, *, keep: int = MAX_PENDING_IMPORTS):
        self.session_key = session_key
        self.keep = keep

    def store(
        self, request: HttpRequest, *, owner: str, data: bytes, versions: Mapping[str, Any]
    ) -> str:
        """Keep the upload and the versions its preview showed; the token names it."""
        pending = dict(request.session.get(self.session_key, {}))
        while len(pending) >= self.keep:  # oldest first: dicts keep insertion order
            pending.pop(next(iter(pending)))
        token = secrets.token_urlsafe(24)
        pending[token] = {
            "owner": owner,
            "data": base64.b64encode(data).decode("ascii"),
            "versions": dict(versions),
        }
        request.session[self.session_key] = pending
        return token

    def take(
        self, request: HttpRequest, *, owner: str, token: str
    ) -> tuple[bytes, dict[str, Any]] | None:
        """The upload saved under `token` for `owner` and the versions its preview showed,
        removed so it imports at most once; None when there is no such upload."""
        pending = dict(request.session.get(self.session_key, {}))
        entry = pending.get(token)
        if entry is None or entry.get("owner") != owner or "versions" not in entry:
            return None
        del pending[token]
        request.session[self.session_key] = pending
        return base64.b64decode(entry["data"]), entry["versions"]


def preview_rows(preview: CsvPreview, columns: Sequence[str]) -> list[dict[str, Any]]:
    """Each row's cells in column order, with the cells at fault marked, for the template."""
    return [
        {
            "line": row.line,
            "ok": row.ok,
            "cells": [
                {"value": row.values.get(column, ""), "bad": column in row.errors}
                for column in columns
            ],
            "problems": [
                {"field": field, "messages": messages} for field, messages in row.errors.items()
            ],
        }
        for row in preview.rows
    ]
