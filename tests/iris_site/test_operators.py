"""Operator accounts and roles change only through `iris_site.operators`: recorded,
audited on the platform chain, an approving role pending a second unlinked admin; the
admin routes through it and refuses a raw profile write; the console lists and decides."""

import pytest
from django.core.management import call_command
from django.urls import reverse

from iris_site.audit.selectors import audit_chain_verify
from iris_site.enums import OperatorRole, UserKind
from iris_site.errors import Conflict, InvalidInput, NotPermitted
from iris_site.models import (
    AuditEvent,
    OperatorAccountChange,
    OperatorProfile,
    OperatorSignIn,
    User,
)
from iris_site.models.identity import OperatorWriteBypassed
from iris_site.operators import (
    DEVICE_COOKIE,
    FOUR_EYES_ROLES,
    operator_active_set,
    operator_change_decide,
    operator_create,
    operator_role_change,
    operator_tenant_change,
    operators_linked,
)
from tests.iris_site.factories import PASSWORD, OperatorFactory, TenantFactory

pytestmark = pytest.mark.django_db

PREFIX = "iris_site.operator_account."


def actions():
    return list(
        AuditEvent.objects.filter(action__startswith=PREFIX)
        .order_by("sequence")
        .values_list("action", flat=True)
    )


@pytest.fixture
def admin():
    return OperatorFactory(role=OperatorRole.ADMIN)


@pytest.fixture
def second_admin():
    return OperatorFactory(role=OperatorRole.ADMIN)


def role(user) -> str:
    return OperatorProfile.objects.get(user=user).role


def test_four_eyes_roles_are_the_inspection_approving_roles_and_admin():
    from inspection.policy import APPROVING_ROLES

    assert set(APPROVING_ROLES.values()) | {OperatorRole.ADMIN} == FOUR_EYES_ROLES


def test_a_support_account_is_created_recorded_and_audited_on_the_platform_chain(admin):
    # when
    support = operator_create(email="s@example.test", password=PASSWORD, role="support", by=admin)
    # then
    assert role(support) == "support" and support.is_staff
    (change,) = OperatorAccountChange.objects.filter(subject=support)
    assert (change.kind, change.state, change.role_to, change.requested_by) == (
        "created",
        "applied",
        "support",
        admin,
    )
    event = AuditEvent.objects.get(action=PREFIX + "created")
    assert event.target_member_id is None and event.actor_id == admin.pk
    assert event.payload["subject_id"] == str(support.pk)
    assert "s@example.test" not in str(event.payload)
    assert audit_chain_verify().valid


def test_an_approving_role_asked_for_by_a_person_waits_for_a_second_admin(admin, second_admin):
    # when the admin creates a legal account
    legal = operator_create(email="l@example.test", password=PASSWORD, role="legal", by=admin)
    # then it is support until a second admin approves
    assert role(legal) == "support"
    pending = OperatorAccountChange.objects.get(subject=legal, kind="role")
    assert (pending.state, pending.role_from, pending.role_to) == ("pending", "support", "legal")
    assert actions() == [PREFIX + "created", PREFIX + "change_requested"]
    # the asking admin cannot approve it, nor can the subject
    for who in (admin, legal):
        with pytest.raises(NotPermitted) as refused:
            operator_change_decide(change=pending, by=who, approve=True)
        assert refused.value.code in {"decider-is-party", "not-platform-admin"}
    assert role(legal) == "support"
    assert actions()[-1] == PREFIX + "change_rejected"
    # a second, unlinked admin approves
    operator_change_decide(change=pending, by=second_admin, approve=True)
    assert role(legal) == "legal"
    pending.refresh_from_db()
    assert (pending.state, pending.decided_by) == ("applied", second_admin)
    assert actions()[-1] == PREFIX + "change_approved"


def test_an_admin_switching_its_own_role_to_legal_waits_and_cannot_approve_itself(
    admin, second_admin
):
    change = operator_role_change(subject=admin, role="legal", by=admin)
    assert change.state == "pending" and role(admin) == "admin"
    with pytest.raises(NotPermitted) as refused:
        operator_change_decide(change=change, by=admin, approve=True)
    assert refused.value.code == "decider-is-party"
    # a second admin it created recently is linked to it: refused too
    puppet = operator_create(email="p@example.test", password=PASSWORD, role="support", by=admin)
    OperatorProfile.objects.filter(user=puppet).update(role="admin")  # as if long approved
    with pytest.raises(NotPermitted) as refused:
        operator_change_decide(change=change, by=puppet, approve=True)
    assert refused.value.code == "decider-linked"
    assert role(admin) == "admin"
    # an unlinked admin may refuse it
    operator_change_decide(change=change, by=second_admin, approve=False)
    change.refresh_from_db()
    assert change.state == "refused" and role(admin) == "admin"
    with pytest.raises(Conflict):
        operator_change_decide(change=change, by=second_admin, approve=True)


