"""The CSV import pages' shared parts: the upload form, the upload kept between the preview and
"Import", and the preview's rows as the template shows them.

An import is two requests. The first uploads the file and shows every row checked, nothing
saved; the second, "Import N rows", names the upload by a random token and saves it all or
nothing. Between the two the upload waits in the session with what its preview showed (the
versions of the rows it would overwrite), so the import can refuse when they changed."""

from __future__ import annotations

import base64
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from planner.csv_import import CSV_MAX_BYTES, CsvPreview
from planner.versioning import ConflictError, StaleVersionError

# Each pending upload is at most CSV_MAX_BYTES; only the newest few are kept so the session
# stays small.
MAX_PENDING_IMPORTS = 3


class CsvUploadForm(forms.Form):
    """The upload of one CSV file; a feature's subclass names the `columns` its file has, in
    the order the page shows them."""

    columns: Sequence[str] = ()

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


@dataclass(frozen=True)
class CsvImportFlow:
    """One feature's CSV import, upload -> preview -> "Import N rows", on one page.

    The feature names its page (`template`, the upload form with the file's columns), where
    uploads wait, and what the page says when the rows changed between the preview and the
    import (`changed_error`); each request brings who the upload is for and how a file is
    checked and saved."""

    template: str
    form_class: type[CsvUploadForm]
    uploads: PendingUploads
    changed_error: Any  # lazily translated: shown in the request's language
    # Said once the rows are saved: an ngettext_lazy whose number is `%(count)d`, the rows
    # imported; its other values come from the request's `said`.
    imported_message: Any

    def respond(
        self,
        request: HttpRequest,
        *,
        owner: str,
        context: Callable[[CsvPreview | None], dict[str, Any]],
        check: Callable[[bytes], CsvPreview],
        save: Callable[[bytes, dict[str, Any]], CsvPreview],
        back: Any,
        said: Callable[[CsvPreview], dict[str, Any]] = lambda result: {},
    ) -> HttpResponse:
        """GET shows the upload form; a POSTed file is checked and previewed, nothing saved; a
        POSTed token imports the upload it names, all of it or none, and goes `back` saying
        `imported_message` with the count and `said(result)`."""
        page = _ImportPage(self, request, context)
        if request.method == "GET":
            return page()
        if "token" in request.POST:
            result = self._commit(request, page, owner=owner, save=save)
            if isinstance(result, HttpResponse):
                return result
            values = {"count": len(result.rows), **said(result)}
            messages.success(request, self.imported_message % values)
            return redirect(back)
        form = self.form_class(request.POST, request.FILES)
        if not form.is_valid():
            return page(form=form)
        data = form.cleaned_data["file"].read()
        preview = check(data)
        token = (
            self.uploads.store(request, owner=owner, data=data, versions=preview.versions)
            if preview.ok
            else None
        )
        return page(preview=preview, token=token)

    def _commit(self, request, page, *, owner, save) -> HttpResponse | CsvPreview:
        """The saved rows, or the page saying why nothing was saved."""
        pending = self.uploads.take(request, owner=owner, token=request.POST["token"])
        if pending is None:
            return page(
                error=_("This upload has expired or was already imported; upload the file again."),
                status=400,
            )
        data, versions = pending
        try:
            result = save(data, versions)
        except (ConflictError, StaleVersionError, ValidationError):
            # The rows changed between the preview and the import: importing now would
            # overwrite what the preview did not show.
            return page(error=self.changed_error, status=409)
        if not result.ok:
            return page(preview=result)
        return result


@dataclass(frozen=True)
class _ImportPage:
    flow: CsvImportFlow
    request: HttpRequest
    context: Callable[[CsvPreview | None], dict[str, Any]]

    def __call__(
        self,
        *,
        form: CsvUploadForm | None = None,
        preview: CsvPreview | None = None,
        token: str | None = None,
        error: Any = None,
        status: int = 200,
    ) -> HttpResponse:
        columns = self.flow.form_class.columns
        return render(
            self.request,
            self.flow.template,
            {
                **self.context(preview),
                "form": form or self.flow.form_class(),
                "preview": preview,
                "rows": preview_rows(preview, columns) if preview else [],
                "bad_rows": preview.bad_rows if preview else 0,
                "token": token,
                "error": error,
                "columns": columns,
            },
            status=status,
        )
