"""Four eyes between people, not accounts (issue 42, item 1).

Why: "One platform admin satisfies four eyes alone": the admin made two legal accounts,
one opened a sensitive data-rights inspection, the other granted it; the admin could
also switch its own role to legal and approve. Over real HTTP (the admin's own forms in
a real browser: tests/browser/test_four_eyes_admin.py), and a property over random
operators, roles, account histories and inspection routes: no single person's accounts
ever complete a four-eyes grant, nor approve a role that could.
"""

import http.cookiejar
import re
import urllib.parse
import urllib.request

import pytest
from django.db import transaction
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from inspection.enums import InspectionState
from inspection.models import InspectionRequest
from inspection.policy import APPROVING_ROLES, ENTRY_PATHS, needs_second_approver
from inspection.services import inspection_transition
from iris_site.enums import OperatorRole
from iris_site.errors import Conflict, DomainError, InvalidInput, NotPermitted
from iris_site.models import AuditEvent, OperatorAccountChange, OperatorProfile, User
from iris_site.operators import (
    operator_change_decide,
    operator_create,
    operator_role_change,
    operator_signin_record,
)
from iris_site.services import token_issue
from tests.conftest import http_request
from tests.inspection.factories import incident_ref, member_with_memory, open_dsar, open_request
from tests.iris_site.factories import PASSWORD, OperatorFactory

S = InspectionState
BASE = "/api/v1/operator/inspections/"
REJECTED = "inspection.request.transition_rejected"


def open_body(member, **extra) -> dict:
    return {
        "target_user_id": str(member.pk),
        "scope": {"kind": "profile"},
        "justification": "The member asked for a copy of everything Iris holds.",
        **extra,
    }


def approved(change, by) -> None:
    operator_change_decide(change=change, by=by, approve=True)


def legal_accounts_made_by(admin, second_admin, *emails):
    """The admin asks for legal accounts (as the admin's add form does); a second admin
    approves each role, as the service requires."""
    accounts = []
    for email in emails:
        account = operator_create(email=email, password=PASSWORD, role="legal", by=admin)
        approved(OperatorAccountChange.objects.get(subject=account, state="pending"), second_admin)
        account = User.objects.get(pk=account.pk)  # its role now legal
        assert account.operator_profile.role == "legal"
        accounts.append(account)
    return accounts


