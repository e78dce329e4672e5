"""The console's data-rights queue (/console/data-rights/): legal and admin see it with the
member's email and the deadline's state as CSS classes, and act on a request — extend it
once with a reason the member is told, move it along the state machine, fail it with a
reason; support and trust & safety are refused; a tenant-bound operator sees only their
tenant's members. Every change is audited with ids and counts, never the reason's text."""

import re
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.template.loader import render_to_string
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from console.datarights import home_section
from datarights import conf
from datarights.models import DataRightsRequest
from iris_site.enums import OperatorRole
from iris_site.models import AuditEvent
from tests.conftest import bearer_client
from tests.datarights.factories import submit
from tests.iris_site.factories import MemberFactory, OperatorFactory, TenantFactory

pytestmark = pytest.mark.django_db

QUEUE = "/console/data-rights/"
REASON = "The export spans three archived mail systems."
FAIL_REASON = "The court order names a different account holder."


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def detail_url(item) -> str:
    return f"{QUEUE}{item.pk}/"


def follow_messages(response) -> str:
    return " ".join(str(m) for m in response.context["messages"])


def _aged(member, kind: str, days_ago: int) -> DataRightsRequest:
    """A request received (and verified by the session) `days_ago` days ago."""
    return submit(member, kind, now=timezone.now() - timedelta(days=days_ago))


def test_urls_are_wired():
    item = SimpleNamespace(pk="00000000-0000-0000-0000-000000000001")
    assert reverse("console:datarights") == QUEUE
    assert reverse("console:datarights-detail", kwargs={"pk": item.pk}) == detail_url(item)
    for name in ("extend", "transition", "fail"):
        assert reverse(f"console:datarights-{name}", kwargs={"pk": item.pk}).endswith(f"/{name}/")


@pytest.mark.parametrize(
    ("role", "expected"),
    [
        (OperatorRole.LEGAL, 200),
        (OperatorRole.ADMIN, 200),
        (OperatorRole.SUPPORT, 403),
        (OperatorRole.TRUST_AND_SAFETY, 403),
    ],
)
def test_legal_and_admin_see_the_queue_support_and_ts_do_not(role, expected):
    member = MemberFactory()
    item = submit(member, "access")
    client = signed_in(OperatorFactory(role=role))
    assert client.get(QUEUE).status_code == expected
    assert client.get(detail_url(item)).status_code == expected
    for action in ("extend", "fail"):
        response = client.post(f"{detail_url(item)}{action}/", {"reason": REASON})
        assert response.status_code == (302 if expected == 200 else 403)
    if expected == 403:
        item.refresh_from_db()
        assert item.extended_deadline_at is None and item.status == "verified"


def test_members_and_anonymous_visitors_never_get_in():
    member = MemberFactory()
    item = submit(member, "access")
    assert signed_in(member).get(QUEUE).status_code == 403
    assert signed_in(member).post(f"{detail_url(item)}extend/", {"reason": "x"}).status_code == 403
    anonymous = Client().get(QUEUE)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/")


def test_the_queue_shows_member_emails_and_deadline_state_as_classes():
    overdue = _aged(MemberFactory(email="late@example.test"), "access", days_ago=40)
    soon = _aged(MemberFactory(email="soon@example.test"), "export", days_ago=26)
    fresh = submit(MemberFactory(email="fresh@example.test"), "access")
    html = signed_in(OperatorFactory(role="legal")).get(QUEUE).content.decode()
    for item, css in (
        (overdue, "deadline-overdue"),
        (soon, "deadline-soon"),
        (fresh, "deadline-ok"),
    ):
        row = re.search(
            rf'<tr>\s*<th scope="row"><a href="{detail_url(item)}">(.*?)</tr>', html, re.S
        )
        assert row, item.member.email
        assert item.member.email in row.group(1) and css in row.group(1)
    # soonest deadline first; no inline styles (the CSP would block them)
    assert html.index("late@") < html.index("soon@") < html.index("fresh@")
    assert "style=" not in html


