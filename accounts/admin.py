from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.models import ApiToken, Profile, Team
from accounts.services import user_unlock

User = get_user_model()
admin.site.unregister(User)


@admin.register(User)
class FlopfitUserAdmin(UserAdmin):
    actions = ["unlock"]

    @admin.action(description=_("Unlock: forget failed sign-ins"))
    def unlock(self, request, queryset) -> None:
        usernames = list(queryset.values_list("username", flat=True))
        for username in usernames:
            user_unlock(username=username)
        self.message_user(
            request,
            ngettext(
                "%(count)d account may sign in again.",
                "%(count)d accounts may sign in again.",
                len(usernames),
            )
            % {"count": len(usernames)},
            messages.SUCCESS,
        )


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ("user", "team")
    list_filter = ("team",)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "prefix", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("user", "prefix", "digest", "created_at", "last_used_at")
