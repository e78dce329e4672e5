"""Who may open a console page: an operator with a role, and where a page says so, one
of the roles it names. Pages never decide access by what the request says."""

from collections.abc import Callable, Iterable
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied

from iris_site.permissions import IsOperator


def operator_role(user) -> str:
    profile = getattr(user, "operator_profile", None)
    return profile.role if profile is not None else ""


def console_page(*, roles: Iterable[str] | None = None) -> Callable:
    """Sign-in required; then an operator with a role (`roles`: one of these), else 403.
    An operator without a role (a bare superuser) has no tenant binding: refused."""
    allowed = frozenset(roles) if roles is not None else None

    def decorate(view):
        @login_required
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            if not IsOperator().has_permission(request, None):
                raise PermissionDenied
            if allowed is not None and operator_role(request.user) not in allowed:
                raise PermissionDenied
            return view(request, *args, **kwargs)

        return wrapped

    return decorate