def test_the_queue_filters_by_deadline_and_state():
    overdue = _aged(MemberFactory(), "access", days_ago=40)
    soon = _aged(MemberFactory(), "export", days_ago=26)
    fresh = submit(MemberFactory(), "access")
    client = signed_in(OperatorFactory(role="admin"))

    def shown(**query) -> set[str]:
        html = client.get(QUEUE, query).content.decode()
        return {str(i.member.email) for i in (overdue, soon, fresh) if i.member.email in html}

    assert shown(deadline="overdue") == {overdue.member.email}
    assert shown(deadline="soon") == {soon.member.email}
    assert shown(deadline="ok") == {fresh.member.email}
    assert shown(state="verified") == {overdue.member.email, soon.member.email, fresh.member.email}
    assert shown(state="completed") == set()


def test_legal_extends_once_and_the_member_sees_the_notice():
    member = MemberFactory()
    item = submit(member, "access")
    client = signed_in(OperatorFactory(role="legal"))

    response = client.post(f"{detail_url(item)}extend/", {"reason": REASON}, follow=True)

    assert response.status_code == 200
    assert "Deadline extended" in follow_messages(response)
    item.refresh_from_db()
    assert item.extended_deadline_at is not None and item.due_at == item.extended_deadline_at
    assert item.extension_reason == REASON
    # the full two further months when no date is chosen
    assert timedelta(days=58) <= item.extended_deadline_at - item.deadline_at <= timedelta(days=62)
    # the member's "Your data" page carries the notice, with the new deadline and the reason
    page = signed_in(member).get("/profile/memory/data/").content.decode()
    assert "Notices about your requests" in page and "we need more time" in page
    assert REASON in page
    assert timezone.localtime(item.extended_deadline_at).strftime("%-d %B %Y") in page
    # and the member's receipt over the API
    receipt = bearer_client(member).get(f"/api/v1/me/data-rights/{item.pk}/").json()
    assert receipt["extension"]["reason"] == REASON

    # a second extension is refused with a clear error, and nothing changes
    again = client.post(f"{detail_url(item)}extend/", {"reason": "More time"}, follow=True)
    assert "A deadline is extended only once." in follow_messages(again)
    assert "Already extended once" in again.content.decode()
    before = item.extended_deadline_at
    item.refresh_from_db()
    assert item.extended_deadline_at == before and item.extension_reason == REASON


def test_an_extension_to_a_chosen_date_within_two_months():
    item = submit(MemberFactory(), "export")
    day = (item.deadline_at + timedelta(days=20)).date()
    client = signed_in(OperatorFactory(role="admin"))
    client.post(f"{detail_url(item)}extend/", {"reason": REASON, "until": day.isoformat()})
    item.refresh_from_db()
    assert item.extended_deadline_at.astimezone(conf.deadline_zone()).date() == day
    too_far = (item.deadline_at + timedelta(days=70)).date()
    other = submit(MemberFactory(), "export")
    response = client.post(
        f"{detail_url(other)}extend/", {"reason": REASON, "until": too_far.isoformat()}, follow=True
    )
    assert "At most two further months may be added." in follow_messages(response)
    other.refresh_from_db()
    assert other.extended_deadline_at is None


def test_an_extension_needs_a_reason():
    item = submit(MemberFactory(), "access")
    client = signed_in(OperatorFactory(role="legal"))
    for reason in ("", "   "):
        response = client.post(f"{detail_url(item)}extend/", {"reason": reason})
        assert response.status_code == 400
        assert "This field is required." in response.content.decode()
    item.refresh_from_db()
    assert item.extended_deadline_at is None


def test_moves_along_the_state_machine_and_fails_with_a_reason():
    member = MemberFactory()
    item = submit(member, "access")
    client = signed_in(OperatorFactory(role="legal"))
    page = client.get(detail_url(item)).content.decode()
    assert "Start processing" in page and "Cancel the request" in page
    assert "A verified request cannot be failed." in page

    moved = client.post(f"{detail_url(item)}transition/", {"to": "in-progress"}, follow=True)
    assert "Request moved to in-progress." in follow_messages(moved)
    item.refresh_from_db()
    assert item.status == "in-progress"

    # failing needs a reason
    empty = client.post(f"{detail_url(item)}fail/", {"reason": ""})
    assert empty.status_code == 400
    item.refresh_from_db()
    assert item.status == "in-progress"

    failed = client.post(f"{detail_url(item)}fail/", {"reason": FAIL_REASON}, follow=True)
    assert "Request failed" in follow_messages(failed)
    item.refresh_from_db()
    assert item.status == "failed" and item.failure_code == "operator-decision"
    assert item.failure_reason == FAIL_REASON
    page = signed_in(member).get("/profile/memory/data/").content.decode()
    assert "we could not do it" in page and FAIL_REASON in page