class Session:
    """A browser-less signed-in session over real HTTP: cookies, CSRF from the pages."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect()
        )

    def csrf(self, html: str) -> str:
        return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)

    def get(self, path: str) -> tuple[int, str]:
        return self._open(urllib.request.Request(self.base + path))  # noqa: S310

    def post(self, path: str, data: dict, *, form_page: str) -> tuple[int, str]:
        _, html = self.get(form_page)
        body = urllib.parse.urlencode({**data, "csrfmiddlewaretoken": self.csrf(html)}).encode()
        request = urllib.request.Request(self.base + path, data=body, method="POST")  # noqa: S310
        request.add_header("Referer", self.base + form_page)
        return self._open(request)

    def _open(self, request) -> tuple[int, str]:
        try:
            with self.opener.open(request, timeout=10) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def sign_in(self, email: str) -> None:
        status, _ = self.post(
            "/accounts/login/",
            {"username": email, "password": PASSWORD},
            form_page="/accounts/login/",
        )
        assert status == 302


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


@pytest.mark.django_db(transaction=True)
def test_two_legal_accounts_one_admin_made_cannot_grant_each_others_sensitive_request(
    live_server,
):
    # given a member with sensitive memory and an open data-rights request; a platform
    # admin who made two legal accounts (a second admin approved their roles, unaware)
    member, entries = member_with_memory("category:medical")
    dsar = open_dsar(member)
    admin, second_admin = OperatorFactory(role="admin"), OperatorFactory(role="admin")
    requester, approver = legal_accounts_made_by(
        admin, second_admin, "legal-one@example.test", "legal-two@example.test"
    )
    (_, mine), (_, theirs) = token_issue(owner=requester), token_issue(owner=approver)
    base = live_server.url + BASE
    opened = http_request(
        base,
        method="POST",
        token=mine,
        body=open_body(member, include_sensitive=True, dsar_request_id=str(dsar.pk)),
    )
    assert opened.status == 201, opened.body
    transition = f"{base}{opened.body['id']}/transition/"
    routed = http_request(transition, method="POST", token=mine, body={"to": "dsar-fulfillment"})
    assert routed.status == 200 and routed.body["needs_second_approver"] is True
    # when the other account grants it
    granted = http_request(transition, method="POST", token=theirs, body={"to": "granted"})
    # then it is refused with a structured code, audited, and nothing is readable
    assert granted.status == 403, granted.body
    assert granted.body["error"]["code"] == "approver-linked-to-requester"
    assert set(granted.body["error"]) == {"code", "message", "fields"}
    inspection = InspectionRequest.objects.get(pk=opened.body["id"])
    assert inspection.state == S.DSAR_FULFILLMENT and inspection.granted_by is None
    rejected = AuditEvent.objects.get(action=REJECTED, actor_id=approver.pk)
    assert rejected.payload["refusal"] == "approver-linked-to-requester"
    assert "same-author" in rejected.payload["links"]
    snapshot = http_request(f"{base}{opened.body['id']}/snapshot/", token=mine)
    assert snapshot.status == 409 and snapshot.body["error"]["code"] == "inspection-not-granted"
    # and a legal operator no link ties to the requester still grants (four eyes works)
    (_, stranger) = token_issue(owner=OperatorFactory(role="legal"))
    ok = http_request(transition, method="POST", token=stranger, body={"to": "granted"})
    assert ok.status == 200 and ok.body["state"] == "granted"
    assert str(entries["sensitive"].pk) in ok.body["seen_entry_ids"]


@pytest.mark.django_db(transaction=True)
def test_an_admin_switching_itself_to_legal_cannot_approve_it_nor_the_grant(live_server):
    # given a platform admin, a legal account it made, and a sensitive request opened by it
    member, _ = member_with_memory("category:medical")
    dsar = open_dsar(member)
    admin, second_admin = OperatorFactory(role="admin"), OperatorFactory(role="admin")
    (requester,) = legal_accounts_made_by(admin, second_admin, "legal-three@example.test")
    inspection = open_request(requester, member, include_sensitive=True)
    inspection_transition(
        inspection=inspection, to=S.DSAR_FULFILLMENT, operator=requester, dsar_request_id=dsar.pk
    )
    session = Session(live_server.url)
    session.sign_in(admin.email)
    # when the admin asks, on the console, to become legal itself
    status, _ = session.post(
        "/console/operators/role/",
        {"email": admin.email, "role": "legal"},
        form_page="/console/operators/",
    )
    # then the change waits, and the admin cannot approve it
    assert status == 302
    change = OperatorAccountChange.objects.get(subject=admin, state="pending")
    status, page = session.get("/console/operators/")
    assert "never whoever asked" in page
    status, page = session.post(
        f"/console/operators/changes/{change.pk}/approve/", {}, form_page="/console/operators/"
    )
    assert status == 403 and "decider-is-party" in page
    assert OperatorProfile.objects.get(user=admin).role == "admin"
    assert AuditEvent.objects.filter(
        action="iris_site.operator_account.change_rejected", actor_id=admin.pk
    ).exists()
    # and even once a second admin approves it, the admin may not grant what the account
    # it made asked for (it gave that account its role)
    approved(change, second_admin)
    admin.refresh_from_db()
    with pytest.raises(NotPermitted) as refused:
        inspection_transition(inspection=inspection, to=S.GRANTED, operator=admin)
    assert refused.value.code == "approver-linked-to-requester"
    (_, token) = token_issue(owner=admin)
    over_http = http_request(
        f"{live_server.url}{BASE}{inspection.pk}/transition/",
        method="POST",
        token=token,
        body={"to": "granted"},
    )
    assert over_http.status == 403
    assert over_http.body["error"]["code"] == "approver-linked-to-requester"


# --- Property: no single person's accounts complete a four-eyes grant ----------------------

ROLES = [
    OperatorRole.LEGAL,
    OperatorRole.TRUST_AND_SAFETY,
    OperatorRole.ADMIN,
    OperatorRole.SUPPORT,
]
ROUTES = [
    (S.DSAR_FULFILLMENT, False),
    (S.DSAR_FULFILLMENT, True),
    (S.INCIDENT_ESCALATION, True),
    (S.ROUTINE_REVIEW, True),
]

# Weighted towards what makes a person's second approving account: an account made for
# oneself, and a decision by whoever is there.
KINDS = ["create-own", "create-own", "create-other", "role", "decide", "decide", "signin"]
steps = st.lists(
    st.tuples(
        st.sampled_from(KINDS),
        st.integers(0, 50),
        st.integers(0, 50),
        st.sampled_from(ROLES),
    ),
    max_size=12,
)
LEGAL = OperatorRole.LEGAL
# The issue's story: person 0's admin makes two legal accounts for itself; person 1's
# admin approves both roles unaware.
TWO_PUPPETS = [
    ("create-own", 0, 0, LEGAL),
    ("decide", 1, 0, LEGAL),
    ("create-own", 0, 0, LEGAL),
    ("decide", 1, 0, LEGAL),
]


class World:
    """People and their accounts; an account's person is who holds its password."""

    def __init__(self) -> None:
        self.accounts = []
        self.person: dict = {}
        self.people = 0

    def add(self, account, person) -> None:
        self.accounts.append(account)
        self.person[account.pk] = person

    def pick(self, n: int):
        return self.accounts[n % len(self.accounts)]


