from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.roles import roles_of
from accounts.services import token_create, token_revoke, user_team


@require_GET
def profile(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "accounts/profile.html",
        {
            "roles": sorted(roles_of(request.user)),
            "team": user_team(request.user),
            "tokens": request.user.api_tokens.all(),
            "new_key": request.session.pop("new_api_key", None),
        },
    )


@require_POST
def token_new(request: HttpRequest) -> HttpResponse:
    name = request.POST.get("name", "").strip()
    if not name or len(name) > 80:
        messages.error(request, _("Name the key (up to 80 characters), e.g. procurement script."))
        return redirect("accounts:profile")
    _token, key = token_create(user=request.user, name=name)
    # Shown once on the next page view, then gone: only its digest is stored.
    request.session["new_api_key"] = key
    return redirect("accounts:profile")


@require_POST
def token_delete(request: HttpRequest, token_id: int) -> HttpResponse:
    if token_revoke(user=request.user, token_id=token_id):
        messages.success(request, _("The key was revoked; requests with it now fail."))
    else:
        messages.error(request, _("No such active key."))
    return redirect("accounts:profile")


def locked_out(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    """What django-axes answers a sign-in to a locked-out account (AXES_LOCKOUT_CALLABLE), on the
    site's login and the admin's: 429, saying for how long and who can unlock it."""
    minutes = max(1, round(settings.FLOPFIT_LOGIN_LOCKOUT_S / 60))
    return render(request, "registration/locked_out.html", {"lockout_minutes": minutes}, status=429)