def test_lowering_a_role_applies_at_once_and_bad_input_is_refused(admin):
    legal = OperatorFactory(role="legal")
    change = operator_role_change(subject=legal, role="support", by=admin)
    assert change.state == "applied" and role(legal) == "support"
    assert PREFIX + "role_changed" in actions()
    with pytest.raises(InvalidInput):
        operator_role_change(subject=legal, role="root", by=admin)
    with pytest.raises(Conflict):
        operator_role_change(subject=legal, role="support", by=admin)
    with pytest.raises(NotPermitted):
        operator_role_change(subject=admin, role="support", by=legal)


def test_moving_an_approver_to_another_tenant_waits_for_a_second_admin(admin, second_admin):
    # given a legal operator bound to one tenant
    first, other = TenantFactory(), TenantFactory()
    legal = OperatorFactory(role="legal", tenant=first)
    # when an admin moves it to another tenant (approving for members it could not before)
    change = operator_tenant_change(subject=legal, tenant=other, by=admin)
    # then the move waits, and applies only when a second admin approves it
    assert change.state == "pending"
    assert OperatorProfile.objects.get(user=legal).tenant == first
    operator_change_decide(change=change, by=second_admin, approve=True)
    assert OperatorProfile.objects.get(user=legal).tenant == other
    # narrowing a platform-wide approver to one tenant applies at once
    platform_legal = OperatorFactory(role="legal")
    narrowed = operator_tenant_change(subject=platform_legal, tenant=first, by=admin)
    assert narrowed.state == "applied"


def test_tenant_changes_and_deactivation_are_recorded(admin):
    tenant = TenantFactory()
    support = OperatorFactory(role="support")
    operator_tenant_change(subject=support, tenant=tenant, by=admin)
    assert OperatorProfile.objects.get(user=support).tenant == tenant
    operator_active_set(subject=support, active=False, by=admin)
    support.refresh_from_db()
    assert not support.is_active
    operator_active_set(subject=support, active=True, by=admin)
    # widening an approving role to every tenant waits
    legal = OperatorFactory(role="legal", tenant=tenant)
    assert operator_tenant_change(subject=legal, tenant=None, by=admin).state == "pending"
    with pytest.raises(NotPermitted):
        operator_active_set(subject=admin, active=False, by=admin)
    assert [c.kind for c in OperatorAccountChange.objects.order_by("requested_at")] == [
        "tenant",
        "deactivated",
        "reactivated",
        "tenant",
    ]


def test_a_role_saved_around_the_service_is_refused():
    support = OperatorFactory(role="support")
    profile = OperatorProfile.objects.get(user=support)
    profile.role = "legal"
    with pytest.raises(OperatorWriteBypassed):
        profile.save()
    assert role(support) == "support"


def test_commands_on_the_server_are_recorded_with_no_author(monkeypatch):
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", PASSWORD)
    call_command("createsuperuser", "--noinput", "--email", "root@example.test", verbosity=0)
    root = User.objects.get(email="root@example.test")
    change = OperatorAccountChange.objects.get(subject=root)
    assert (change.kind, change.requested_by) == ("created", None)
    event = AuditEvent.objects.get(action=PREFIX + "created")
    assert event.actor_type == "system" and event.payload["superuser"] is True
    legal = operator_create(email="c@example.test", password=PASSWORD, role="legal")
    assert role(legal) == "legal"  # a command applies at once


def test_linked_reads_the_recorded_changes(admin):
    a = operator_create(email="a@example.test", password=PASSWORD, role="support", by=admin)
    b = operator_create(email="b@example.test", password=PASSWORD, role="support", by=admin)
    stranger = OperatorFactory(role="legal")
    assert operators_linked(a, b) == ("same-author",)
    assert operators_linked(admin, a) == ("role-granted", "account-changed")
    assert operators_linked(a, stranger) == ()


# --- Sign-ins ------------------------------------------------------------------------------


def test_an_operator_sign_in_keeps_only_a_keyed_digest_of_its_browser(client):
    a = OperatorFactory(role="legal")
    b = OperatorFactory(role="legal")
    response = client.post(
        reverse("login"), {"username": a.email, "password": PASSWORD}, HTTP_USER_AGENT="UA"
    )
    assert response.status_code == 302
    device = response.cookies[DEVICE_COOKIE]
    assert device["httponly"] and len(device.value) == 32
    (signin,) = OperatorSignIn.objects.all()
    assert signin.user == a and device.value not in signin.device_digest
    client.post(reverse("logout"))
    # the same browser signs in as b: a and b are one person now
    client.post(reverse("login"), {"username": b.email, "password": PASSWORD})
    assert operators_linked(a, b) == ("shared-device",)


