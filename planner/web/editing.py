"""Edit forms that validate as people type and never overwrite a change they have not seen:
the inline check, the hidden version field, and what to show when someone saved first."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db.models import Model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from accounts.roles import Role
from planner.engine import RequestError
from planner.messages.render import error_line, error_message
from planner.versioning import ConflictError, StaleVersionError
from planner.web.history import shown_value
from planner.web.htmx import partial_wanted
from planner.web.roles import require_role, writer_team

# The inline validation posts the form with this flag: check and re-render, never save.
VALIDATE_FLAG = "_validate"

# htmx keeps elements marked hx-preserve (matched by id) when it swaps the re-rendered form in,
# so what a person types while a validation request is in flight is never overwritten.
PRESERVE = {"hx-preserve": "true"}


def preserve_inputs(form: forms.BaseForm) -> None:
    for field in form.fields.values():
        field.widget.attrs.update(PRESERVE)


# The hidden field an edit form carries: the version of the record it was opened on.
VERSION_FIELD = "version"


class EditsOneVersion:
    """An edit form remembers the version of the record it was opened on and hands it to the
    service, which refuses to save over a newer one. Create forms carry no version."""

    # After a refused save: where the saved record differs from the input (see site_views).
    changed_meanwhile: list[dict[str, str]] | None = None

    def _add_version_field(self) -> None:
        if self.instance.pk is None:
            return
        self.fields[VERSION_FIELD] = forms.IntegerField(
            widget=forms.HiddenInput, min_value=1, required=False, initial=self.instance.version
        )

    def _clean_version(self) -> None:
        if VERSION_FIELD not in self.fields:
            return
        version = self.cleaned_data.get(VERSION_FIELD)
        if VERSION_FIELD in self.errors or version is None:
            # A hidden field's error would be shown nowhere; say it above the form.
            self.errors.pop(VERSION_FIELD, None)
            self.add_error(
                None,
                _(
                    "This form does not say which version it edits; reload the page and make "
                    "your change again."
                ),
            )
            return
        self.instance.version = version

    def model_values(self) -> dict:
        """The cleaned values the service saves: everything but the version."""
        return {k: v for k, v in self.cleaned_data.items() if k != VERSION_FIELD}


def free_name(form, *, within: dict[str, Any], taken_message: str) -> str:
    """The form's `name`, trimmed, refused beside the field when another row of the same
    parent (`within`, e.g. {"site": site}) holds it; the database's unique constraint stays
    the last word in a race (save_form_write)."""
    name = form.cleaned_data["name"].strip()
    rows = type(form.instance).objects.filter(name=name, **within)
    if rows.exclude(pk=form.instance.pk).exists():
        raise ValidationError(taken_message, code="unique")
    return name


class NameFreeWithin:
    """A form of a record named once within its parent, the model field `NAME_WITHIN` (a rack
    within its "rack_group"): a taken name is refused beside the field with `NAME_TAKEN`, the
    sentence its page also says when the database catches a race (save_form_write)."""

    NAME_WITHIN: str
    NAME_TAKEN: Any

    def clean_name(self: Any) -> str:
        parent = getattr(self.instance, self.NAME_WITHIN)
        return free_name(self, within={self.NAME_WITHIN: parent}, taken_message=self.NAME_TAKEN)


class VersionedModelForm(EditsOneVersion, forms.ModelForm):
    """The form of a versioned row: what a person types survives the inline validation's
    re-render, and an edit carries the version it was opened on."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        preserve_inputs(self)
        self._add_version_field()

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        self._clean_version()
        return cleaned


def editable_row(user, editable_by: Callable[[Any], Any], pk: int, role: str = Role.PLANNER):
    """The row `pk` among those `editable_by(user)` returns: 403 for a role that does not write,
    404 for a row the user may not change."""
    require_role(user, role)
    return get_object_or_404(editable_by(user), pk=pk)


def apply_service_errors(form: forms.BaseForm, error: ValidationError) -> None:
    """Put a service's ValidationError beside the fields it names; the rest above the form."""
    for name, errors in error.message_dict.items():
        form.add_error(name if name in form.fields else None, errors)


def validating(request: HttpRequest) -> bool:
    return request.method == "POST" and request.POST.get(VALIDATE_FLAG) == "1"


def quiet_required_errors(form) -> None:
    """While someone is still filling the form in, the fields they have not reached yet are
    not errors: the inline check leaves out "required" on empty fields (Save still says it)."""
    for name in list(form.errors):
        if name in form.fields and all(e.code == "required" for e in form.errors[name].as_data()):
            del form.errors[name]


