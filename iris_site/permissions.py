"""Who may call an endpoint: members, operators (by role), or surfaces (by consumer);
and who may open a member's own pages (`member_required`)."""

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from rest_framework.permissions import BasePermission

from iris_site.enums import Consumer, OperatorRole


def _principal(request):
    user = getattr(request, "user", None)
    return user if user is not None and user.is_authenticated else None


class IsMember(BasePermission):
    message = "Only members may use this endpoint."

    def has_permission(self, request, view) -> bool:
        principal = _principal(request)
        return bool(principal and getattr(principal, "is_member", False))


class IsOperator(BasePermission):
    """Any operator; subclass with `roles` via `operator_with_roles` to narrow."""

    message = "Only operators may use this endpoint."
    roles: frozenset[str] = frozenset(OperatorRole.values)

    def has_permission(self, request, view) -> bool:
        principal = _principal(request)
        if not (principal and getattr(principal, "is_operator", False)):
            return False
        profile = getattr(principal, "operator_profile", None)
        return profile is not None and profile.role in self.roles


class IsPlatformOperator(IsOperator):
    """An operator bound to no tenant: for views over platform-wide state (the audit
    chain spans every tenant, so verifying it reveals counts beyond any one tenant)."""

    message = "Only platform operators (bound to no tenant) may use this endpoint."

    def has_permission(self, request, view) -> bool:
        return (
            super().has_permission(request, view)
            and request.user.operator_profile.tenant_id is None
        )


class IsServiceClient(BasePermission):
    """Any surface; subclass with `consumers` via `service_for` to narrow."""

    message = "Only assistant surfaces may use this endpoint."
    consumers: frozenset[str] = frozenset(Consumer.values)

    def has_permission(self, request, view) -> bool:
        principal = _principal(request)
        return bool(
            principal
            and getattr(principal, "is_service", False)
            and principal.consumer in self.consumers
        )


def operator_with_roles(*roles: str) -> type[IsOperator]:
    unknown = set(roles) - set(OperatorRole.values)
    if unknown:
        raise ValueError(f"unknown operator roles: {sorted(unknown)}")
    return type("IsOperatorWithRole", (IsOperator,), {"roles": frozenset(roles)})


def service_for(*consumers: str) -> type[IsServiceClient]:
    unknown = set(consumers) - set(Consumer.values)
    if unknown:
        raise ValueError(f"unknown consumers: {sorted(unknown)}")
    return type("IsServiceClientFor", (IsServiceClient,), {"consumers": frozenset(consumers)})


def member_required(view):
    """A page for signed-in members only: anyone else signs in first (`login_required`),
    and a signed-in operator is refused (403): operators manage nobody's memory or data
    rights on the member's own pages."""

    @login_required
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_member:
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return wrapper
