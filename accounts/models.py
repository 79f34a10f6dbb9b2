from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class Team(models.Model):
    """A group of people who share sites and plans; other teams cannot see private ones."""

    name = models.CharField(_("name"), max_length=80, unique=True)
    slug = models.SlugField(_("slug"), max_length=80, unique=True)

    class Meta:
        verbose_name = _("team")
        verbose_name_plural = _("teams")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Profile(models.Model):
    """Which team a user works for."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    team = models.ForeignKey(
        Team, on_delete=models.PROTECT, related_name="members", verbose_name=_("team")
    )

    class Meta:
        verbose_name = _("profile")
        verbose_name_plural = _("profiles")

    def __str__(self) -> str:
        return f"{self.user} ({self.team})"


class ApiToken(models.Model):
    """A personal API key. Only a SHA-256 digest is stored; the key is shown once, at creation.
    The first characters (`prefix`) find the row without revealing the key."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(
        _("name"), max_length=80, help_text=_("What the key is for, e.g. procurement script")
    )
    prefix = models.CharField(_("prefix"), max_length=12, unique=True)
    digest = models.CharField(_("digest"), max_length=64)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(digest__regex=r"^[0-9a-f]{64}$"), name="apitoken_digest_is_sha256"
            ),
            models.CheckConstraint(condition=~Q(name=""), name="apitoken_has_name"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def active(self) -> bool:
        return self.revoked_at is None