def render_form(request: HttpRequest, template: str, context: dict[str, Any]) -> HttpResponse:
    if validating(request):
        quiet_required_errors(context["form"])
        # An inline validation request gets the form partial alone; it replaces the form.
        if partial_wanted(request):
            template += "#form"
    return render(request, template, context)


def save_form_write(
    form, write, *, conflict_message: str, conflict_field: str = "name"
) -> Model | None:
    """Run a service write; its refusals land on the form instead of becoming a 500. A
    conflict (a value another row holds) shows beside `conflict_field`, or above the form."""
    try:
        return write()
    except ConflictError:
        form.add_error(conflict_field if conflict_field in form.fields else None, conflict_message)
    except ValidationError as exc:
        apply_service_errors(form, exc)
    except StaleVersionError as exc:
        show_newer_version(form, exc.current)
    return None


def apply_engine_error(form, exc: RequestError) -> None:
    """What the engine found wrong in a form's question: beside the field its path names (the
    form's `error_field`), or above the form as one line naming the path."""
    field = form.error_field(exc.field)
    form.add_error(field, error_message(exc) if field else error_line(exc))


def write_and_redirect(
    request: HttpRequest,
    form,
    write: Callable[[], Model],
    *,
    conflict_message: str,
    saved_message: str,
    conflict_field: str = "name",
) -> HttpResponse | None:
    """The end of a form page that writes through a service: a valid POST (not an inline
    validation) runs `write` (save_form_write); saved, the saved row's page with
    `saved_message`. None when the form is to be shown again, with what went wrong."""
    if request.method != "POST" or not form.is_valid() or validating(request):
        return None
    saved = save_form_write(
        form, write, conflict_message=conflict_message, conflict_field=conflict_field
    )
    if saved is None:
        return None
    messages.success(request, saved_message)
    return redirect(saved)


def bound_form(request: HttpRequest, form_class: type, row: Model | None = None, **kwargs: Any):
    """`form_class` bound to a POST (unbound on a GET), editing a copy of `row` when given, so
    the page heading keeps the saved row while errors show."""
    if row is not None:
        kwargs["instance"] = copy.copy(row)
    return form_class(request.POST if request.method == "POST" else None, **kwargs)


def record_form_page(
    request: HttpRequest,
    form,
    write: Callable[[], Model],
    *,
    template: str,
    record: Model | None,
    context: dict[str, Any],
    saved_message: str,
    conflict_message: str = "",
    conflict_field: str = "name",
) -> HttpResponse:
    """A record's form page: a valid POST writes through `write` and goes to the saved row
    (write_and_redirect); otherwise the form again, with `context`, and a warning while it
    was opened on an older version of `record` than the one saved now."""
    written = write_and_redirect(
        request,
        form,
        write,
        conflict_message=conflict_message,
        saved_message=saved_message,
        conflict_field=conflict_field,
    )
    return written or render_form(
        request,
        template,
        {**context, "form": form, "opened_on_older": opened_on_older_version(form, record)},
    )


def delete_and_redirect(
    request: HttpRequest,
    row: Model,
    delete: Callable[[], object],
    *,
    back: Any,
    out_of_date: str,
    stale: str,
    done: str,
) -> HttpResponse:
    """A delete (or remove) button's POST: it carries the version its page showed, since
    deleting a row someone changed after that would throw away a change the person never saw.
    Runs `delete` at that version and goes `back` saying `done`; says `out_of_date` when the
    post names no version, `stale` when someone changed the row since, and a service's
    refusal (a ValidationError) as it words it."""
    posted = request.POST.get(VERSION_FIELD, "")
    if not posted.isdigit():
        messages.error(request, out_of_date)
        return redirect(back)
    row.version = int(posted)  # type: ignore[attr-defined]
    try:
        delete()
    except StaleVersionError:
        messages.error(request, stale)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, done)
    return redirect(back)


