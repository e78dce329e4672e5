"""The access-control matrix, generated from the URLconf.

Every URL pattern `get_resolver()` knows (walked through every include) must have a row
in `ROWS` — one per (pattern, HTTP method) — or belong to a declared family (`FAMILIES`:
the Django admin site, checked through its index and a sample of pages). A pattern with
no row fails the suite ("add a row for …"); a row naming no pattern fails it as stale.

Each row says what every principal gets (`tests.trust.conftest.PRINCIPALS`): anonymous,
member A, member B (same tenant, touching A's objects: IDOR), one operator per role, an
operator bound to another tenant, and one service client per consumer. Path parameters
are A's real objects, so 404 (not yours) and 200 (yours) are told apart. Every case is a
real request (bearer token for the API, session login for pages) in its own savepoint of
the module's world, so writes never leak from one case into the next.

Beyond the status: an API error is always the `{"error": {code, message, fields}}`
envelope, anonymous API calls are 401 with `WWW-Authenticate: Bearer`, anonymous page
visits redirect to the login page, and nobody but A (and the surfaces acting for A, and
the operator holding a granted inspection) ever sees A's content.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.views import APIView

from iris_site.enums import Consumer, OperatorRole
from memory.models import MemoryEntity
from tests.continuity.factories import token_body
from tests.datarights.factories import EXPORT
from tests.iris_site.factories import PASSWORD
from tests.trust.conftest import (
    ANONYMOUS,
    MEMBER_A,
    MEMBER_B,
    OPERATORS,
    OTHER_TENANT_OPERATOR,
    PRINCIPALS,
    ROLELESS_OPERATOR,
    SECRETS,
    SERVICES,
    World,
)

pytestmark = pytest.mark.django_db


# --- Expectations ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Redirect:
    """302 to a login page (the expected answer to an anonymous page visit)."""

    to: str

    def __str__(self) -> str:
        return f"302→{self.to}"


LOGIN = Redirect("/accounts/login/")
ADMIN_LOGIN = Redirect("/admin/login/")
Expect = int | Redirect

ROLE = {role: f"operator:{role}" for role in OperatorRole.values}
SUPPORT, ADMIN = ROLE[OperatorRole.SUPPORT], ROLE[OperatorRole.ADMIN]
TS, LEGAL = ROLE[OperatorRole.TRUST_AND_SAFETY], ROLE[OperatorRole.LEGAL]
# Continuity surfaces (continuity.enums.Surface): each reads its own tokens; shell all.
CONTINUITY_SURFACES = frozenset({"tara", "psyche", "living-scene", "nisaba", "metis", "shell"})
# memory.policy: the scene scope is open to the embodied surfaces only.
SCENE_CONSUMERS = frozenset({"assistant", "tara", "studio", "living-scene", "psyche"})


def everyone(status: Expect) -> dict[str, Expect]:
    return dict.fromkeys(PRINCIPALS, status)


def member_api(a: Expect, b: Expect | None = None) -> dict[str, Expect]:
    """`/api/v1/me/…`: members only. `b` is member B's answer when it differs from A's
    (B touching A's object: 404)."""
    expected = everyone(403) | {ANONYMOUS: 401, MEMBER_A: a}
    expected[MEMBER_B] = a if b is None else b
    return expected


def service_api(status: Expect | Callable[[str], Expect]) -> dict[str, Expect]:
    """`/api/v1/members/{A}/…`: surfaces only; `status` may depend on the consumer."""
    expected = everyone(403) | {ANONYMOUS: 401}
    for consumer in Consumer.values:
        expected[f"service:{consumer}"] = status(consumer) if callable(status) else status
    return expected


def operator_api(
    *,
    support: Expect,
    admin: Expect,
    ts: Expect,
    legal: Expect,
    other_tenant: Expect,
) -> dict[str, Expect]:
    """`/api/v1/operator/…`: operators by role; `other_tenant` is an admin bound to
    another tenant than A's."""
    return everyone(403) | {
        ANONYMOUS: 401,
        SUPPORT: support,
        ADMIN: admin,
        TS: ts,
        LEGAL: legal,
        OTHER_TENANT_OPERATOR: other_tenant,
    }


def any_operator(status: Expect, other_tenant: Expect | None = None) -> dict[str, Expect]:
    return operator_api(
        support=status,
        admin=status,
        ts=status,
        legal=status,
        other_tenant=status if other_tenant is None else other_tenant,
    )


def member_page(a: Expect, b: Expect | None = None) -> dict[str, Expect]:
    """Member pages: anonymous visitors (and surfaces: a bearer token opens no page) go to
    the login page; operators are refused."""
    expected = everyone(403) | {ANONYMOUS: LOGIN, MEMBER_A: a}
    expected |= dict.fromkeys(SERVICES, LOGIN)
    expected[MEMBER_B] = a if b is None else b
    return expected


def operator_page(status: Expect) -> dict[str, Expect]:
    expected = everyone(403) | {ANONYMOUS: LOGIN} | dict.fromkeys(SERVICES, LOGIN)
    return expected | dict.fromkeys((*OPERATORS, OTHER_TENANT_OPERATOR), status)


def signed_in(member: Expect, operator: Expect, anonymous: Expect) -> dict[str, Expect]:
    expected = dict.fromkeys((ANONYMOUS, *SERVICES), anonymous)
    expected |= dict.fromkeys((MEMBER_A, MEMBER_B), member)
    return expected | dict.fromkeys((*OPERATORS, OTHER_TENANT_OPERATOR), operator)


# --- Rows -----------------------------------------------------------------------------------

Kwargs = Callable[[World], dict]
Body = Callable[[World], object] | Mapping | None


@dataclass(frozen=True)
class Row:
    route: str
    method: str
    expect: Mapping[str, Expect]
    kwargs: Kwargs = lambda w: {}
    body: Body = None
    query: Body = None  # a mapping, or one made from the world
    page: bool = False  # session login (pages) instead of a bearer token (API)
    # Who may legitimately see A's content in this answer besides A.
    reveals: frozenset[str] = frozenset()

    @property
    def id(self) -> str:
        return f"{self.method} /{self.route}"


def person(world: World):
    """A's entity for the person of A's multi-actor memory."""
    return MemoryEntity.objects.get(member=world["actor_entry"].member_id, kind="person").pk


def pk(name: str) -> Kwargs:
    return lambda w: {"pk": w[name].pk}


def a_and(**extra: Callable[[World], object]) -> Kwargs:
    return lambda w: {"member_id": w.a.pk} | {k: f(w) for k, f in extra.items()}


def entry_id(name: str) -> Kwargs:
    return lambda w: {"entry_id": w[name].pk}


def request_id(name: str) -> Kwargs:
    return lambda w: {"request_id": w[name].pk}


A_MEMBER = a_and()
ALL_SURFACES = frozenset(SERVICES)
ME = "api/v1/me/"
MEMBERS = "api/v1/members/<uuid:member_id>/"
OPS = "api/v1/operator/"
PROFILE = "profile/memory/"
JUSTIFICATION = {"justification": "Matrix check: member reported a stale reminder."}


def _webhook_endpoint(world: World):
    """The assistant client's webhook endpoint (made in the case's own savepoint)."""
    from iris_site.audit.events import Actor
    from webhooks.services import webhook_endpoint_set

    endpoint, _ = webhook_endpoint_set(
        service_client=world.users["service:assistant"],
        url="https://hooks.example.com/iris",
        actor=Actor.system(),
    )
    return endpoint


def _pending_role_change(world: World):
    """Support's role change to legal, asked for by a second platform admin (made in the
    case's own savepoint): it waits for a third, unlinked admin."""
    from iris_site.operators import operator_role_change
    from tests.iris_site.factories import OperatorFactory

    return operator_role_change(
        subject=world.users["operator:support"],
        role=OperatorRole.LEGAL,
        by=OperatorFactory(role=OperatorRole.ADMIN),
    )


def _continuity_read(consumer: str) -> int:
    return 200 if consumer in CONTINUITY_SURFACES else 403


def _continuity_resume(consumer: str) -> int:
    """A's token is a Tara card: Tara and the shell read it; another continuity surface
    is told nothing is there; a non-continuity consumer is refused."""
    if consumer in {"tara", "shell"}:
        return 200
    return 404 if consumer in CONTINUITY_SURFACES else 403


def _retention_review(world: World):
    """An open retention review of A's entry (made in the case's own savepoint)."""
    from django.utils import timezone

    from memory.models import RetentionReview

    now = timezone.now()
    return RetentionReview.objects.create(
        member=world.a, entry=world["entry"], due_at=now, flagged_at=now
    )


ROWS: tuple[Row, ...] = (
    # --- site, health, auth, docs ---------------------------------------------------------
    # Signed in, a person lands on their own place: operators the console, members
    # their memory page.
    Row(
        "",
        "GET",
        everyone(200)
        | dict.fromkeys((MEMBER_A, MEMBER_B), Redirect("/profile/memory/"))
        | dict.fromkeys((*OPERATORS, OTHER_TENANT_OPERATOR), Redirect("/console/")),
        page=True,
    ),
    Row("healthz", "GET", everyone(200), page=True),
    # Off unless enabled, and then its own scrape token, never a principal's
    # (tests/iris_site/test_telemetry.py).
    Row("metrics", "GET", everyone(404), page=True),
    Row("accounts/login/", "GET", signed_in(member=302, operator=302, anonymous=200), page=True),
    Row("accounts/logout/", "POST", everyone(LOGIN), page=True),
    Row("api/schema/", "GET", everyone(200)),
    Row("api/docs/", "GET", everyone(200), page=True),
    # --- member API: consents -------------------------------------------------------------
    Row(ME + "consents/", "GET", member_api(200)),
    Row(ME + "consents/events/", "GET", member_api(200)),
    Row(
        ME + "consents/events/",
        "POST",
        member_api(201),
        body={"consent_type": "cross_device", "kind": "grant"},
    ),
    Row(ME + "consents/events/<uuid:pk>/", "GET", member_api(200, 404), pk("consent_event")),
    Row(ME + "consents/verify/", "GET", member_api(200)),
    Row(ME + "opt-outs/", "GET", member_api(200)),
    Row(
        ME + "opt-outs/",
        "POST",
        member_api(201),
        body={"category": "embodied", "opted_out": True},
    ),
    Row(ME + "scope-policies/", "GET", member_api(200)),
    # --- member API: continuity -----------------------------------------------------------
    Row(ME + "continuation-tokens/", "GET", member_api(200)),
    Row(
        ME + "continuation-tokens/<uuid:pk>/resume/",
        "GET",
        member_api(200, 404),
        pk("continuation"),
    ),
    # --- member API: data rights ----------------------------------------------------------
    Row(ME + "data-rights/", "GET", member_api(200)),
    Row(ME + "data-rights/", "POST", member_api(201), body={"kind": "export", "payload": EXPORT}),
    Row(ME + "data-rights/<uuid:pk>/", "GET", member_api(200, 404), pk("dsar_completed")),
    Row(
        ME + "data-rights/<uuid:pk>/verify/",
        "POST",
        member_api(202, 404),
        pk("dsar_submitted"),
        body={"resend": True},
    ),
    Row(ME + "data-rights/<uuid:pk>/cancel/", "POST", member_api(200, 404), pk("dsar_submitted")),
    Row(
        ME + "data-rights/<uuid:pk>/appeal/",
        "POST",
        member_api(200, 404),
        pk("dsar_completed"),
        body={"reason": "The export misses my notebook."},
    ),
    Row(
        ME + "data-rights/<uuid:pk>/download/",
        "GET",
        member_api(200, 404),
        pk("dsar_completed"),
    ),
    # --- member API: inspection notices ---------------------------------------------------
    Row(ME + "inspection-notices/", "GET", member_api(200)),
    # --- member API: memory ---------------------------------------------------------------
    Row(ME + "memories/", "GET", member_api(200)),
    Row(
        ME + "memories/",
        "POST",
        member_api(201),
        body={"scope": {"kind": "profile"}, "category": "preference", "body": "matrix fact"},
    ),
    Row(
        ME + "memories/forget-category/",
        "POST",
        member_api(200),
        body={"category": "preference"},
    ),
    # B naming A's entry: 404 for the whole request, nothing forgotten.
    Row(
        ME + "memories/forget/",
        "POST",
        member_api(200, 404),
        body=lambda w: {"ids": [str(w["entry"].pk)]},
    ),
    Row(ME + "memories/clear/", "GET", member_api(200)),
    Row(ME + "memories/clear/", "POST", member_api(201)),
    Row(ME + "memories/clear/", "DELETE", member_api(409)),  # nothing pending: conflict
    Row(ME + "memories/<uuid:pk>/", "GET", member_api(200, 404), pk("entry")),
    Row(
        ME + "memories/<uuid:pk>/",
        "PATCH",
        member_api(200, 404),
        pk("entry"),
        body={"body": "edited by the matrix"},
    ),
    Row(
        ME + "memories/<uuid:pk>/preview/",
        "POST",
        member_api(200, 404),
        pk("entry"),
        body={"body": "edited by the matrix"},
    ),
    Row(ME + "memories/<uuid:pk>/revisions/", "GET", member_api(200, 404), pk("entry")),
    Row(ME + "memories/<uuid:pk>/forget/", "POST", member_api(200, 404), pk("entry")),
    Row(ME + "memories/<uuid:pk>/pause/", "POST", member_api(200, 404), pk("entry"), body={}),
    Row(ME + "memories/<uuid:pk>/resume/", "POST", member_api(200, 404), pk("paused_entry")),
    Row(ME + "memories/<uuid:pk>/confirm/", "POST", member_api(200, 404), pk("inferred_entry")),
    Row(
        ME + "memories/<uuid:pk>/scope/",
        "POST",
        member_api(200, 404),
        pk("session_entry"),
        body={"scope": {"kind": "profile"}},
    ),
    # B forgetting A's handle touches only B's own namespace: a no-op, never A's data.
    Row(
        ME + "actors/<str:actor_handle>/forget/",
        "POST",
        member_api(200),
        lambda w: {"actor_handle": w["actor_entry"].actor_handle},
    ),
    Row(ME + "memory-settings/", "GET", member_api(200)),
    Row(
        ME + "memory-settings/",
        "PUT",
        member_api(200),
        body={"stop_using": False, "auto_forget_months": {}, "paused_consumers": []},
    ),
    Row(ME + "off-the-record/", "GET", member_api(200)),
    Row(ME + "off-the-record/", "PUT", member_api(200), body={"active": True}),
    Row(ME + "notices/", "GET", member_api(200)),
    Row(
        ME + "notices/<uuid:pk>/answer/",
        "POST",
        member_api(200, 404),
        pk("notice"),
        body={"accept": False},
    ),
    Row(ME + "recalls/", "GET", member_api(200)),
    # --- surfaces (service clients) acting for member A --------------------------------------
    Row(
        MEMBERS + "short-term/",
        "GET",
        service_api(200),
        A_MEMBER,
        query={"scope_id": "s-1"},
        reveals=ALL_SURFACES,
    ),
    Row(
        MEMBERS + "short-term/",
        "POST",
        service_api(201),
        A_MEMBER,
        body={
            "scope_kind": "user_session",
            "scope_id": "s-2",
            "category": "preference",
            "content": "matrix row",
        },
    ),
    Row(
        MEMBERS + "short-term/<uuid:stm_id>/refresh/",
        "POST",
        service_api(200),
        a_and(stm_id=lambda w: w["stm"].pk),
        body={},
        reveals=ALL_SURFACES,
    ),
    Row(
        MEMBERS + "context-bundle/",
        "POST",
        service_api(200),
        A_MEMBER,
        body={"scope_id": "s-1", "query": "walks"},
        reveals=ALL_SURFACES,
    ),
    # A's open questions (the conflict question) through the read gate, for any surface.
    Row(MEMBERS + "questions/", "GET", service_api(200), A_MEMBER, reveals=ALL_SURFACES),
    # Which scopes are on for A (no content): every surface, as its own consumer.
    Row(MEMBERS + "scope-policies/", "GET", service_api(200), A_MEMBER),
    Row(
        MEMBERS + "continuation-tokens/",
        "GET",
        service_api(_continuity_read),
        A_MEMBER,
    ),
    Row(
        MEMBERS + "continuation-tokens/",
        "PUT",
        # A Tara token: only Tara writes Tara's tokens.
        service_api(lambda c: 201 if c == "tara" else 403),
        A_MEMBER,
        body=lambda w: token_body(
            w.a.pk,
            scope_key="session:s-9",
            surface_context={"surface": "tara", "session_id": "s-9", "tenant_id": None},
        ),
    ),
    Row(
        MEMBERS + "continuation-tokens/<uuid:pk>/resume/",
        "GET",
        service_api(_continuity_resume),
        a_and(pk=lambda w: w["continuation"].pk),
    ),
    Row(
        MEMBERS + "memories/",
        "POST",
        service_api(lambda c: 201 if c in SCENE_CONSUMERS else 403),
        A_MEMBER,
        body={
            "scope": {"kind": "scene", "session_id": "s-1", "scene_id": "sc-1", "room_id": "r1"},
            "category": "preference",
            "body": "likes the lake scene",
            "origin": "model-inferred",
        },
    ),
    Row(
        MEMBERS + "sessions/<str:session_id>/turns/",
        "POST",
        service_api(201),
        a_and(session_id=lambda w: "s-1"),
        body={"speaker": "member", "text": "hello"},
    ),
    Row(
        MEMBERS + "recall/",
        "POST",
        service_api(lambda c: 200 if c in SCENE_CONSUMERS else 403),
        A_MEMBER,
        body={
            # Every consumer may use the shell's budget; "assistant" is the assistant's own.
            "surface": "shell",
            "scope": {"kind": "scene", "session_id": "s-1", "scene_id": "sc-1", "room_id": "r1"},
            "query": "lake",
        },
        reveals=ALL_SURFACES,
    ),
    Row(
        MEMBERS + "short-term/<uuid:stm_id>/consolidate/",
        "POST",
        service_api(201),
        a_and(stm_id=lambda w: w["stm"].pk),
        body={"explicit": True},
        reveals=ALL_SURFACES,
    ),
    # --- operators ------------------------------------------------------------------------
    Row(OPS + "audit-events/", "GET", any_operator(200)),
    Row(OPS + "audit-events/verify/", "GET", any_operator(200, other_tenant=403)),
    Row(ME + "entities/", "GET", member_api(200)),
    Row(ME + "entities/<uuid:pk>/", "GET", member_api(200, 404), lambda w: {"pk": person(w)}),
    Row(
        ME + "entities/<uuid:pk>/retire/",
        "POST",
        member_api(200, 404),
        lambda w: {"pk": person(w)},
        body={},
    ),
    # Webhook endpoints (issue 44): platform admins only; a tenant-bound admin is refused.
    Row(
        OPS + "webhooks/",
        "GET",
        operator_api(support=403, admin=200, ts=403, legal=403, other_tenant=403),
    ),
    Row(
        OPS + "webhooks/<uuid:client_id>/",
        "PUT",
        operator_api(support=403, admin=201, ts=403, legal=403, other_tenant=403),
        lambda w: {"client_id": w.users["service:assistant"].pk},
        body={"url": "https://hooks.example.test/iris"},
    ),
    Row(
        OPS + "webhooks/<uuid:client_id>/",
        "DELETE",
        operator_api(support=403, admin=404, ts=403, legal=403, other_tenant=403),
        lambda w: {"client_id": w.users["service:assistant"].pk},
    ),
    Row(
        OPS + "webhooks/<uuid:client_id>/rotate/",
        "POST",
        operator_api(support=403, admin=404, ts=403, legal=403, other_tenant=403),
        lambda w: {"client_id": w.users["service:assistant"].pk},
        body={},
    ),
    Row(
        OPS + "webhooks/<uuid:client_id>/retry/",
        "POST",
        operator_api(support=403, admin=404, ts=403, legal=403, other_tenant=403),
        lambda w: {"client_id": w.users["service:assistant"].pk},
        body={},
    ),
    # The change feed (issue 44): each surface reads its own events (ids only); a cursor
    # not issued to the caller is a 400.
    Row("api/v1/events/", "GET", service_api(200)),
    Row("api/v1/events/ack/", "POST", service_api(400), body={"cursor": "not-a-cursor"}),
    # Conversations and notebooks (issue 41): ids and counts listed; forgetting is A's own.
    Row(ME + "conversations/", "GET", member_api(200)),
    Row(
        ME + "conversations/<str:session_id>/forget/",
        "POST",
        member_api(200, 404),
        lambda w: {"session_id": "s-1"},
        body={},
    ),
    Row(ME + "notebooks/", "GET", member_api(200)),
    Row(
        ME + "notebooks/<str:notebook_id>/close/",
        "POST",
        member_api(200, 404),
        lambda w: {"notebook_id": "nb-1"},
        body={},
    ),
    Row(
        ME + "notebooks/<str:notebook_id>/",
        "DELETE",
        member_api(200, 404),
        lambda w: {"notebook_id": "nb-1"},
    ),
    Row(
        MEMBERS + "notebooks/<str:notebook_id>/close/",
        "POST",
        service_api(403),  # issue 42: a surface never forgets for the member
        a_and(notebook_id=lambda w: "nb-1"),
        body={},
    ),
    Row(
        MEMBERS + "notebooks/<str:notebook_id>/",
        "DELETE",
        service_api(403),
        a_and(notebook_id=lambda w: "nb-1"),
    ),
    # Step-up (issue 42): a member re-enters their password for a short-lived token.
    Row(ME + "tokens/step-up/", "POST", member_api(201), body={"password": PASSWORD}),
    # The admin override moves a row it never reads: admins only, inside their tenant.
    Row(
        OPS + "memory-hierarchy/stm-rows/<uuid:stm_id>/rescope/",
        "POST",
        operator_api(support=403, admin=200, ts=403, legal=403, other_tenant=404),
        lambda w: {"stm_id": w["stm"].pk},
        body={"scope_kind": "agent_run", "scope_id": "run-9", **JUSTIFICATION},
    ),
    Row(OPS + "memory-hierarchy/counts/", "GET", any_operator(200)),
    Row(
        OPS + "memory-hierarchy/replay/<str:scope_id>/",
        "GET",
        any_operator(200),
        lambda w: {"scope_id": "s-1"},
    ),
    # Member data (bodies never shown): never support; a tenant-bound operator sees none
    # of another tenant's rows.
    Row(
        OPS + "memory-hierarchy/stm/<str:scope_id>/",
        "POST",
        operator_api(support=403, admin=200, ts=200, legal=200, other_tenant=200),
        lambda w: {"scope_id": "s-1"},
        body=JUSTIFICATION,
    ),
    Row(
        OPS + "memory-hierarchy/ltm/<str:entity_id>/",
        "POST",
        operator_api(support=403, admin=200, ts=200, legal=200, other_tenant=200),
        lambda w: {"entity_id": str(w["entry"].pk)},
        body=JUSTIFICATION,
    ),
    Row(OPS + "inspections/", "GET", any_operator(200)),
    Row(
        OPS + "inspections/",
        "POST",
        any_operator(201, other_tenant=404),
        body=lambda w: {
            "target_user_id": str(w.a.pk),
            "scope": {"kind": "profile"},
            "justification": "Matrix check: member asked why a reminder fired.",
        },
    ),
    # A's inspection was opened (and granted) by support; admin sees it as oversight.
    Row(
        OPS + "inspections/<uuid:pk>/",
        "GET",
        operator_api(support=200, admin=200, ts=404, legal=404, other_tenant=404),
        pk("inspection"),
    ),
    Row(
        OPS + "inspections/<uuid:pk>/transition/",
        "POST",
        operator_api(support=200, admin=200, ts=404, legal=404, other_tenant=404),
        pk("inspection"),
        body={"to": "closed"},
    ),
    Row(
        OPS + "inspections/<uuid:pk>/snapshot/",
        "GET",
        operator_api(support=200, admin=403, ts=404, legal=404, other_tenant=404),
        pk("inspection"),
        reveals=frozenset({SUPPORT}),
    ),
    Row(
        OPS + "inspections/<uuid:pk>/replay/",
        "GET",
        operator_api(support=200, admin=403, ts=404, legal=404, other_tenant=404),
        pk("inspection"),
        reveals=frozenset({SUPPORT}),
    ),
    # A copilot note: only the operator the inspection was granted to (support).
    Row(
        OPS + "inspections/<uuid:pk>/copilot-notes/",
        "POST",
        operator_api(support=201, admin=403, ts=404, legal=404, other_tenant=404),
        pk("inspection"),
        body={"body": "Matrix check: reminder fires an hour early.", "category": "preference"},
    ),
    Row(
        OPS + "data-rights/",
        "GET",
        operator_api(support=403, admin=200, ts=403, legal=200, other_tenant=200),
    ),
    Row(
        OPS + "data-rights/<uuid:pk>/",
        "GET",
        operator_api(support=403, admin=200, ts=403, legal=200, other_tenant=404),
        pk("dsar_submitted"),
    ),
    Row(
        OPS + "data-rights/<uuid:pk>/transition/",
        "POST",
        operator_api(support=403, admin=200, ts=403, legal=200, other_tenant=404),
        pk("dsar_submitted"),
        body={"to": "verified", "verification_method": "operator-signoff"},
    ),
    # Legal and admin reach the request; only verified work is extended (409).
    Row(
        OPS + "data-rights/<uuid:pk>/extend/",
        "POST",
        operator_api(support=403, admin=409, ts=403, legal=409, other_tenant=404),
        pk("dsar_submitted"),
        body=lambda w: {
            "until": (w["dsar_submitted"].deadline_at + timedelta(days=30)).isoformat(),
            "reason": "The export spans three archived systems.",
        },
    ),
    # --- operator dashboard -----------------------------------------------------------------
    Row("dashboard/admin/memory-hierarchy", "GET", operator_page(200), page=True),
    # --- console: the home and the dashboard ---------------------------------------------
    Row("console/", "GET", operator_page(200), page=True),
    Row("console/dashboard/", "GET", operator_page(200), page=True),
    # --- console: inspections (support's granted request on A; admin sees it as oversight;
    # only support reads, and only by confirming the interstitial) -------------------------
    Row("console/inspections/", "GET", operator_page(200), page=True),
    Row("console/inspections/new/", "GET", operator_page(200), page=True),
    Row(
        "console/inspections/new/",
        "POST",
        operator_page(400) | {OTHER_TENANT_OPERATOR: 404},
        body=lambda w: {"email": w.a.email},
        page=True,
    ),
    Row(
        "console/inspections/<uuid:pk>/",
        "GET",
        operator_page(404) | {SUPPORT: 200, ADMIN: 200},
        pk("inspection"),
        page=True,
    ),
    Row(
        "console/inspections/<uuid:pk>/read/",
        "GET",
        operator_page(404) | {SUPPORT: 200, ADMIN: 200},
        pk("inspection"),
        page=True,
    ),
    Row(
        "console/inspections/<uuid:pk>/read/",
        "POST",
        operator_page(404) | {SUPPORT: 200, ADMIN: 302},
        pk("inspection"),
        body={"confirm": "on"},
        page=True,
        reveals=frozenset({SUPPORT}),
    ),
    Row(
        "console/inspections/<uuid:pk>/note/",
        "POST",
        operator_page(404) | {SUPPORT: 302, ADMIN: 302},
        pk("inspection"),
        page=True,
    ),
    Row(
        "console/inspections/<uuid:pk>/<str:step>/",
        "POST",
        operator_page(404) | {SUPPORT: 302, ADMIN: 302},
        lambda w: {"pk": w["inspection"].pk, "step": "routine-review"},
        page=True,
    ),
    # --- console: data rights (legal and admin; another tenant's request is not found) ----
    Row(
        "console/data-rights/",
        "GET",
        operator_page(403) | {LEGAL: 200, ADMIN: 200, OTHER_TENANT_OPERATOR: 200},
        page=True,
    ),
    Row(
        "console/data-rights/<uuid:pk>/",
        "GET",
        operator_page(403) | {LEGAL: 200, ADMIN: 200, OTHER_TENANT_OPERATOR: 404},
        pk("dsar_submitted"),
        page=True,
    ),
    # Each POST redirects back to the request (a refusal is a message: A's is unverified).
    Row(
        "console/data-rights/<uuid:pk>/extend/",
        "POST",
        operator_page(403) | {LEGAL: 302, ADMIN: 302, OTHER_TENANT_OPERATOR: 404},
        pk("dsar_submitted"),
        body={"reason": "The export spans three archived systems."},
        page=True,
    ),
    Row(
        "console/data-rights/<uuid:pk>/transition/",
        "POST",
        operator_page(403) | {LEGAL: 302, ADMIN: 302, OTHER_TENANT_OPERATOR: 404},
        pk("dsar_submitted"),
        body={"to": "verified", "verification_method": "operator-signoff"},
        page=True,
    ),
    Row(
        "console/data-rights/<uuid:pk>/fail/",
        "POST",
        operator_page(403) | {LEGAL: 302, ADMIN: 302, OTHER_TENANT_OPERATOR: 404},
        pk("dsar_submitted"),
        body={"reason": "Identity doubtful."},
        page=True,
    ),
    # --- console: retention reviews (admin and t&s decide; another tenant's is not found) --
    Row(
        "console/reviews/",
        "GET",
        operator_page(403) | {ADMIN: 200, TS: 200, OTHER_TENANT_OPERATOR: 200},
        page=True,
    ),
    Row(
        "console/reviews/reconfirm/",
        "GET",
        operator_page(403) | {ADMIN: 200, TS: 200, OTHER_TENANT_OPERATOR: 200},
        page=True,
    ),
    Row(
        "console/reviews/<uuid:review_id>/delete/",
        "GET",
        operator_page(403) | {ADMIN: 200, TS: 200, OTHER_TENANT_OPERATOR: 404},
        lambda w: {"review_id": _retention_review(w).pk},
        page=True,
    ),
    Row(
        "console/reviews/<uuid:review_id>/decide/",
        "POST",
        operator_page(403) | {ADMIN: 302, TS: 302, OTHER_TENANT_OPERATOR: 404},
        lambda w: {"review_id": _retention_review(w).pk},
        body={"decision": "keep"},
        page=True,
    ),
    # --- console: webhooks (platform admins only; a tenant-bound admin is refused) ----------
    Row("console/webhooks/", "GET", operator_page(403) | {ADMIN: 200}, page=True),
    # A new endpoint answers with its secret, shown once (200); a rotation too.
    Row(
        "console/webhooks/clients/<uuid:client_id>/url/",
        "POST",
        operator_page(403) | {ADMIN: 200},
        lambda w: {"client_id": w.users["service:assistant"].pk},
        body={"url": "https://hooks.example.com/iris"},
        page=True,
    ),
    Row(
        "console/webhooks/<uuid:pk>/rotate/",
        "POST",
        operator_page(403) | {ADMIN: 200},
        lambda w: {"pk": _webhook_endpoint(w).pk},
        page=True,
    ),
    Row(
        "console/webhooks/<uuid:pk>/disable/",
        "POST",
        operator_page(403) | {ADMIN: 302},
        lambda w: {"pk": _webhook_endpoint(w).pk},
        page=True,
    ),
    Row(
        "console/webhooks/<uuid:pk>/retry/",
        "POST",
        operator_page(403) | {ADMIN: 302},
        lambda w: {"pk": _webhook_endpoint(w).pk},
        page=True,
    ),
    # --- console: operator accounts (platform admins only; four eyes between people) -------
    Row("console/operators/", "GET", operator_page(403) | {ADMIN: 200}, page=True),
    # Support to t&s: an approving role, so it waits for a second admin (302 back).
    Row(
        "console/operators/role/",
        "POST",
        operator_page(403) | {ADMIN: 302},
        body=lambda w: {"email": w.users["operator:support"].email, "role": "t&s"},
        page=True,
    ),
    Row(
        "console/operators/changes/<uuid:pk>/<str:decision>/",
        "POST",
        operator_page(403) | {ADMIN: 302},
        lambda w: {"pk": _pending_role_change(w).pk, "decision": "approve"},
        page=True,
    ),
    # --- member pages: data rights ----------------------------------------------------------
    Row("profile/memory/data/", "GET", member_page(200), page=True),
    Row("profile/memory/data/export/", "GET", member_page(200), page=True),
    Row("profile/memory/data/access/", "GET", member_page(200), page=True),
    Row("profile/memory/data/delete/", "GET", member_page(200), page=True),
    Row(
        "profile/memory/data/<uuid:request_id>/status/",
        "GET",
        member_page(200, 404),
        request_id("dsar_submitted"),
        page=True,
    ),
    Row(
        "profile/memory/data/export/",
        "POST",
        member_page(302),
        body={"include_consents": "on"},
        page=True,
    ),
    Row(
        "profile/memory/data/delete/",
        "POST",
        member_page(302),
        body={"mode": "soft", "scopes": ["session"], "grace_days": "7", "password": PASSWORD},
        page=True,
    ),
    # A already has an open access request (the page answers with it); B makes one.
    Row("profile/memory/data/access/", "POST", member_page(302), body={}, page=True),
    Row(
        "profile/memory/data/<uuid:request_id>/verify/",
        "POST",
        member_page(302, 404),
        request_id("dsar_submitted"),
        body={},
        page=True,
    ),
    Row(
        "profile/memory/data/<uuid:request_id>/cancel/",
        "POST",
        member_page(302, 404),
        request_id("dsar_submitted"),
        page=True,
    ),
    Row(
        "profile/memory/data/<uuid:request_id>/appeal/",
        "POST",
        member_page(302, 404),
        request_id("dsar_completed"),
        body={"reason": "The export misses my notebook."},
        page=True,
    ),
    Row(
        "profile/memory/data/<uuid:request_id>/download/",
        "GET",
        member_page(200, 404),
        request_id("dsar_completed"),
        page=True,
    ),
    # --- member pages: memory ---------------------------------------------------------------
    Row(PROFILE, "GET", member_page(200), page=True),
    Row(PROFILE + "off-the-record/", "POST", member_page(302), body={"active": "1"}, page=True),
    # What Iris may do (issue 47): the switches' page, and the question before a kind goes off.
    Row(PROFILE + "controls/", "GET", member_page(200), page=True),
    Row(
        PROFILE + "opt-outs/",
        "GET",
        member_page(200),
        query={"category": "embodied", "state": "off"},
        page=True,
    ),
    Row(
        PROFILE + "opt-outs/",
        "POST",
        member_page(302),
        body={"category": "embodied", "state": "off"},
        page=True,
    ),
    Row(
        PROFILE + "forget-category/",
        "GET",
        member_page(200),
        query={"category": "preference"},
        page=True,
    ),
    Row(
        PROFILE + "forget-category/",
        "POST",
        member_page(302),
        body={"category": "preference", "confirm": "1"},
        page=True,
    ),
    Row(
        PROFILE + "settings/",
        "POST",
        member_page(302),
        body={"part": "stop-using", "stop_using": "off"},
        page=True,
    ),
    Row(
        PROFILE + "forget-selected/",
        "GET",
        member_page(200, 404),
        query=lambda w: {"ids": str(w["entry"].pk)},
        page=True,
    ),
    Row(
        PROFILE + "forget-selected/",
        "POST",
        member_page(302, 404),
        body=lambda w: {"ids": str(w["entry"].pk)},
        page=True,
    ),
    Row(PROFILE + "people/", "GET", member_page(200), page=True),
    Row(
        PROFILE + "people/<uuid:entity_id>/",
        "GET",
        member_page(200, 404),
        lambda w: {"entity_id": person(w)},
        page=True,
    ),
    Row(
        PROFILE + "people/<uuid:entity_id>/forget/",
        "GET",
        member_page(200, 404),
        lambda w: {"entity_id": person(w)},
        page=True,
    ),
    Row(
        PROFILE + "people/<uuid:entity_id>/forget/",
        "POST",
        member_page(302, 404),
        lambda w: {"entity_id": person(w)},
        page=True,
    ),
    # Your conversations (issue 41): A's own confirmation and forget; B's are 404.
    Row(PROFILE + "conversations/", "GET", member_page(200), page=True),
    Row(
        PROFILE + "conversations/<str:session_id>/forget/",
        "GET",
        member_page(200, 404),
        lambda w: {"session_id": "s-1"},
        page=True,
    ),
    Row(
        PROFILE + "conversations/<str:session_id>/forget/",
        "POST",
        member_page(302, 404),
        lambda w: {"session_id": "s-1"},
        page=True,
    ),
    Row(PROFILE + "clear/", "GET", member_page(200), page=True),
    Row(PROFILE + "clear/", "POST", member_page(302), body={"password": PASSWORD}, page=True),
    Row(PROFILE + "consents/", "GET", member_page(200), page=True),
    Row(
        PROFILE + "consents/<str:consent_type>/grant/",
        "POST",
        member_page(302),
        lambda w: {"consent_type": "cross_device"},
        page=True,
    ),
    Row(
        PROFILE + "consents/<str:consent_type>/withdraw/",
        "GET",
        member_page(200),
        lambda w: {"consent_type": "data_storage"},
        page=True,
    ),
    Row(
        PROFILE + "consents/<str:consent_type>/withdraw/",
        "POST",
        member_page(302),
        lambda w: {"consent_type": "data_storage"},
        page=True,
    ),
    Row(PROFILE + "notices/", "GET", member_page(200), page=True),
    Row(
        PROFILE + "notices/<uuid:notice_id>/answer/",
        "POST",
        member_page(302, 404),
        lambda w: {"notice_id": w["notice"].pk},
        body={"answer": "keep"},
        page=True,
    ),
    Row(PROFILE + "<uuid:entry_id>/", "GET", member_page(200, 404), entry_id("entry"), page=True),
    Row(
        PROFILE + "<uuid:entry_id>/history/",
        "GET",
        member_page(200, 404),
        entry_id("entry"),
        page=True,
    ),
    Row(
        PROFILE + "<uuid:entry_id>/edit/",
        "GET",
        member_page(200, 404),
        entry_id("entry"),
        page=True,
    ),
    Row(
        PROFILE + "<uuid:entry_id>/edit/",
        "POST",
        member_page(302, 404),
        entry_id("entry"),
        body={"body": "edited on the page", "subject": "", "category": "preference"},
        page=True,
    ),
    Row(
        PROFILE + "<uuid:entry_id>/pause/",
        "POST",
        member_page(302, 404),
        entry_id("entry"),
        page=True,
    ),
    Row(
        PROFILE + "<uuid:entry_id>/resume/",
        "POST",
        member_page(302, 404),
        entry_id("paused_entry"),
        page=True,
    ),
    Row(
        PROFILE + "<uuid:entry_id>/forget/",
        "GET",
        member_page(200, 404),
        entry_id("entry"),
        page=True,
    ),
    Row(
        PROFILE + "<uuid:entry_id>/forget/",
        "POST",
        member_page(302, 404),
        entry_id("entry"),
        page=True,
    ),
    Row(
        PROFILE + "<uuid:entry_id>/scope/",
        "GET",
        member_page(200, 404),
        entry_id("session_entry"),
        page=True,
    ),
    Row(
        PROFILE + "<uuid:entry_id>/scope/",
        "POST",
        member_page(302, 404),
        entry_id("session_entry"),
        body={"kind": "profile"},
        page=True,
    ),
)


# --- Families ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Family:
    """A group of patterns checked through samples instead of one row each."""

    name: str
    prefix: str  # every pattern whose route starts with this belongs to the family
    samples: tuple[Row, ...] = field(default=())


def admin_page(anonymous: Expect, member: Expect, operator: Expect) -> dict[str, Expect]:
    expected = dict.fromkeys((ANONYMOUS, *SERVICES), anonymous)
    expected |= dict.fromkeys((MEMBER_A, MEMBER_B), member)
    return expected | dict.fromkeys((*OPERATORS, OTHER_TENANT_OPERATOR), operator)


# The console: members and surfaces never get in; operators see the index and the
# inspection workflow (their own requests; admin oversight), and nothing else without a
# model permission (factory operators hold none; the demo's platform admin is superuser).
ADMIN_CONSOLE = admin_page(anonymous=ADMIN_LOGIN, member=ADMIN_LOGIN, operator=200)
ADMIN_MODEL = admin_page(anonymous=ADMIN_LOGIN, member=ADMIN_LOGIN, operator=403)
ADMIN_INSPECTIONS = ADMIN_CONSOLE
FAMILIES: tuple[Family, ...] = (
    Family(
        "Django admin site",
        "admin/",
        samples=(
            Row("admin/", "GET", ADMIN_CONSOLE, page=True),
            Row("admin/iris_site/user/", "GET", ADMIN_MODEL, page=True),
            Row("admin/memory/memoryentry/", "GET", ADMIN_MODEL, page=True),
            Row("admin/consent/consentevent/", "GET", ADMIN_MODEL, page=True),
            Row("admin/datarights/datarightsrequest/", "GET", ADMIN_MODEL, page=True),
            Row("admin/inspection/inspectionrequest/", "GET", ADMIN_INSPECTIONS, page=True),
            Row(
                "admin/inspection/inspectionrequest/<uuid:pk>/snapshot/",
                "GET",
                admin_page(anonymous=ADMIN_LOGIN, member=ADMIN_LOGIN, operator=404)
                | {SUPPORT: 200, ADMIN: 302},
                pk("inspection"),
                page=True,
                reveals=frozenset({SUPPORT}),
            ),
        ),
    ),
)


# --- The URLconf ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pattern:
    route: str
    name: str | None
    callback: object

    @property
    def label(self) -> str:
        return f"{self.route!r} (name {self.name!r})"


def url_patterns(patterns=None, prefix: str = "", namespace: str | None = None):
    """Every URLPattern of the URLconf, with its full route and namespaced name."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(entry, URLResolver):
            inner = namespace
            if entry.namespace:
                inner = f"{namespace}:{entry.namespace}" if namespace else entry.namespace
            yield from url_patterns(entry.url_patterns, prefix + str(entry.pattern), inner)
        elif isinstance(entry, URLPattern):
            name = entry.name and (f"{namespace}:{entry.name}" if namespace else entry.name)
            yield Pattern(prefix + str(entry.pattern), name, entry.callback)


def family_of(route: str) -> Family | None:
    return next((f for f in FAMILIES if route.startswith(f.prefix)), None)


def api_methods(callback) -> set[str]:
    """The HTTP methods a DRF view implements (OPTIONS and HEAD aside)."""
    view_class = getattr(callback, "view_class", None) or getattr(callback, "cls", None)
    if view_class is None or not issubclass(view_class, APIView):
        return set()
    return {
        m.upper()
        for m in view_class.http_method_names
        if m not in {"options", "head"} and hasattr(view_class, m)
    }


def test_every_url_pattern_has_a_row_or_a_family():
    covered = {row.route for row in ROWS}
    missing = [
        p.label for p in url_patterns() if p.route not in covered and family_of(p.route) is None
    ]
    assert not missing, "The access matrix misses URL patterns; add a row for " + "; ".join(missing)


def test_every_method_a_drf_view_implements_has_a_row():
    declared = {(row.route, row.method) for row in ROWS}
    missing = [
        f"{method} {p.label}"
        for p in url_patterns()
        if family_of(p.route) is None
        for method in sorted(api_methods(p.callback))
        if (p.route, method) not in declared
    ]
    assert not missing, "Add a matrix row for " + "; ".join(missing)


def test_no_stale_rows_or_samples():
    routes = {p.route for p in url_patterns()}
    stale = [row.id for row in ROWS if row.route not in routes]
    stale += [s.id for f in FAMILIES for s in f.samples if s.route not in routes]
    assert not stale, "Matrix rows name no URL pattern any more (remove or fix): " + "; ".join(
        stale
    )
    ids = [row.id for row in ROWS]
    assert len(ids) == len(set(ids)), "duplicate rows"


def test_every_row_and_sample_declares_every_principal():
    for row in (*ROWS, *(s for f in FAMILIES for s in f.samples)):
        assert set(row.expect) == set(PRINCIPALS), row.id


# --- The cases --------------------------------------------------------------------------------


@functools.cache
def routes() -> frozenset[str]:
    return frozenset(p.route for p in url_patterns())


def reverse_route(route: str, kwargs: dict) -> str:
    """Fill a route's `<converter:name>` parameters (the URLconf is the source of truth)."""
    assert route in routes(), f"no URL pattern {route!r}"
    path = route
    for converter in route.split("<")[1:]:
        spec = converter.split(">")[0]
        name = spec.split(":")[-1]
        path = path.replace(f"<{spec}>", str(kwargs[name]))
    return "/" + path


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Throttle counters and the bundle cache start empty in every case."""
    cache.clear()
    yield
    cache.clear()


def perform(world: World, row: Row, principal: str):
    path = reverse_route(row.route, row.kwargs(world))
    body = row.body(world) if callable(row.body) else row.body
    query = row.query(world) if callable(row.query) else row.query
    method = row.method.lower()
    if row.page:
        client = world.page_client(principal)
        if method == "get":
            return client.get(path, query or {})
        return getattr(client, method)(path, body or {})
    client = world.api_client(principal)
    if method == "get":
        return client.get(path, row.query or {})
    if row.query:
        path += "?" + "&".join(f"{k}={v}" for k, v in row.query.items())
    return getattr(client, method)(path, body, format="json")


def response_text(response) -> str:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content).decode(errors="replace")
    return response.content.decode(errors="replace")


def check(world: World, row: Row, principal: str) -> None:
    expected = row.expect[principal]
    response = perform(world, row, principal)
    text = response_text(response)
    where = f"{row.id} as {principal}"
    if isinstance(expected, Redirect):
        got = response.status_code
        assert got == 302, f"{where}: expected {expected}, got {got}"
        assert response["Location"].startswith(expected.to), (
            f"{where}: redirected to {response['Location']}, expected {expected.to}"
        )
    else:
        assert response.status_code == expected, (
            f"{where}: expected {expected}, got {response.status_code}: {text[:300]}"
        )
        if expected == 302 and not row.route.startswith("accounts/"):
            location = response["Location"]
            assert "/login/" not in location, f"{where}: sent to log in ({location})"
    if not row.page and response.status_code >= 400:
        error = json.loads(text)["error"]
        assert set(error) == {"code", "message", "fields"}, f"{where}: {error}"
        assert isinstance(error["code"], str) and error["code"], where
        assert isinstance(error["fields"], dict), where
        if principal == ANONYMOUS:
            assert response.status_code == 401, where
            assert response["WWW-Authenticate"] == "Bearer", where
    may_see = principal == MEMBER_A or principal in row.reveals
    if not may_see or response.status_code >= 400:
        leaked = [secret for secret in SECRETS if secret in text]
        assert not leaked, f"{where}: A's content leaked: {leaked}"


CASES = [pytest.param(row, p, id=f"{row.id} as {p}") for row in ROWS for p in PRINCIPALS]
SAMPLES = [
    pytest.param(row, p, id=f"{row.id} as {p}")
    for family in FAMILIES
    for row in family.samples
    for p in PRINCIPALS
]


@pytest.mark.parametrize(("row", "principal"), CASES)
def test_matrix(trust_world, row, principal):
    check(trust_world, row, principal)


@pytest.mark.parametrize(("row", "principal"), SAMPLES)
def test_admin_family(trust_world, row, principal):
    check(trust_world, row, principal)


@pytest.mark.parametrize("row", [pytest.param(r, id=r.id) for r in ROWS])
def test_an_operator_without_a_role_is_refused_never_failed(trust_world, row):
    """`createsuperuser` makes an operator with no role: every operator endpoint and the
    dashboard refuse it (403, as IsOperator does), and nothing answers 500. Elsewhere it
    gets what any operator gets. (The dashboard used to crash with a 500.)"""
    operator_only = row.route.startswith((OPS, "dashboard/", "console/"))
    expected = 403 if operator_only else row.expect[SUPPORT]
    check(trust_world, replace(row, expect={ROLELESS_OPERATOR: expected}), ROLELESS_OPERATOR)


def test_the_matrix_is_whole():
    """100 % of the URLconf: each pattern is a row (all its methods) or in a family."""
    patterns = list(url_patterns())
    rows = {row.route for row in ROWS}
    in_family = [p for p in patterns if family_of(p.route)]
    assert len(rows) + len(in_family) == len(patterns)
