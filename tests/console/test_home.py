"""The operator home (/console/): what is waiting for this operator, by role — their own
inspections to route or decide and others' they approve as the second pair of eyes,
data-rights requests overdue or due within 7 days (legal, admin), retention reviews due
(admin, trust & safety), failed and stalled background tasks (platform admins) — each
linking to its page; member emails, never memory content. Members, anonymous visitors and
operators without a role are refused; signing in lands each kind on its own place."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from inspection.enums import InspectionState
from iris_site.enums import OperatorRole
from iris_site.models import User
from memory.models import RetentionReview
from tests.datarights.factories import submit
from tests.inspection.factories import member_with_memory, open_request, route
from tests.iris_site.factories import PASSWORD, MemberFactory, OperatorFactory, TenantFactory
from tests.memory.factories import remember

pytestmark = pytest.mark.django_db

HOME = "/console/"
_S = InspectionState
SECRET_SUBJECT = "coffee"  # what member_with_memory remembers: never on the home page


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def home(user) -> str:
    response = signed_in(user).get(HOME)
    assert response.status_code == 200
    html = response.content.decode()
    assert "style=" not in html
    return html


def links(html: str) -> set[str]:
    body = html.split("<h1>Waiting for you</h1>", 1)[1]
    return set(re.findall(r'<a href="([^"]+)"', body))


def headings(html: str) -> list[str]:
    return re.findall(r"<h2[^>]*>([^<]+)</h2>", html)


def aged(member, kind: str, days_ago: int):
    """A data-rights request received (and verified) `days_ago` days ago (30-day deadline)."""
    return submit(member, kind, now=timezone.now() - timedelta(days=days_ago))


def review_due(member) -> RetentionReview:
    """An open retention review of one of the member's memories, due since yesterday."""
    entry = remember(member, subject="rota").entry
    now = timezone.now()
    return RetentionReview.objects.create(
        member=member, entry=entry, due_at=now - timedelta(days=1), flagged_at=now
    )


def task(status: str, **fields) -> DBTaskResult:
    return DBTaskResult.objects.create(
        **{
            "status": status,
            "task_path": "datarights.tasks.datarights_process",
            "args_kwargs": {"args": ["late@example.test"], "kwargs": {}},
            "backend_name": "default",
            "run_after": timezone.now(),
            "exception_class_path": "",
            "traceback": "",
        }
        | fields
    )


def test_support_sees_their_own_requests_to_decide_and_only_those_parts():
    # given support's own routine request, and a data-rights request due soon
    support = OperatorFactory(role=OperatorRole.SUPPORT)
    member, _ = member_with_memory()
    mine = open_request(support, member)
    aged(MemberFactory(), "access", days_ago=26)
    # when
    html = home(support)
    # then the request is listed with the member's email and links to its page
    assert headings(html) == ["Inspections"]
    assert "Awaiting your decision" in html and member.email in html
    assert f"/console/inspections/{mine.pk}/" in links(html)
    assert SECRET_SUBJECT not in html.split("<h1>", 1)[1]
    # and every link on it opens for support
    client = signed_in(support)
    for href in links(html):
        assert client.get(href).status_code == 200, href


def test_legal_sees_a_dsar_to_approve_and_data_rights_requests_by_deadline():
    # given another legal operator's sensitive DSAR request, and three data-rights requests
    requester = OperatorFactory(role=OperatorRole.LEGAL)
    legal = OperatorFactory(role=OperatorRole.LEGAL)
    member, _ = member_with_memory("category:medical")
    dsar = route(
        open_request(requester, member, include_sensitive=True), requester, _S.DSAR_FULFILLMENT
    )
    late = aged(MemberFactory(email="late@example.test"), "access", days_ago=40)
    soon = aged(MemberFactory(email="soon@example.test"), "export", days_ago=26)
    submit(MemberFactory(email="fresh@example.test"), "access")
    # when
    html = home(legal)
    # then
    assert headings(html) == ["Inspections", "Data-rights requests due"]
    assert "you are the second approver" in html
    assert f"/console/inspections/{dsar.pk}/" in links(html)
    overdue, due_soon = html.split("<h3>Overdue</h3>", 1)[1].split("<h3>Due within 7 days</h3>")
    assert "late@example.test" in overdue and f"/console/data-rights/{late.pk}/" in overdue
    assert "soon@example.test" in due_soon and f"/console/data-rights/{soon.pk}/" in due_soon
    assert "fresh@example.test" not in html
    # and the requester sees it waiting for a second approver
    assert "Awaiting a second approver" in home(requester)
    client = signed_in(legal)
    for href in links(html):
        assert client.get(href).status_code == 200, href