def play(world: World, history) -> None:
    """Random account history through the services: admins make accounts (for themselves
    or for a new person) and change roles; any admin decides a waiting change; people
    sign in, each from their own browser. Refusals are part of the history."""
    for n, (kind, i, j, role) in enumerate(history):
        actor = world.pick(i)
        try:
            if kind.startswith("create"):
                person = world.person[actor.pk] if kind == "create-own" else world.people
                world.people += kind == "create-other"
                email = f"p{person}-a{n}-{len(world.accounts)}@example.test"
                world.add(
                    operator_create(email=email, password=PASSWORD, role=role, by=actor), person
                )
            elif kind == "role":
                operator_role_change(subject=world.pick(j), role=role, by=actor)
            elif kind == "decide":
                pending = list(OperatorAccountChange.objects.filter(state="pending"))
                if pending:
                    change = pending[j % len(pending)]
                    same = {world.person[actor.pk]} & {
                        world.person.get(change.subject_id),
                        world.person.get(change.requested_by_id),
                    }
                    try:
                        operator_change_decide(change=change, by=actor, approve=True)
                    except NotPermitted:
                        pass
                    else:
                        # a person never approves a role change of their own accounts
                        assert not same, (actor.email, change)
            else:
                operator_signin_record(user=actor, device=f"person-{world.person[actor.pk]}")
        except (NotPermitted, Conflict, InvalidInput):
            pass
        # fresh, with the roles the history gave them
        world.accounts = [User.objects.get(pk=account.pk) for account in world.accounts]


@pytest.mark.django_db
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@example(history=TWO_PUPPETS, route=(S.DSAR_FULFILLMENT, False))
@example(history=TWO_PUPPETS, route=(S.DSAR_FULFILLMENT, True))
@example(history=[*TWO_PUPPETS, ("role", 0, 0, LEGAL), ("decide", 1, 0, LEGAL)], route=ROUTES[0])
@given(history=steps, route=st.sampled_from(ROUTES))
def test_no_single_persons_accounts_ever_complete_a_four_eyes_grant(history, route):
    path, sensitive = route
    with transaction.atomic():
        member, _ = member_with_memory("category:medical")
        world = World()
        # two platform admins, two people, from the server
        for person in range(2):
            world.add(OperatorFactory(role=OperatorRole.ADMIN), person)
        world.people = 2
        play(world, history)
        # every pair of one person's accounts: the requester opens and routes, the other
        # account tries to grant; neither it nor any same-person account succeeds
        same_person = [
            (a, b)
            for a in world.accounts
            for b in world.accounts
            if a.pk != b.pk and world.person[a.pk] == world.person[b.pk]
        ]
        for requester, approver in same_person[:8]:
            assert_never_granted(requester, approver, member, path=path, sensitive=sensitive)
        transaction.set_rollback(True)


def assert_never_granted(requester, approver, member, *, path, sensitive) -> None:
    try:
        inspection = open_request(requester, member, include_sensitive=sensitive)
        extra = {}
        if path == S.DSAR_FULFILLMENT:
            extra["dsar_request_id"] = open_dsar(member).pk
        if path == S.INCIDENT_ESCALATION:
            extra["signed_incident_ref"] = incident_ref(member)
        inspection_transition(inspection=inspection, to=path, operator=requester, **extra)
    except DomainError:
        return  # this account may not open or route it: nothing to approve
    inspection.refresh_from_db()
    assert needs_second_approver(path=inspection.state, include_sensitive=sensitive)
    assert inspection.state in ENTRY_PATHS
    for actor in (approver, requester):
        try:
            inspection_transition(inspection=inspection, to=S.GRANTED, operator=actor)
        except NotPermitted as refused:
            assert refused.code in {
                "approver-linked-to-requester",
                "second-approver-required",
                "not-request-owner",
            }
        inspection.refresh_from_db()
        assert inspection.state != S.GRANTED, (path, APPROVING_ROLES[path])
