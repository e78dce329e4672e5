"""Attacks on the operator console of issue 20, as a curious operator would try them with
forged requests (Django's test client, no page in between): every console POST checks the
role and the tenant binding on the server, the four-eyes grant is never the requester's,
a deadline is extended once, the CLI refuses an operator whose role may not do what the
subcommand does, and what the console shows for a tenant-bound operator never reveals a
member of another tenant nor any memory content."""

import io

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from datarights.models import DataRightsRequest
from hierarchy.models import ShortTermMemory
from inspection.enums import InspectionState
from inspection.models import InspectionRequest
from iris_site.audit.actions import AuditAction
from iris_site.audit.selectors import action_prefix_q, action_q
from iris_site.enums import OperatorRole
from iris_site.models import AuditEvent
from memory.models import MemoryEntry
from tests.conftest import bearer_client
from tests.datarights.factories import submit
from tests.hierarchy.stm_factories import member_with, write
from tests.inspection.factories import (
    approver_for,
    member_with_memory,
    open_request,
    route,
)
from tests.iris_site.factories import MemberFactory, OperatorFactory, TenantFactory
from tests.memory.factories import consenting_member, remember

pytestmark = pytest.mark.django_db

_S = InspectionState
REASON = "The export spans three archived mail systems."
WHY = "incident 77: reconstructing what the agent saw"
ROLES = OperatorRole.values


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# --- data rights: role and tenant on every POST ----------------------------------------------


@pytest.mark.parametrize("role", [OperatorRole.SUPPORT, OperatorRole.TRUST_AND_SAFETY])
def test_forged_data_rights_posts_as_the_wrong_role_are_refused_and_change_nothing(role):
    item = submit(MemberFactory(), "access")
    client = signed_in(OperatorFactory(role=role))
    base = f"/console/data-rights/{item.pk}/"
    for action, data in (
        ("extend", {"reason": REASON}),
        ("transition", {"to": "in_progress"}),
        ("transition", {"to": "cancelled"}),
        ("fail", {"reason": REASON}),
    ):
        assert client.post(f"{base}{action}/", data).status_code == 403, action
    api = bearer_client(OperatorFactory(role=role))
    assert (
        api.post(
            f"/api/v1/operator/data-rights/{item.pk}/transition/",
            {"to": "cancelled"},
            format="json",
        ).status_code
        == 403
    )
    fresh = DataRightsRequest.objects.get(pk=item.pk)
    assert (fresh.status, fresh.extended_deadline_at, fresh.updated_at) == (
        item.status,
        item.extended_deadline_at,
        item.updated_at,
    )


@pytest.mark.parametrize("role", [OperatorRole.LEGAL, OperatorRole.ADMIN])
def test_a_tenant_bound_operator_cannot_reach_another_tenants_request(role):
    mine, theirs = TenantFactory(), TenantFactory()
    outsider = MemberFactory(email="outsider@example.test", tenants=[theirs])
    item = submit(outsider, "access")
    client = signed_in(OperatorFactory(role=role, tenant=mine))
    base = f"/console/data-rights/{item.pk}/"
    assert client.get(base).status_code == 404
    for action, data in (
        ("extend", {"reason": REASON}),
        ("transition", {"to": "cancelled"}),
        ("fail", {"reason": REASON}),
    ):
        assert client.post(f"{base}{action}/", data).status_code == 404, action
    for path in ("/console/data-rights/?state=all", "/console/"):
        assert "outsider@example.test" not in client.get(path).content.decode(), path
    fresh = DataRightsRequest.objects.get(pk=item.pk)
    assert fresh.status == item.status and fresh.extended_deadline_at is None


