"""Issue 42, item 5: step-up before irreversible member actions, over real HTTP.

Why: "No step-up before forgetting one memory, a category or a person, on the page or
the API; only the full clear asks for the password. A stolen session forgets for good."

- A signed-in page session (the stolen one) that forgets a memory, a category or a
  person meets "Confirm it's you" and nothing is forgotten; with the password on that
  step the action it asked for goes ahead (its choices kept), and for a few minutes no
  other forgetting asks again.
- A member's ordinary (long-lived) token is refused 403 `reauthentication-required` on
  every forgetting endpoint; a step-up token minted with the password (throttled as
  sign-in) forgets, and stops authenticating once the window has passed.
- A surface cannot forget on the member's behalf: not the member endpoints, not the
  notebook surface's close or delete (`member-forgetting-only`), and MCP has no tool
  that forgets.
"""

import asyncio
import http.cookiejar
import re
import urllib.error
import urllib.parse
import urllib.request
from datetime import timedelta

import pytest
from django.utils import timezone

from iris_site.budgets import budget_key
from iris_site.models import ApiToken
from iris_site.services import token_issue
from memory.enums import EntityKind, Lifecycle
from memory.models import MemoryEntity, MemoryEntry
from tests.conftest import http_request
from tests.interfaces.test_mcp import _session, mcp_url  # noqa: F401 (the fixture)
from tests.iris_site.factories import PASSWORD, ServiceClientFactory
from tests.memory.factories import consenting_member, remember
from tests.stepup import step_up_token
from tests.trust.test_abuse import budget

pytestmark = pytest.mark.django_db(transaction=True)

ME = "/api/v1/me/"


