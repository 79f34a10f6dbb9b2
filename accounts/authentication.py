import hmac

from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions

from accounts.models import ApiToken
from accounts.services import TOKEN_PREFIX_LEN, token_digest


class ApiTokenAuthentication(authentication.BaseAuthentication):
    """`Authorization: Token <key>` against the hashed keys users create on their profile."""

    keyword = "Token"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed(
                _("Give the token after 'Token ', with no spaces.")
            )
        try:
            key = header[1].decode()
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed(_("Invalid token.")) from None
        token = (
            ApiToken.objects.select_related("user")
            .filter(prefix=key[:TOKEN_PREFIX_LEN], revoked_at__isnull=True)
            .first()
        )
        if (
            token is None
            or not hmac.compare_digest(token.digest, token_digest(key))
            or not token.user.is_active
        ):
            raise exceptions.AuthenticationFailed(_("Invalid or revoked token."))
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
        return token.user, token

    def authenticate_header(self, request) -> str:
        return self.keyword