def test_a_deadline_is_extended_once_whichever_door_is_used():
    item = submit(MemberFactory(), "access")
    legal = OperatorFactory(role=OperatorRole.LEGAL)
    client = signed_in(legal)
    base = f"/console/data-rights/{item.pk}/"
    assert client.post(f"{base}extend/", {"reason": REASON}).status_code == 302
    first = DataRightsRequest.objects.get(pk=item.pk).extended_deadline_at
    assert first is not None
    client.post(f"{base}extend/", {"reason": "again"})
    other = signed_in(OperatorFactory(role=OperatorRole.ADMIN))
    other.post(f"{base}extend/", {"reason": "and again"})
    api = bearer_client(OperatorFactory(role=OperatorRole.LEGAL))
    again = api.post(
        f"/api/v1/operator/data-rights/{item.pk}/extend/",
        {"until": first.isoformat(), "reason": "once more"},
        format="json",
    )
    assert again.status_code == 409
    fresh = DataRightsRequest.objects.get(pk=item.pk)
    assert fresh.extended_deadline_at == first and fresh.extension_reason == REASON
    assert (
        AuditEvent.objects.filter(
            action__contains="extend", payload__request_id=str(item.pk)
        ).count()
        <= 1
    )


# --- inspections: four eyes, binding, forged steps ------------------------------------------


@pytest.mark.parametrize("path", [_S.ROUTINE_REVIEW, _S.INCIDENT_ESCALATION, _S.DSAR_FULFILLMENT])
def test_the_second_approver_is_never_the_requester_even_with_the_approving_role(path):
    member, _ = member_with_memory("category:medical")
    from inspection.policy import APPROVING_ROLES

    requester = OperatorFactory(role=APPROVING_ROLES[path])
    inspection = route(open_request(requester, member, include_sensitive=True), requester, path)
    client = signed_in(requester)
    client.post(f"/console/inspections/{inspection.pk}/granted/", {})
    inspection.refresh_from_db()
    assert inspection.state == path
    # a second operator of the approving role may
    approver = approver_for(path)
    signed_in(approver).post(f"/console/inspections/{inspection.pk}/granted/", {})
    inspection.refresh_from_db()
    assert inspection.state in (_S.GRANTED, _S.DENIED)
    assert inspection.state == _S.GRANTED or inspection.reason_code


def test_a_tenant_bound_operator_cannot_step_read_or_note_another_tenants_inspection():
    mine, theirs = TenantFactory(), TenantFactory()
    member, _ = member_with_memory(tenants=[theirs])
    requester = OperatorFactory(role=OperatorRole.SUPPORT)
    inspection = open_request(requester, member)
    for role in ROLES:
        client = signed_in(OperatorFactory(role=role, tenant=mine))
        base = f"/console/inspections/{inspection.pk}/"
        assert client.get(base).status_code == 404, role
        for step in (_S.ROUTINE_REVIEW, _S.DENIED, _S.CLOSED, _S.GRANTED):
            assert client.post(f"{base}{step}/", {}).status_code == 404, (role, step)
        assert client.post(f"{base}read/", {"confirm": "on"}).status_code == 404, role
        assert client.post(f"{base}note/", {"body": "x", "category": "other"}).status_code == 404
    assert InspectionRequest.objects.get(pk=inspection.pk).state == _S.REQUESTED


def test_finding_a_member_by_email_posts_reveal_nothing_outside_the_binding():
    mine, theirs = TenantFactory(), TenantFactory()
    MemberFactory(email="outside@example.test", tenants=[theirs])
    operator = OperatorFactory(role=OperatorRole.ADMIN, tenant=mine)
    client = signed_in(operator)
    outside = client.post(
        "/console/inspections/new/",
        {"email": "outside@example.test", "scope": "0", "justification": "x"},
    )
    nobody = client.post(
        "/console/inspections/new/",
        {"email": "nobody@example.test", "scope": "0", "justification": "x"},
    )
    assert outside.status_code == nobody.status_code == 404
    assert "outside@example.test" not in outside.content.decode().replace(
        'value="outside@example.test"', ""
    )
    assert not InspectionRequest.objects.exists()


# --- the dashboard and the home page: counts, never content ---------------------------------


SECRET = "kestrel-lantern therapy notes"


@pytest.mark.parametrize("role", ROLES)
def test_the_dashboard_and_home_carry_no_content(role):
    member = consenting_member()
    remember(member, body=f"I keep {SECRET}", subject="kestrel-lantern")
    client = signed_in(OperatorFactory(role=role))
    for path in (
        "/console/",
        "/console/dashboard/",
        "/console/dashboard/?range=30d",
        "/dashboard/admin/memory-hierarchy",
        "/console/inspections/",
        "/console/reviews/",
        "/console/data-rights/",
    ):
        response = client.get(path)
        assert response.status_code in (200, 403), (path, response.status_code)
        assert "kestrel" not in response.content.decode(), path
        assert member.email not in response.content.decode() or path == "/console/data-rights/"