@dataclass(frozen=True)
class FormPage:
    """A feature's form page of one versioned row, written through its services: the form
    (first view, inline validation, refusals beside their fields) or, once saved, the saved
    row's page. The page names the row `row_name` ("entry", "price"), as the services do;
    editing one, it warns while a newer version has been saved since it was opened."""

    template: str
    form_class: type
    row_name: str
    conflict_message: Any  # a conflict the database caught in a race (lazily translated)
    # The form offers choices of the row's team (its sites, its entries): it takes the user and
    # the team as keywords.
    team_form: bool = False

    def bound(self, request: HttpRequest, row: Model | None = None, **form_kwargs: Any):
        return bound_form(request, self.form_class, row, **form_kwargs)

    def create(
        self,
        request: HttpRequest,
        create: Callable[..., Model],
        saved_message: Any,
        *,
        context: dict[str, Any] | None = None,
        **form_kwargs: Any,
    ) -> HttpResponse:
        """A new row of the writer's team, through `create(team=, user=, **fields)`."""
        team = writer_team(request.user)
        form = self.bound(request, **self._for_team(request, team), **form_kwargs)
        return self.respond(
            request,
            form,
            lambda: create(team=team, user=request.user, **form.cleaned_data),
            saved_message,
            **{self.row_name: None, **(context or {})},
        )

    def edit(
        self,
        request: HttpRequest,
        row: Model,
        update: Callable[..., Model],
        saved_message: Any,
        *,
        update_names_writer: bool = False,
        context: dict[str, Any] | None = None,
        **form_kwargs: Any,
    ) -> HttpResponse:
        """Change `row` through `update(<row_name>=row, **fields)` (and `user=`, where the
        service names the writer). The form edits a copy, so the page heading keeps the saved
        row while errors show."""
        form = self.bound(request, row, **self._for_team(request, row.team), **form_kwargs)
        writer = {"user": request.user} if update_names_writer else {}
        return self.respond(
            request,
            form,
            lambda: update(**{self.row_name: form.instance}, **writer, **form.model_values()),
            saved_message,
            editing=row,
            **{self.row_name: row, **(context or {})},
        )

    def _for_team(self, request: HttpRequest, team: Any) -> dict[str, Any]:
        return {"user": request.user, "team": team} if self.team_form else {}

    def respond(
        self,
        request: HttpRequest,
        form,
        write: Callable[[], Model],
        saved_message: Any,
        *,
        editing: Model | None = None,
        **context: Any,
    ) -> HttpResponse:
        return record_form_page(
            request,
            form,
            write,
            template=self.template,
            record=editing,
            context=context,
            saved_message=saved_message,
            conflict_message=self.conflict_message,
        )


def show_newer_version(form, current: Model | None) -> None:
    """Someone saved the record after this form was opened. Nothing was written: the form keeps
    what the person typed, lists where the saved record now differs from it, and carries the
    newer version, so pressing Save again means "mine over theirs", knowingly."""
    noun = form.instance._meta.verbose_name
    if current is None:
        form.add_error(
            None,
            _(
                "Someone else deleted this %(noun)s while you were editing it, so it was not "
                "saved. Your input is still below."
            )
            % {"noun": noun},
        )
        return
    form.add_error(
        None,
        _(
            "Someone else saved this %(noun)s while you were editing it, so your changes were "
            "not saved yet. Their values are listed below beside yours, and your input is still "
            "in the form: check it and save again to keep yours."
        )
        % {"noun": noun},
    )
    form.changed_meanwhile = differences(form, current)
    form.data = form.data.copy()
    form.data[form.add_prefix(VERSION_FIELD)] = str(current.version)


def differences(form, current: Model) -> list[dict[str, str]]:
    """The fields where the saved record and the person's input disagree, as people read them."""
    rows = []
    for name, field in form.fields.items():
        if name == VERSION_FIELD or name not in form.cleaned_data:
            continue
        model_field = current._meta.get_field(name)
        if model_field.many_to_many:
            saved = sorted(str(obj) for obj in getattr(current, name).all())
            yours = sorted(str(obj) for obj in form.cleaned_data[name])
            if saved != yours:
                rows.append(
                    {
                        "label": field.label,
                        "saved": ", ".join(saved) or "—",
                        "yours": ", ".join(yours) or "—",
                    }
                )
            continue
        saved, yours = getattr(current, name), form.cleaned_data[name]
        if saved != yours:
            rows.append(
                {
                    "label": field.label,
                    "saved": shown_value(model_field, saved),
                    "yours": shown_value(model_field, yours),
                }
            )
    return rows


def opened_on_older_version(form, saved: Model | None) -> bool:
    """True when the form was opened on a version older than the one saved now: the page warns
    while the person is still typing (the inline validation re-renders it), before any Save."""
    if saved is None or not form.is_bound or VERSION_FIELD not in form.fields:
        return False
    posted = form.data.get(form.add_prefix(VERSION_FIELD), "")
    return posted.isdigit() and int(posted) < saved.version
