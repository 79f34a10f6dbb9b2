"""The calibration pages: the list of profiles with an upload form for a flopfit-probe report,
and one page per profile that sets what the probe measured beside the datasheet and the
engine's defaults, as tables and charts.

Every write goes through `planner.calibrations.calibration_create` (the API and `manage.py
calibrate` call the same service). Anyone signed in reads their team's profiles and those the
command stored without a team; planners and admins upload (403 for the others); another team's
profile is a 404."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods
from django.views.decorators.vary import vary_on_headers

from accounts.roles import Role, has_role
from accounts.services import user_team
from planner.calibrations.forms import CalibrationUploadForm
from planner.calibrations.selectors import calibration_visible_to
from planner.calibrations.services import calibration_create
from planner.compat.services import probe_check
from planner.engine import RequestError
from planner.messages.render import error_line
from planner.models import CalibrationProfile
from planner.web.lists import list_page, render_list
from planner.web.roles import require_role

MATMUL_SUFFIX = " matrix multiply"
TRAINING_PREFIX = "training step "


# --- the profile as the page shows it ------------------------------------------------------


def _figure_label(figure: str) -> str:
    """The engine names its rows in English; the page says the same in the reader's language."""
    if figure.endswith(MATMUL_SUFFIX):
        precision = figure.removesuffix(MATMUL_SUFFIX)
        return _("%(precision)s matrix multiply") % {"precision": precision}
    if figure.startswith("memory bandwidth"):
        return _("Memory bandwidth (copy, read + write)")
    if figure.startswith("all-reduce"):
        return _("All-reduce bus bandwidth")
    if figure.startswith(TRAINING_PREFIX):
        name = figure.removeprefix(TRAINING_PREFIX).strip("'")
        return _("Training step “%(name)s”") % {"name": name}
    return figure


def _share(measured: Any, base: Any) -> float | None:
    if not measured or not base:
        return None
    return 100 * measured / base


def _rows(derived: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    kernels, steps = [], []
    for row in derived.get("rows", []):
        shown = {
            **row,
            "label": _figure_label(row["figure"]),
            "percent_of_datasheet": _share(row["measured"], row.get("datasheet")),
            "percent_of_engine": _share(row["measured"], row.get("engine")),
            "used": row.get("used", True),
        }
        (steps if row["figure"].startswith(TRAINING_PREFIX) else kernels).append(shown)
    return {"kernel_rows": kernels, "step_rows": steps}


def _factors(calibration: dict[str, Any]) -> list[dict[str, Any]]:
    """Each factor as a percentage, with what it is a share of."""
    factors = [
        {
            "label": _("%(precision)s matrix multiply, share of the dense peak")
            % {"precision": precision},
            "percent": 100 * share,
        }
        for precision, share in calibration.get("gemm_efficiency", {}).items()
    ]
    if calibration.get("memory_bw_efficiency") is not None:
        factors.append(
            {
                "label": _("Memory bandwidth, share of the datasheet"),
                "percent": 100 * calibration["memory_bw_efficiency"],
            }
        )
    if calibration.get("scale_up_efficiency") is not None:
        factors.append(
            {
                "label": _("All-reduce bus bandwidth, share of the scale-up link"),
                "percent": 100 * calibration["scale_up_efficiency"],
            }
        )
    factors.append(
        {
            "label": _("End-to-end step efficiency, measured step against the kernels' prediction"),
            "percent": 100 * calibration.get("step_efficiency", 1.0),
        }
    )
    return factors


def _chart_data(kernel_rows: list[dict], step_rows: list[dict]) -> dict[str, Any]:
    matmul = [row for row in kernel_rows if row["figure"].endswith(MATMUL_SUFFIX)]
    return {
        "matmul": {
            "labels": [row["figure"].removesuffix(MATMUL_SUFFIX) for row in matmul],
            "measured": [row["measured"] for row in matmul],
            "datasheet": [row["datasheet"] for row in matmul],
            "engine": [row["engine"] for row in matmul],
        },
        "training": {
            "labels": [row["label"] for row in step_rows],
            "measured": [row["measured"] for row in step_rows],
            "engine": [row["engine"] for row in step_rows],
            "calibrated": [row.get("calibrated") for row in step_rows],
        },
    }


def _chart_labels() -> dict[str, str]:
    """The charts' titles and axes, translated here so the script holds no text of its own."""
    return {
        "measured": _("Measured"),
        "datasheet": _("Datasheet"),
        "engine": _("Engine default"),
        "calibrated": _("Calibrated engine"),
        "tflops": _("Rate (TFLOP/s)"),
        "precision": _("Precision"),
        "tokensPerS": _("Throughput (tokens/s)"),
        "step": _("Training step"),
    }


def _device(probe: dict[str, Any]) -> dict[str, Any]:
    device = probe.get("device") or {}
    software = probe.get("software") or {}
    return {
        "name": device.get("name"),
        "memory_gib": device.get("memory_gib"),
        "count": device.get("count"),
        "driver": device.get("driver_version"),
        "cuda": software.get("cuda"),
        "torch": software.get("torch"),
        "python": software.get("python"),
        "sm_clock_max_mhz": device.get("clocks.max.sm"),
        "sm_clock_after_mhz": device.get("clocks.sm_after"),
        "memory_clock_mhz": device.get("clocks.mem"),
        "power_limit_w": device.get("power.limit"),
        "created": probe.get("created"),
    }


def _detail_context(profile: CalibrationProfile) -> dict[str, Any]:
    context: dict[str, Any] = {"profile": profile, "device": _device(profile.probe)}
    # The report records the driver, the PyTorch build and the compute capability: check them.
    context["compat"] = probe_check(probe=profile.probe)
    if profile.derived:
        rows = _rows(profile.derived)
        context.update(rows)
        context["factors"] = _factors(profile.derived["calibration"])
        context["chart_data"] = _chart_data(rows["kernel_rows"], rows["step_rows"])
        context["chart_labels"] = _chart_labels()
    return context


# --- pages ---------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def calibration_list(request):
    can_upload = has_role(request.user, Role.PLANNER)
    if request.method == "POST":
        require_role(request.user)
        if user_team(request.user) is None:
            # A profile belongs to a team; an account outside every team cannot own one.
            raise PermissionDenied
        form = CalibrationUploadForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                profile = calibration_create(
                    probe=form.cleaned_data["file"],
                    name=form.cleaned_data["name"],
                    user=request.user,
                    team=user_team(request.user),
                )
            except RequestError as exc:
                form.add_error("file", error_line(exc))
            else:
                messages.success(request, _("The probe report was stored."))
                return redirect(profile)
    else:
        form = CalibrationUploadForm()
    page, query = list_page(request, calibration_visible_to(request.user))
    context = {"page": page, "query": query, "form": form, "can_upload": can_upload}
    return render_list(request, "planner/calibrations/calibration_list.html", context)


@require_GET
def calibration_detail(request, pk: int):
    profile = get_object_or_404(calibration_visible_to(request.user), pk=pk)
    return render(request, "planner/calibrations/calibration_detail.html", _detail_context(profile))