def test_a_member_sign_in_is_not_tracked(client):
    from tests.iris_site.factories import MemberFactory

    member = MemberFactory()
    response = client.post(reverse("login"), {"username": member.email, "password": PASSWORD})
    assert response.status_code == 302 and DEVICE_COOKIE not in response.cookies
    assert not OperatorSignIn.objects.exists()


# --- The admin -----------------------------------------------------------------------------


def change_form(client, user) -> dict:
    """The admin change form's fields as the page would post them."""
    url = reverse("admin:iris_site_user_change", args=[user.pk])
    form = client.get(url).context["adminform"].form
    data = {
        key: value
        for key, value in form.initial.items()
        if key in form.fields and value is not None and key not in ("password", "groups")
    }
    data |= {
        "operator_profile-TOTAL_FORMS": "1",
        "operator_profile-INITIAL_FORMS": "1",
        "operator_profile-MIN_NUM_FORMS": "0",
        "operator_profile-MAX_NUM_FORMS": "0",
        "operator_profile-0-user": str(user.pk),
        "tenant_memberships-TOTAL_FORMS": "0",
        "tenant_memberships-INITIAL_FORMS": "0",
        "tenant_memberships-MIN_NUM_FORMS": "0",
        "tenant_memberships-MAX_NUM_FORMS": "1000",
    }
    data["role"] = form.fields["role"].initial
    return {k: v for k, v in data.items() if v != ""} | {"tenant": ""}


@pytest.fixture
def superadmin():
    user = OperatorFactory(role=OperatorRole.ADMIN)
    User.objects.filter(pk=user.pk).update(is_superuser=True)
    return User.objects.get(pk=user.pk)


def test_a_raw_admin_form_writing_the_role_is_refused_and_audited(client, superadmin):
    support = OperatorFactory(role="support")
    client.force_login(superadmin)
    url = reverse("admin:iris_site_user_change", args=[support.pk])
    data = change_form(client, support) | {"operator_profile-0-role": "legal"}
    # when
    response = client.post(url, data)
    # then
    assert response.status_code == 200
    assert "change only through the audited service" in response.content.decode()
    assert role(support) == "support"
    event = AuditEvent.objects.get(action=PREFIX + "change_rejected")
    assert event.payload["refusal"] == "operator-change-bypasses-service"
    assert event.actor_id == superadmin.pk


def test_the_admin_form_changes_a_role_through_the_service(client, superadmin):
    support = OperatorFactory(role="support")
    client.force_login(superadmin)
    url = reverse("admin:iris_site_user_change", args=[support.pk])
    response = client.post(url, change_form(client, support) | {"role": "legal"}, follow=True)
    assert response.status_code == 200
    assert "waits for a second platform admin" in response.content.decode()
    assert role(support) == "support"
    change = OperatorAccountChange.objects.get(subject=support)
    assert (change.state, change.role_to, change.requested_by) == ("pending", "legal", superadmin)
    # and a lowering applies
    response = client.post(url, change_form(client, support) | {"role": "support"}, follow=True)
    assert role(support) == "support"