def test_transitions_the_state_machine_refuses_are_refused():
    legal = signed_in(OperatorFactory(role="legal"))
    verified = submit(MemberFactory(), "access")
    # completed only decides an appeal
    refused = legal.post(f"{detail_url(verified)}transition/", {"to": "completed"}, follow=True)
    assert "Only processing completes a request." in follow_messages(refused)
    # failing is never a plain move
    plain_fail = legal.post(f"{detail_url(verified)}transition/", {"to": "failed"}, follow=True)
    assert "That move is not offered." in follow_messages(plain_fail)
    # a verified request cannot be failed
    fail = legal.post(f"{detail_url(verified)}fail/", {"reason": FAIL_REASON}, follow=True)
    assert "A verified request cannot be failed." in follow_messages(fail)
    verified.refresh_from_db()
    assert verified.status == "verified"
    # an unverified request cannot start processing
    unverified = submit(MemberFactory(), "access", session=False)
    start = legal.post(f"{detail_url(unverified)}transition/", {"to": "in-progress"}, follow=True)
    assert "cannot become in-progress" in follow_messages(start)
    unverified.refresh_from_db()
    assert unverified.status == "submitted"
    # a cancelled request offers no move and cannot be extended
    cancel = legal.post(f"{detail_url(unverified)}transition/", {"to": "cancelled"}, follow=True)
    assert "Request moved to cancelled." in follow_messages(cancel)
    page = cancel.content.decode()
    assert "No move is open from cancelled." in page and "Not extendable now" in page
    extend = legal.post(f"{detail_url(unverified)}extend/", {"reason": REASON}, follow=True)
    assert "Only open, verified work is extended." in follow_messages(extend)


def test_an_operator_verifies_out_of_band():
    item = submit(MemberFactory(), "access", session=False)
    client = signed_in(OperatorFactory(role="admin"))
    assert "Mark identity verified" in client.get(detail_url(item)).content.decode()
    client.post(
        f"{detail_url(item)}transition/", {"to": "verified", "verification_method": "court-order"}
    )
    item.refresh_from_db()
    assert item.status == "verified" and item.verification_method == "court-order"


def test_a_tenant_bound_operator_sees_only_their_tenants_members():
    tenant, other = TenantFactory(), TenantFactory()
    ours = submit(MemberFactory(email="ours@example.test", tenants=[tenant]), "access")
    theirs = submit(MemberFactory(email="theirs@example.test", tenants=[other]), "access")
    client = signed_in(OperatorFactory(role="legal", tenant=tenant))
    html = client.get(QUEUE).content.decode()
    assert "ours@example.test" in html and "theirs@example.test" not in html
    assert client.get(detail_url(ours)).status_code == 200
    assert client.get(detail_url(theirs)).status_code == 404
    for action in ("extend", "fail", "transition"):
        body = {"reason": REASON, "to": "in-progress"}
        assert client.post(f"{detail_url(theirs)}{action}/", body).status_code == 404
    theirs.refresh_from_db()
    assert theirs.extended_deadline_at is None and theirs.status == "verified"


