"""API authentication: `Authorization: Bearer <token>` for members, operators and surfaces."""

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from iris_site.models import ApiToken
from iris_site.stepup import is_recent
from iris_site.tokens import token_digest

# Writing last_used_at on every request would turn reads into writes; a minute is enough
# to tell an owner whether a token is in use.
LAST_USED_RESOLUTION_SECONDS = 60


# Relations of a principal every authenticated request reads, loaded with its token in
# one statement. An app above the foundation registers its own in its `ready` (memory: a
# service client's capabilities), so the foundation names none of them.
_PRINCIPAL_RELATIONS: list[str] = ["user", "service_client"]


def principal_relation_register(path: str) -> None:
    """Load ``path`` (an ORM `select_related` path from the token) with every token."""
    if path not in _PRINCIPAL_RELATIONS:
        _PRINCIPAL_RELATIONS.append(path)


def bearer_principal(raw: str) -> tuple[object, ApiToken] | None:
    """The active member, operator or service client a raw bearer token belongs to, with
    its token row; None for an unknown, revoked or inactive one. The REST API and the MCP
    server (`interfaces.mcp`) both authenticate through this."""
    token = (
        ApiToken.objects.select_related(*_PRINCIPAL_RELATIONS)
        .filter(digest=token_digest(raw), revoked_at__isnull=True)
        .first()
    )
    principal = None
    if token is not None:
        principal = token.user if token.user_id else token.service_client
    if principal is None or not principal.is_active:
        return None
    if token.reauthenticated_at is not None and not is_recent(token.reauthenticated_at):
        return None  # a step-up token lives for the step-up window only
    now = timezone.now()
    if (
        token.last_used_at is None
        or (now - token.last_used_at).total_seconds() > LAST_USED_RESOLUTION_SECONDS
    ):
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return principal, token


class BearerTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Malformed Authorization header.")
        try:
            raw = header[1].decode("ascii")
        except UnicodeDecodeError as exc:
            raise exceptions.AuthenticationFailed("Malformed bearer token.") from exc
        authenticated = bearer_principal(raw)
        if authenticated is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        return authenticated

    def authenticate_header(self, request) -> str:
        return self.keyword


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "iris_site.auth.BearerTokenAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer"}
