"""Shared trust fixtures: every kind of principal and a world of member A's objects.

`trust_world` is module-scoped: the world is built once per test module inside an outer
transaction, every test runs in a savepoint of it (pytest-django's `db`), so whatever a
test writes is rolled back and the next test sees the pristine world again. Use it
from tests marked `django_db` (non-transactional); nothing here is autouse.

Principals (`PRINCIPALS`, in this order): anonymous, member A and member B (same
tenant; B is the IDOR intruder), one platform-wide operator per `OperatorRole`, an
admin operator bound to another tenant, and one service client per `Consumer`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from django.conf import settings
from django.db import transaction
from django.test import Client, override_settings
from rest_framework.test import APIClient

from datarights.services import datarights_cancel
from inspection.enums import InspectionState
from inspection.models import InspectionNotice
from inspection.services import inspection_notices_deliver, inspection_transition
from iris_site.audit.events import Actor
from iris_site.enums import Consumer, OperatorRole
from iris_site.models import User
from iris_site.services import token_issue
from memory.pauses import memory_pause
from tests.continuity.factories import write as continuation_write
from tests.datarights.factories import EXPORT, process, submit
from tests.hierarchy.stm_factories import service_actor
from tests.hierarchy.stm_factories import write as stm_write
from tests.inspection.factories import granted
from tests.iris_site.factories import (
    PASSWORD,
    OperatorFactory,
    ServiceClientFactory,
    TenantFactory,
)
from tests.memory.factories import consenting_member, remember
from tests.stepup import step_up, step_up_token

ANONYMOUS = "anonymous"
MEMBER_A = "member:a"
MEMBER_B = "member:b"
OTHER_TENANT_OPERATOR = "operator:other-tenant"
OPERATORS = tuple(f"operator:{role}" for role in OperatorRole.values)
SERVICES = tuple(f"service:{consumer}" for consumer in Consumer.values)
PRINCIPALS = (ANONYMOUS, MEMBER_A, MEMBER_B, *OPERATORS, OTHER_TENANT_OPERATOR, *SERVICES)
# Outside the matrix: `createsuperuser`'s user, an operator with no role (no profile).
ROLELESS_OPERATOR = "operator:no-role"

# Member A's content: none of it may ever appear in an answer to anyone but A.
SECRET_BODY = "A-secret: I take my coffee black with cardamom"
SECRET_SUBJECT = "cardamom-coffee"
SECRET_PROPOSAL = "A-secret: actually it is rooibos now"
SECRET_ACTOR_NOTE = "A-secret: my sister Anna"
SECRET_STM = "A-secret: prefers walks by the canal"
SECRETS = (SECRET_BODY, SECRET_SUBJECT, SECRET_PROPOSAL, SECRET_ACTOR_NOTE, SECRET_STM)


@dataclass
class World:
    tenant: object
    other_tenant: object
    users: dict = field(default_factory=dict)  # principal name → User / ServiceClient
    tokens: dict = field(default_factory=dict)  # principal name → raw bearer token
    sessions: dict = field(default_factory=dict)  # principal name → signed-in session key
    objects: dict = field(default_factory=dict)  # name → member A's object (or its id)

    @property
    def a(self):
        return self.users[MEMBER_A]

    @property
    def b(self):
        return self.users[MEMBER_B]

    def __getitem__(self, name):
        return self.objects[name]

    def api_client(self, principal: str) -> APIClient:
        """An API client for `principal`: a bearer token, or no credentials at all."""
        client = shared_handler(APIClient())
        if principal != ANONYMOUS:
            client.credentials(HTTP_AUTHORIZATION=f"Bearer {self.tokens[principal]}")
        return client

    def page_client(self, principal: str) -> Client:
        """A browser for `principal`: signed in (members, operators), or not (anonymous;
        a surface sends its bearer token, which opens no page)."""
        client = shared_handler(Client())
        if principal in self.sessions:
            client.cookies[settings.SESSION_COOKIE_NAME] = self.sessions[principal]
        elif principal != ANONYMOUS:
            client.defaults["HTTP_AUTHORIZATION"] = f"Bearer {self.tokens[principal]}"
        return client


_HANDLERS: dict[type, object] = {}


def shared_handler(client):
    """Reuse one request handler per client class: building one loads the middleware,
    and WhiteNoise then indexes every static file (a quarter second each time)."""
    client.handler = _HANDLERS.setdefault(type(client.handler), client.handler)
    return client


def build_world() -> World:
    """Member A owns one of everything; B is in A's tenant; operators and surfaces."""
    tenant, other_tenant = TenantFactory(), TenantFactory()
    world = World(tenant=tenant, other_tenant=other_tenant)
    a = consenting_member("category:medical", tenants=[tenant])
    b = consenting_member(tenants=[tenant])
    world.users |= {MEMBER_A: a, MEMBER_B: b}
    for role in OperatorRole.values:
        world.users[f"operator:{role}"] = OperatorFactory(role=role)
    world.users[OTHER_TENANT_OPERATOR] = OperatorFactory(
        role=OperatorRole.ADMIN, tenant=other_tenant
    )
    for consumer in Consumer.values:
        world.users[f"service:{consumer}"] = ServiceClientFactory(consumer=consumer)
    world.users[ROLELESS_OPERATOR] = User.objects.create_superuser("root@example.test", PASSWORD)
    for name, principal in world.users.items():
        # The members have re-authenticated (a step-up token, a confirmed page session):
        # the matrix is about who may reach what; refusals without a step-up are
        # tests/trust/test_step_up.py's.
        member = name in (MEMBER_A, MEMBER_B)
        world.tokens[name] = step_up_token(principal) if member else token_issue(owner=principal)[1]
        if not name.startswith("service:"):
            browser = shared_handler(Client())
            browser.force_login(principal)
            if member:
                step_up(browser)
            world.sessions[name] = browser.cookies[settings.SESSION_COOKIE_NAME].value

    o = world.objects
    o["consent_event"] = a.consent_events.order_by("sequence").first()
    o["entry"] = remember(a, subject=SECRET_SUBJECT, body=SECRET_BODY).entry
    # A model inference on the same key: kept out, and A is asked (a memory notice).
    o["notice"] = remember(
        a, subject=SECRET_SUBJECT, body=SECRET_PROPOSAL, origin="model-inferred"
    ).notice
    o["session_entry"] = remember(
        a, scope={"kind": "session", "session_id": "s-1"}, subject="walks", body="walks at 7"
    ).entry
    o["inferred_entry"] = remember(
        a, subject="tea-time", body="tea at four", origin="model-inferred"
    ).entry
    o["paused_entry"] = remember(a, subject="paused", body="a paused fact").entry
    o["paused_entry"] = memory_pause(entry=o["paused_entry"], actor=Actor.of(a), ends_at=None)
    o["actor_entry"] = remember(
        a,
        category="relationship",
        body="called my sister",
        multi_actor={"actor_name": "Anna", "relationship_note": SECRET_ACTOR_NOTE},
    ).entry
    o["sensitive_entry"] = remember(
        a, category="medical", subject="allergy", body="allergic to penicillin"
    ).entry
    o["notebook_entry"] = remember(
        a,
        scope={"kind": "notebook", "notebook_id": "nb-1"},
        subject="verbs",
        body="irregular verbs",
    ).entry
    remember(b, subject="b-coffee", body="B likes espresso")

    o["continuation"] = continuation_write(a).token
    o["stm"] = stm_write(a, actor=service_actor("assistant"), content=SECRET_STM)

    # A legal DSAR look at A's sensitive memory for A's access request (granted by a
    # second legal operator), closed: A is told (a delivered notice). The request is then
    # withdrawn, so A has no open request but the one below.
    legal = world.users["operator:legal"]
    fulfilled = submit(a, "access")
    looked = granted(
        legal,
        a,
        InspectionState.DSAR_FULFILLMENT,
        include_sensitive=True,
        dsar_request_id=fulfilled.pk,
    )
    inspection_transition(inspection=looked, to=InspectionState.CLOSED, operator=legal)
    inspection_notices_deliver()
    o["inspection_notice"] = InspectionNotice.objects.get(member=a)
    datarights_cancel(request=fulfilled, actor=Actor.of(a))

    o["dsar_submitted"] = submit(a, "access", session=False)
    # An export of a scope A keeps nothing in: forgetting A's memories (the matrix does)
    # erases every export file holding their text or ids, and this one must stay.
    o["dsar_completed"] = process(submit(a, "export", {**EXPORT, "scopes": ["crisis"]}))
    assert o["dsar_completed"].status == "completed", o["dsar_completed"].status

    # Opened by support (admin sees it as oversight; nobody else does), granted.
    support = world.users["operator:support"]
    o["inspection"] = granted(support, a)
    return world


@pytest.fixture(scope="module")
def trust_world(django_db_setup, django_db_blocker, tmp_path_factory):
    """The world, built once per module in an outer transaction rolled back at the end."""
    # The members' step-up lasts the module (its cases may take longer than five minutes).
    exports = override_settings(
        IRIS_DSAR_EXPORT_DIR=str(tmp_path_factory.mktemp("exports")), IRIS_STEP_UP_SECONDS=3600
    )
    exports.enable()
    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
    try:
        with django_db_blocker.unblock():
            world = build_world()
        yield world
    finally:
        with django_db_blocker.unblock():
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)
        exports.disable()