def test_audit_events_carry_ids_and_lengths_never_the_reasons():
    member = MemberFactory()
    item = submit(member, "access")
    client = signed_in(OperatorFactory(role="legal"))
    client.post(f"{detail_url(item)}extend/", {"reason": REASON})
    client.post(f"{detail_url(item)}transition/", {"to": "in-progress"})
    client.post(f"{detail_url(item)}fail/", {"reason": FAIL_REASON})
    events = {
        e.action: e
        for e in AuditEvent.objects.filter(target_member_id=member.pk)
        if e.payload.get("request_id") == str(item.pk)
    }
    extended = events["datarights.request.extended"]
    failed = events["datarights.request.failed"]
    assert extended.payload["reason_length"] == len(REASON)
    assert failed.payload["reason_length"] == len(FAIL_REASON)
    assert extended.actor_type == "operator" and failed.actor_type == "operator"
    for event in AuditEvent.objects.filter(target_member_id=member.pk):
        text = str(event.payload)
        assert "archived mail" not in text and "court order names" not in text
    assert "archived mail" not in str(list(item.trail.values_list("detail", flat=True)))


def test_the_home_section_lists_overdue_and_due_soon_for_legal_and_admin():
    tenant = TenantFactory()
    overdue = _aged(MemberFactory(email="late@example.test", tenants=[tenant]), "access", 40)
    soon = _aged(MemberFactory(email="soon@example.test", tenants=[tenant]), "export", 26)
    submit(MemberFactory(email="fresh@example.test", tenants=[tenant]), "access")
    _aged(MemberFactory(email="elsewhere@example.test"), "access", 40)

    section = home_section(SimpleNamespace(user=OperatorFactory(role="legal", tenant=tenant)))

    assert section["template"] == "console/_home_datarights.html"
    assert [r["request"].pk for r in section["overdue"]] == [overdue.pk]
    assert [r["request"].pk for r in section["due_soon"]] == [soon.pk]
    html = render_to_string(section["template"], {"section": section})
    assert "late@example.test" in html and "deadline-overdue" in html
    assert "soon@example.test" in html and "deadline-soon" in html
    assert "fresh@example.test" not in html and "elsewhere@" not in html
    assert home_section(SimpleNamespace(user=OperatorFactory(role="admin")))["count"] == 3
    for role in ("support", "t&s"):
        assert home_section(SimpleNamespace(user=OperatorFactory(role=role))) is None


def test_the_admin_queue_colours_deadlines_with_classes_not_inline_styles():
    """The CSP blocks inline styles: the admin's queue marks deadlines with classes from
    a static stylesheet (and points operators to the console's queue)."""
    late = _aged(MemberFactory(), "access", days_ago=40)
    operator = OperatorFactory(role="admin")
    operator.is_superuser = True
    operator.save()
    html = signed_in(operator).get("/admin/datarights/datarightsrequest/").content.decode()
    assert str(late.pk) in html
    assert (
        'class="deadline deadline-overdue"' in html and 'class="deadline deadline-ok"' not in html
    )
    assert 'style="color' not in html
    assert "datarights/admin.css" in html
    css = Client().get("/static/datarights/admin.css")
    assert css.status_code == 200 and b".deadline-overdue" in b"".join(css.streaming_content)


def test_the_pure_rules_for_deadline_state_and_moves():
    from datarights.policy import can_fail, deadline_state, operator_moves

    now = timezone.now()
    assert (
        deadline_state(status="verified", due_at=now - timedelta(seconds=1), now=now) == "overdue"
    )
    assert deadline_state(status="verified", due_at=now + timedelta(days=6), now=now) == "soon"
    assert deadline_state(status="verified", due_at=now + timedelta(days=8), now=now) == "ok"
    assert deadline_state(status="completed", due_at=now - timedelta(days=1), now=now) == "done"
    # a failed request is still work (retried or appealed): its clock shows
    assert deadline_state(status="failed", due_at=now - timedelta(days=1), now=now) == "overdue"
    assert operator_moves(status="submitted", verified=False) == ["verified", "cancelled"]
    assert operator_moves(status="verified", verified=True) == ["in-progress", "cancelled"]
    assert operator_moves(status="appealed", verified=True) == ["in-progress", "completed"]
    assert operator_moves(status="failed", verified=True) == ["in-progress"]
    assert operator_moves(status="cancelled", verified=False) == []
    assert can_fail(status="in-progress", verified=True)
    assert can_fail(status="appealed", verified=True)
    assert not can_fail(status="verified", verified=True)
    assert not can_fail(status="submitted", verified=False)