# --- the CLI: the operator's role decides what it may do ----------------------------------------


def run(*args, operator):
    out = io.StringIO()
    call_command("memory_inspect", *args, "--operator", operator, stdout=out)
    return out.getvalue()


def test_the_cli_refuses_member_data_to_a_role_the_api_refuses_it_to():
    member = member_with()
    row = write(member)
    entry = remember(member).entry
    support = OperatorFactory(email="support-cli@example.test", role=OperatorRole.SUPPORT)
    before = AuditEvent.objects.count()
    for args in (
        ("stm", "--scope", row.scope_id, "--justification", WHY),
        ("ltm", "--entity", str(entry.pk), "--justification", WHY),
        (
            "demote",
            "--entry",
            str(entry.pk),
            "--member",
            str(member.pk),
            "--scope-id",
            "b-1",
            "--justification",
            WHY,
            "--apply",
        ),
    ):
        with pytest.raises(CommandError, match="role"):
            run(*args, operator=support.email)
    assert ShortTermMemory.objects.filter(member=member).count() == 1
    assert (
        not AuditEvent.objects.filter(
            action_prefix_q("admin.memory"),  # the operators' acts, by any name they had
            pk__in=AuditEvent.objects.order_by("sequence").values("pk")[before:],
        )
        .exclude(action_q(AuditAction.HIERARCHY_CLI_INVOKED))
        .exists()
    )
    # counts stay open to every role, as on the API
    assert run("counts", operator=support.email)
    # the roles the API lets read member data may
    ts = OperatorFactory(email="ts-cli@example.test", role=OperatorRole.TRUST_AND_SAFETY)
    assert run("ltm", "--entity", str(entry.pk), "--justification", WHY, operator=ts.email)


def test_the_cli_refuses_a_member_or_an_inactive_operator():
    member = MemberFactory(email="member-cli@example.test")
    gone = OperatorFactory(email="gone-cli@example.test", role=OperatorRole.ADMIN)
    gone.is_active = False
    gone.save()
    for who in (member.email, gone.email, "MEMBER-CLI@example.test"):
        with pytest.raises(CommandError, match="not an operator"):
            run("counts", operator=who)
    assert not AuditEvent.objects.filter(action="hierarchy.cli.invoked").exists()
    assert timezone.now() and MemoryEntry.objects.count() == 0


@pytest.mark.parametrize("scope", ["profile", "other-tenant"])
def test_a_tenant_bound_approver_neither_sees_nor_approves_memory_outside_its_tenant(scope):
    mine, theirs = TenantFactory(), TenantFactory()
    member, _ = member_with_memory(tenants=[mine, theirs])
    remember(
        member,
        category="work",
        subject="course",
        body="Course notes",
        scope={"kind": "tenant", "tenant_id": str(theirs.pk)},
    )
    requester = OperatorFactory(role=OperatorRole.SUPPORT)  # a platform operator
    chosen = (
        {"kind": "profile"}
        if scope == "profile"
        else {"kind": "tenant", "tenant_id": str(theirs.pk)}
    )
    inspection = open_request(requester, member, scope=chosen, include_sensitive=True)
    inspection = route(inspection, requester, _S.ROUTINE_REVIEW)
    bound_admin = OperatorFactory(role=OperatorRole.ADMIN, tenant=mine)
    client = signed_in(bound_admin)
    assert str(inspection.pk) not in client.get("/console/inspections/").content.decode()
    assert str(inspection.pk) not in client.get("/console/").content.decode()
    assert client.get(f"/console/inspections/{inspection.pk}/").status_code == 404
    assert client.post(f"/console/inspections/{inspection.pk}/granted/", {}).status_code == 404
    api = bearer_client(bound_admin)
    assert api.get(f"/api/v1/operator/inspections/{inspection.pk}/").status_code == 404
    inspection.refresh_from_db()
    assert inspection.state == _S.ROUTINE_REVIEW
