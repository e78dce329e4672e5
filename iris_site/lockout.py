"""Sign-in lockout (django-axes): failures per username and client IP, then a cool-off."""

from axes.backends import AxesStandaloneBackend
from axes.helpers import get_cool_off

from iris_site.middleware import too_many_attempts_response


class LoginLockoutBackend(AxesStandaloneBackend):
    """Refuses a locked-out username+IP before the password is even checked.

    A call without a request (the test client's `login()`, a shell) has no client
    address to lock out, so it is left to the next backend instead of failing.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username, password, **kwargs)


def lockout_response(request, original_response=None, credentials=None):
    """429 and the sign-in page's look, with `Retry-After` set to the cool-off."""
    cool_off = get_cool_off(request)
    wait = cool_off.total_seconds() if cool_off else None
    return too_many_attempts_response(request, wait, locked_out=True)