def test_trust_and_safety_sees_retention_reviews_due_but_not_data_rights():
    ts = OperatorFactory(role=OperatorRole.TRUST_AND_SAFETY)
    member = member_with_memory()[0]
    review_due(member)
    aged(MemberFactory(), "access", days_ago=40)
    html = home(ts)
    assert headings(html) == ["Retention reviews due"]
    assert member.email in html and "/console/reviews/" in links(html)
    assert SECRET_SUBJECT not in html.split("<h1>", 1)[1]
    client = signed_in(ts)
    for href in links(html):
        assert client.get(href).status_code == 200, href


def test_a_platform_admin_sees_failed_and_stalled_tasks_by_id_never_their_arguments():
    admin = OperatorFactory(role=OperatorRole.ADMIN)
    now = timezone.now()
    failed = task(
        TaskResultStatus.FAILED,
        finished_at=now - timedelta(hours=2),
        exception_class_path="builtins.RuntimeError",
        traceback="RuntimeError: late@example.test",
    )
    stalled = task(TaskResultStatus.RUNNING, started_at=now - timedelta(hours=3))
    task(TaskResultStatus.FAILED, finished_at=now - timedelta(days=9))  # outside 7 days
    html = home(admin)
    assert "Background tasks" in headings(html)
    assert str(failed.pk) in html and str(stalled.pk) in html
    assert 'data-testid="jobs-failed">1<' in html
    assert 'data-testid="jobs-stalled">1<' in html
    assert "builtins.RuntimeError" in html and "late@example.test" not in html
    assert "/console/dashboard/" in links(html)


def test_a_tenant_bound_admin_sees_only_their_tenant_and_no_platform_tasks():
    tenant, other = TenantFactory(), TenantFactory()
    admin = OperatorFactory(role=OperatorRole.ADMIN, tenant=tenant)
    ours = aged(MemberFactory(email="ours@example.test", tenants=[tenant]), "access", 40)
    aged(MemberFactory(email="theirs@example.test", tenants=[other]), "access", 40)
    task(TaskResultStatus.FAILED, finished_at=timezone.now())
    html = home(admin)
    assert "ours@example.test" in html and f"/console/data-rights/{ours.pk}/" in html
    assert "theirs@example.test" not in html
    assert "Background tasks" not in headings(html)


def test_nothing_waiting_says_so():
    html = home(OperatorFactory(role=OperatorRole.SUPPORT))
    assert 'data-testid="nothing-waiting"' in html


def test_the_nav_links_every_part_of_the_console():
    html = home(OperatorFactory(role=OperatorRole.ADMIN))
    nav = html.split('<nav class="console-nav"', 1)[1].split("</nav>", 1)[0]
    found = re.findall(r'<a href="([^"]+)"[^>]*>([^<]+)</a>', nav)
    assert found == [
        ("/console/", "Waiting for you"),
        ("/console/inspections/", "Inspections"),
        ("/console/data-rights/", "Data rights"),
        ("/console/reviews/", "Reviews"),
        ("/console/webhooks/", "Webhooks"),
        ("/console/operators/", "Operators"),
        ("/console/dashboard/", "Dashboard"),
    ]
    assert 'href="/console/" aria-current="page"' in nav


@pytest.mark.parametrize(
    ("role", "links"),
    [
        (OperatorRole.SUPPORT, ["Waiting for you", "Inspections", "Dashboard"]),
        (OperatorRole.LEGAL, ["Waiting for you", "Inspections", "Data rights", "Dashboard"]),
        (OperatorRole.TRUST_AND_SAFETY, ["Waiting for you", "Inspections", "Reviews", "Dashboard"]),
    ],
)
def test_the_nav_offers_only_the_pages_the_role_may_open(role, links):
    operator = OperatorFactory(role=role)
    html = home(operator)
    nav = html.split('<nav class="console-nav"', 1)[1].split("</nav>", 1)[0]
    found = re.findall(r'<a href="([^"]+)"[^>]*>([^<]+)</a>', nav)
    assert [label for _, label in found] == links
    # and every page it offers opens for that role
    for href, _ in found:
        assert signed_in(operator).get(href).status_code == 200, href


def test_members_anonymous_visitors_and_operators_without_a_role_are_refused():
    assert signed_in(MemberFactory()).get(HOME).status_code == 403
    anonymous = Client().get(HOME)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/")
    roleless = User.objects.create_superuser("root@example.test", PASSWORD)
    assert signed_in(roleless).get(HOME).status_code == 403


@pytest.mark.parametrize(
    ("make", "lands_on"),
    [
        (lambda: OperatorFactory(role=OperatorRole.SUPPORT), "/console/"),
        (lambda: OperatorFactory(role=OperatorRole.LEGAL), "/console/"),
        (lambda: MemberFactory(), "/profile/memory/"),
    ],
)
def test_signing_in_lands_operators_on_the_console_and_members_on_their_memory(make, lands_on):
    user = make()
    client = Client()
    response = client.post(
        "/accounts/login/", {"username": user.email, "password": PASSWORD}, follow=True
    )
    assert response.status_code == 200
    assert response.redirect_chain[-1][0] == lands_on
    # and the public home stays public
    assert Client().get("/").status_code == 200
