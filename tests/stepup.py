"""Step-up for tests (issue 42, item 5): forgetting needs a recent re-authentication, so
a test that forgets says so, the way a member would have done it:

- `step_up(client)`: this page session confirmed the password just now (what the
  "Confirm it's you" step records);
- `step_up_client(member)`: an API client holding a step-up token minted just now (what
  `POST /api/v1/me/tokens/step-up/` returns);
- `step_up_token(member)`: the raw step-up token, for real HTTP.

Nothing here weakens the rule: a client without it is refused, as a stolen one would be.
"""

from django.utils import timezone
from rest_framework.test import APIClient

from iris_site.api.step_up import token_issue_step_up
from iris_site.stepup import SESSION_KEY


def step_up(client):
    """Record a password confirmation just now in this (signed-in) test client's session."""
    session = client.session
    session[SESSION_KEY] = timezone.now().isoformat()
    session.save()
    return client


def step_up_token(member) -> str:
    _, raw = token_issue_step_up(member=member)
    return raw


def step_up_client(member) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {step_up_token(member)}")
    return client