def test_the_admin_add_form_creates_an_operator_through_the_service(client, superadmin):
    client.force_login(superadmin)
    response = client.post(
        reverse("admin:iris_site_user_add"),
        {
            "email": "new-legal@example.test",
            "kind": UserKind.OPERATOR,
            "password1": "a-long-enough-passphrase-1",
            "password2": "a-long-enough-passphrase-1",
            "usable_password": "true",
            "role": "legal",
            "tenant": "",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    new = User.objects.get(email="new-legal@example.test")
    assert new.check_password("a-long-enough-passphrase-1") and new.is_staff
    assert role(new) == "support"
    kinds = list(OperatorAccountChange.objects.filter(subject=new).values_list("kind", "state"))
    assert sorted(kinds) == [("created", "applied"), ("role", "pending")]


def test_the_admin_add_form_refuses_an_operator_without_a_role(client, superadmin):
    client.force_login(superadmin)
    response = client.post(
        reverse("admin:iris_site_user_add"),
        {
            "email": "x@example.test",
            "kind": UserKind.OPERATOR,
            "password1": "a-long-enough-passphrase-1",
            "password2": "a-long-enough-passphrase-1",
            "usable_password": "true",
        },
    )
    assert response.status_code == 200
    assert not User.objects.filter(email="x@example.test").exists()


# --- The console ---------------------------------------------------------------------------

PAGE = "/console/operators/"


def test_the_console_lists_changes_and_a_linked_admin_sees_approve_disabled(
    client, admin, second_admin
):
    legal = operator_create(email="l@example.test", password=PASSWORD, role="legal", by=admin)
    change = OperatorAccountChange.objects.get(subject=legal, state="pending")
    # the asking admin: Approve is disabled, with why
    client.force_login(admin)
    page = client.get(PAGE).content.decode()
    assert "l@example.test" in page and "Waiting for a second admin" in page
    assert "disabled" in page and "never whoever asked" in page
    response = client.post(f"{PAGE}changes/{change.pk}/approve/")
    assert response.status_code == 403
    # the second admin approves
    client.force_login(second_admin)
    response = client.post(f"{PAGE}changes/{change.pk}/approve/")
    assert response.status_code == 302
    assert role(legal) == "legal"


def test_the_console_answers_bad_input_with_4xx(client, admin):
    client.force_login(admin)
    assert client.post(f"{PAGE}role/", {"email": "nope", "role": "legal"}).status_code == 400
    assert client.post(f"{PAGE}role/", {"email": "n@example.test", "role": "x"}).status_code == 400
    assert (
        client.post(f"{PAGE}role/", {"email": "ghost@example.test", "role": "legal"}).status_code
        == 404
    )
    support = OperatorFactory(role="support")
    response = client.post(f"{PAGE}role/", {"email": support.email, "role": "support"})
    assert response.status_code == 409
    change = operator_role_change(subject=support, role="legal", by=OperatorFactory(role="admin"))
    assert client.post(f"{PAGE}changes/{change.pk}/maybe/").status_code == 404
    assert (
        client.post(f"{PAGE}changes/00000000-0000-4000-8000-000000000000/approve/").status_code
        == 404
    )
    # a tenant-bound admin and other roles are refused
    client.force_login(OperatorFactory(role="admin", tenant=TenantFactory()))
    assert client.get(PAGE).status_code == 403
    client.force_login(OperatorFactory(role="legal"))
    assert client.get(PAGE).status_code == 403


def test_the_admin_deactivates_an_operator_through_the_service(client, superadmin):
    support = OperatorFactory(role="support")
    client.force_login(superadmin)
    url = reverse("admin:iris_site_user_change", args=[support.pk])
    data = change_form(client, support)
    data.pop("is_active", None)  # an unticked box is not posted
    response = client.post(url, data)
    assert response.status_code == 302
    support.refresh_from_db()
    assert not support.is_active
    change = OperatorAccountChange.objects.get(subject=support)
    assert (change.kind, change.requested_by) == ("deactivated", superadmin)
    assert PREFIX + "deactivated" in actions()


def test_the_admin_still_adds_a_member_without_a_role(client, superadmin):
    client.force_login(superadmin)
    response = client.post(
        reverse("admin:iris_site_user_add"),
        {
            "email": "member@example.test",
            "kind": UserKind.MEMBER,
            "password1": "a-long-enough-passphrase-1",
            "password2": "a-long-enough-passphrase-1",
            "usable_password": "true",
        },
    )
    assert response.status_code == 302
    member = User.objects.get(email="member@example.test")
    assert member.is_member and not OperatorProfile.objects.filter(user=member).exists()
    assert not OperatorAccountChange.objects.exists()


def test_only_a_platform_admin_adds_an_operator_in_the_admin(client):
    legal = OperatorFactory(role="legal")
    User.objects.filter(pk=legal.pk).update(is_superuser=True)
    client.force_login(legal)
    response = client.post(
        reverse("admin:iris_site_user_add"),
        {
            "email": "puppet@example.test",
            "kind": UserKind.OPERATOR,
            "password1": "a-long-enough-passphrase-1",
            "password2": "a-long-enough-passphrase-1",
            "usable_password": "true",
            "role": "legal",
        },
    )
    assert response.status_code == 200
    assert "Only a platform admin creates operator accounts." in response.content.decode()
    assert not User.objects.filter(email="puppet@example.test").exists()


def test_the_admin_sign_in_keeps_the_browser_digest_too(client):
    a = OperatorFactory(role="admin")
    response = client.post("/admin/login/", {"username": a.email, "password": PASSWORD})
    assert response.status_code == 302
    assert DEVICE_COOKIE in response.cookies
    assert OperatorSignIn.objects.filter(user=a).count() == 1
