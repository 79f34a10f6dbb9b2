"""The compatibility page: one GET form, answered by `planner.compat.services`; works without
JavaScript, and htmx swaps only the answer when it is there."""

from __future__ import annotations

from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from planner.compat.forms import CompatForm
from planner.compat.services import compat_check
from planner.engine import RequestError
from planner.messages.render import error_message
from planner.web.htmx import partial_wanted

TEMPLATE = "planner/compat/compat.html"


@login_not_required
@require_GET
@vary_on_headers("HX-Request")
def compat(request: HttpRequest) -> HttpResponse:
    form = CompatForm(request.GET or None)
    answer = None
    if form.is_bound and form.is_valid():
        question = form.question()
        if question:
            try:
                answer = compat_check(data=question)
            except RequestError as exc:
                field = exc.field.replace("framework.version", "framework_version")
                field = field.replace("framework.name", "framework")
                field = field if field in form.fields else None
                form.add_error(field, error_message(exc))
    context = {"form": form, "answer": answer}
    if partial_wanted(request):
        return render(request, TEMPLATE + "#results", context)
    return render(request, TEMPLATE, context)