class Browser:
    """A person's browser: cookies, the sign-in form, forms posted with their CSRF token."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def open(self, path: str, form: dict | list | None = None) -> tuple[int, str, str]:
        data = None
        if form is not None:
            pairs = list(form.items()) if isinstance(form, dict) else list(form)
            csrf = next(c.value for c in self.jar if c.name == "csrftoken")
            data = urllib.parse.urlencode([("csrfmiddlewaretoken", csrf), *pairs]).encode()
        request = urllib.request.Request(self.base + path, data=data)  # noqa: S310
        try:
            with self.opener.open(request, timeout=30) as response:
                return response.status, response.read().decode(), response.url
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(), error.url

    def sign_in(self, email: str) -> None:
        self.open("/accounts/login/")
        status, _, landed = self.open("/accounts/login/", {"username": email, "password": PASSWORD})
        assert status == 200 and "/accounts/login/" not in landed


def _state(entry) -> str:
    return MemoryEntry.objects.get(pk=entry.pk).lifecycle


def test_a_stolen_page_session_forgets_nothing_without_the_password(live_server):
    # given: a member with memories and a person, and a browser signed in as them
    member = consenting_member()
    coffee = remember(member, body="I take my coffee black").entry
    tea = remember(member, body="Green tea in the afternoon", subject="tea").entry
    kayak = remember(
        member,
        body="Lent me the blue kayak",
        category="relationship",
        multi_actor={"actor_name": "Quorvex7", "relationship_note": "old friend"},
    ).entry
    [person] = MemoryEntity.objects.filter(member=member, kind=EntityKind.PERSON)
    stolen = Browser(live_server.url)
    stolen.sign_in(member.email)

    # when: the session forgets one memory, a category and a person
    one = stolen.open(f"/profile/memory/{coffee.pk}/forget/", {})
    category = stolen.open(
        "/profile/memory/forget-category/", {"category": "preference", "confirm": "1"}
    )
    someone = stolen.open(f"/profile/memory/people/{person.pk}/forget/", {})
    wrong = stolen.open(
        f"/profile/memory/{coffee.pk}/forget/", {"step_up-password": "not-the-password"}
    )

    # then: each answers the confirm step, and nothing is forgotten
    for status, page, _ in (one, category, someone, wrong):
        assert status == 403
        assert "Confirm it&#x27;s you" in page or "Confirm it's you" in page
        assert 'name="step_up-password"' in page
        assert 'autocomplete="current-password"' in page
    assert 'name="category" value="preference"' in category[1]  # the choice is kept
    assert "That password is not right." in wrong[1]
    assert {_state(coffee), _state(tea), _state(kayak)} == {Lifecycle.ACTIVE}

    # when: the member confirms on that step (the category's choices carried along)
    status, _, landed = stolen.open(
        "/profile/memory/forget-category/",
        {"category": "preference", "confirm": "1", "step_up-password": PASSWORD},
    )
    # then: the category is forgotten, and the next forgetting does not ask again
    assert status == 200 and landed.endswith("/profile/memory/")
    assert _state(coffee) == _state(tea) == Lifecycle.TOMBSTONED
    status, _, _ = stolen.open(f"/profile/memory/people/{person.pk}/forget/", {})
    assert status == 200
    assert _state(kayak) == Lifecycle.TOMBSTONED


def test_the_page_step_up_lapses_after_its_window(live_server, settings):
    member = consenting_member()
    coffee = remember(member, body="I take my coffee black").entry
    browser = Browser(live_server.url)
    browser.sign_in(member.email)
    browser.open(f"/profile/memory/{coffee.pk}/forget/", {"step_up-password": "wrong"})
    settings.IRIS_STEP_UP_SECONDS = 0  # every confirmation is already too old
    status, _, _ = browser.open(f"/profile/memory/{coffee.pk}/forget/", {})
    assert status == 403
    assert _state(coffee) == Lifecycle.ACTIVE


FORGETTING = [
    ("POST", "memories/{entry}/forget/", None),
    ("POST", "memories/forget-category/", {"category": "preference"}),
    ("POST", "memories/forget/", {"ids": ["{entry}"]}),
    ("POST", "actors/quorvex7/forget/", None),
    ("POST", "entities/{person}/retire/", None),
    ("POST", "conversations/s-1/forget/", None),
    ("POST", "notebooks/nb-1/close/", None),
    ("DELETE", "notebooks/nb-1/", None),
    ("POST", "memories/clear/", None),
]


def _fill(value, **ids):
    if isinstance(value, str):
        return value.format(**ids)
    if isinstance(value, list):
        return [_fill(item, **ids) for item in value]
    if isinstance(value, dict):
        return {key: _fill(item, **ids) for key, item in value.items()}
    return value


def test_a_member_token_without_a_recent_reauthentication_forgets_nothing(live_server):
    # given: a member's ordinary token (leaked, say) and memories of every kind
    member = consenting_member()
    entry = remember(member, body="I take my coffee black").entry
    remember(
        member,
        body="Lent me the blue kayak",
        category="relationship",
        multi_actor={"actor_name": "Quorvex7", "relationship_note": "old friend"},
    )
    remember(member, body="Plans for the trip", scope={"kind": "notebook", "notebook_id": "nb-1"})
    [person] = MemoryEntity.objects.filter(member=member, kind=EntityKind.PERSON)
    _, leaked = token_issue(owner=member)
    ids = {"entry": entry.pk, "person": person.pk}
    # when / then: every forgetting endpoint refuses it, structured
    for method, path, body in FORGETTING:  # the clear last: it hides the rest
        refused = http_request(
            live_server.url + ME + _fill(path, **ids),
            method=method,
            token=leaked,
            body=_fill(body, **ids),
        )
        assert refused.status == 403, (path, refused.body)
        assert refused.body["error"]["code"] == "reauthentication-required", path
    assert not MemoryEntry.objects.filter(member=member, lifecycle=Lifecycle.TOMBSTONED).exists()

    # when: the member mints a step-up token, first with a wrong password
    mint = live_server.url + ME + "tokens/step-up/"
    wrong = http_request(mint, method="POST", token=leaked, body={"password": "nope"})
    minted = http_request(mint, method="POST", token=leaked, body={"password": PASSWORD})
    # then: refused, then a short-lived token that forgets
    assert wrong.status == 400 and "password" in wrong.body["error"]["fields"]
    assert minted.status == 201, minted.body
    assert set(minted.body) == {"token", "prefix", "reauthenticated_at", "expires_at"}
    forgot = http_request(
        f"{live_server.url}{ME}memories/{entry.pk}/forget/",
        method="POST",
        token=minted.body["token"],
    )
    assert forgot.status == 200, forgot.body
    assert _state(entry) == Lifecycle.TOMBSTONED

    # and: once its window has passed it authenticates nothing
    ApiToken.objects.filter(reauthenticated_at__isnull=False).update(
        reauthenticated_at=timezone.now() - timedelta(minutes=6)
    )
    expired = http_request(
        f"{live_server.url}{ME}memories/forget-category/",
        method="POST",
        token=minted.body["token"],
        body={"category": "relationship"},
    )
    assert expired.status == 401


def test_minting_a_step_up_token_is_throttled_as_sign_in_is(live_server):
    from django.core.cache import cache

    member = consenting_member()
    _, token = token_issue(owner=member)
    num = budget("login")
    cache.set(budget_key("login", "127.0.0.1"), [timezone.now().timestamp()] * num, 60)
    refused = http_request(
        live_server.url + ME + "tokens/step-up/",
        method="POST",
        token=token,
        body={"password": PASSWORD},
    )
    assert refused.status == 429
    assert refused.body["error"]["code"] == "rate_limited"


def test_a_surface_cannot_forget_on_the_members_behalf(live_server, mcp_url):  # noqa: F811
    # given: the notebook surface, allowed to write notebook memory, and a member's notebook
    member = consenting_member()
    remember(member, body="Plans for the trip", scope={"kind": "notebook", "notebook_id": "nb-1"})
    entry = remember(member, body="I take my coffee black").entry
    _, surface = token_issue(owner=ServiceClientFactory(consumer="notebook"))
    base = f"{live_server.url}/api/v1/members/{member.pk}/notebooks/nb-1/"
    # when
    deleted = http_request(base, method="DELETE", token=surface)
    closed = http_request(base + "close/", method="POST", token=surface)
    own = http_request(
        f"{live_server.url}{ME}memories/{entry.pk}/forget/", method="POST", token=surface
    )
    # then
    for refused in (deleted, closed):
        assert refused.status == 403
        assert refused.body["error"]["code"] == "member-forgetting-only"
    assert own.status == 403
    assert MemoryEntry.objects.filter(member=member, lifecycle=Lifecycle.ACTIVE).count() == 2

    # and MCP offers no tool that forgets, erases, deletes or closes
    _, assistant = token_issue(owner=ServiceClientFactory(consumer="assistant"))

    async def calls(client):
        return await client.list_tools()

    tools = asyncio.run(_session(mcp_url, assistant, calls))
    names = {tool.name for tool in tools.tools}
    assert names and not {n for n in names if re.search("forget|erase|delete|close|clear", n)}
    assert all(not (tool.annotations and tool.annotations.destructive_hint) for tool in tools.tools)


def test_the_schema_documents_reauthentication_required(live_server):
    schema = http_request(live_server.url + "/api/schema/?format=json").body
    forget = schema["paths"]["/api/v1/me/memories/{id}/forget/"]["post"]["responses"]["403"]
    assert "reauthentication-required" in forget["description"]
    assert "/api/v1/me/tokens/step-up/" in schema["paths"]


def test_step_up_tokens_from_the_helper_are_what_the_endpoint_mints():
    member = consenting_member()
    raw = step_up_token(member)
    token = ApiToken.objects.get(user=member, prefix=raw[:12])
    assert token.reauthenticated_at is not None
