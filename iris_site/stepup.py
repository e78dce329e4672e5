"""Step-up: a recent re-authentication before an irreversible member action.

Forgetting a memory, a category, a person, a conversation or a notebook, and the full
clear, are irreversible. A stolen session or a leaked long-lived token must not be
enough for them, so each needs the member to have entered their password within
`IRIS_STEP_UP_SECONDS` (5 minutes by default):

- **On the page** the session keeps when the member last confirmed it was them
  (`SESSION_KEY`). A forgetting view that meets a POST without a recent one answers the
  "Confirm it's you" step instead (`step_up_page`): the same URL, the member's choices
  carried along as hidden fields, one password field; submitting it records the
  re-authentication and performs the action they asked for. Nothing is lost and no
  script is needed. The full clear and the data-rights erasure ask for the password on
  their own form (`PasswordConfirmForm`, this one mechanism), which counts as a step-up.
- **Over the API** a member mints a step-up token with their password
  (`POST /api/v1/me/tokens/step-up/`, throttled as sign-in is): a token with
  `reauthenticated_at` set, which authenticates nothing once the window has passed
  (`iris_site.auth.bearer_principal`). The forgetting endpoints refuse any other caller
  with 403 `reauthentication-required` (`require_api_step_up`); a session-authenticated
  API call (the pages' own) uses the session's step-up.
- **Surfaces** (service clients) never forget on a member's behalf: the member-only
  endpoints refuse them, and the notebook surface's own close and delete are refused
  (`member-forgetting-only`).
"""

from datetime import datetime, timedelta

from django import forms
from django.conf import settings
from django.contrib.auth import authenticate
from django.shortcuts import render
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse

from iris_site.api.schema import ERROR_DESCRIPTIONS, ErrorEnvelopeSerializer, error_responses
from iris_site.errors import DomainError
from iris_site.models import ApiToken

SESSION_KEY = "iris_reauthenticated_at"
REAUTHENTICATION_REQUIRED = "reauthentication-required"
MEMBER_FORGETTING_ONLY = "member-forgetting-only"
# The confirm step's password field, prefixed so that it never meets an action's own.
PREFIX = "step_up"


def step_up_window() -> timedelta:
    return timedelta(seconds=settings.IRIS_STEP_UP_SECONDS)


def is_recent(moment: datetime | None, *, now: datetime | None = None) -> bool:
    if moment is None:
        return False
    now = now or timezone.now()
    return now - step_up_window() <= moment <= now


class PasswordConfirmForm(forms.Form):
    """Step-up: the member re-enters their password. The one form every irreversible
    action asks with (the full clear, the data-rights erasure, the confirm step)."""

    password = forms.CharField(
        label="Your password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def __init__(self, *args, user, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if authenticate(username=self.user.email, password=password) is None:
            raise forms.ValidationError("That password is not right.")
        return password


# --- the page --------------------------------------------------------------------------------


def mark_stepped_up(request) -> None:
    """The member just entered their password on a page of this session."""
    request.session[SESSION_KEY] = timezone.now().isoformat()


def session_stepped_up(request) -> bool:
    session = getattr(request, "session", None)
    raw = session.get(SESSION_KEY) if session is not None else None
    if not raw:
        return False
    try:
        moment = datetime.fromisoformat(raw)
    except (TypeError, ValueError):
        return False
    return is_recent(moment)


def step_up_page(request, *, action: str):
    """None when this POST may go ahead (a recent step-up in the session, or a right
    password given on the confirm step just now, which is then recorded); else the
    "Confirm it's you" page, which posts the same choices back with the password.
    Wrong passwords count against the sign-in budget of the client's address."""
    from iris_site.api.throttles import LoginRateThrottle
    from iris_site.middleware import too_many_attempts_response

    if request.method != "POST" or session_stepped_up(request):
        return None
    given = f"{PREFIX}-password" in request.POST
    form = PasswordConfirmForm(request.POST if given else None, user=request.user, prefix=PREFIX)
    if given:
        throttle = LoginRateThrottle()
        if not throttle.allow_request(request, None):
            return too_many_attempts_response(request, throttle.wait())
        if form.is_valid():
            mark_stepped_up(request)
            return None
    carried = [
        (name, value)
        for name, values in request.POST.lists()
        if name not in ("csrfmiddlewaretoken", f"{PREFIX}-password")
        for value in values
    ]
    return render(
        request,
        "registration/step_up.html",
        {
            "form": form,
            "action": action,
            "carried": carried,
            "minutes": max(1, settings.IRIS_STEP_UP_SECONDS // 60),
        },
        status=403,
    )


# --- the API ---------------------------------------------------------------------------------


class StepUpRequired(DomainError):
    status_code = 403
    code = REAUTHENTICATION_REQUIRED
    default_message = (
        "This cannot be undone: use a step-up token, minted with your password at "
        "POST /api/v1/me/tokens/step-up/ within the last few minutes."
    )


class MemberForgettingOnly(DomainError):
    status_code = 403
    code = MEMBER_FORGETTING_ONLY
    default_message = (
        "Only the member forgets their memory, from their own pages or API with a recent "
        "re-authentication; a surface cannot forget on their behalf."
    )


def api_stepped_up(request) -> bool:
    """A member token minted with a recent re-authentication, or, for the pages' own
    session-authenticated calls, the session's step-up."""
    user = getattr(request, "user", None)
    if user is None or not getattr(user, "is_member", False):
        return False
    token = getattr(request, "auth", None)
    if isinstance(token, ApiToken):
        return token.user_id == user.pk and is_recent(token.reauthenticated_at)
    return token is None and session_stepped_up(request)


def require_api_step_up(request) -> None:
    if not api_stepped_up(request):
        raise StepUpRequired


def step_up_responses(*statuses: int) -> dict[int, OpenApiResponse]:
    """`error_responses` with the 403 that names `reauthentication-required`."""
    responses = error_responses(*statuses)
    responses[403] = OpenApiResponse(
        ErrorEnvelopeSerializer,
        description=f"{ERROR_DESCRIPTIONS[403]} `{REAUTHENTICATION_REQUIRED}`: this "
        "irreversible action needs a member token minted with a recent re-authentication "
        "(`POST /api/v1/me/tokens/step-up/`), or a page session that confirmed the "
        "password within the last few minutes.",
    )
    return responses
