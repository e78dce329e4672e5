"""The memory-hierarchy dashboard's refused-writes counter: per consumer and reason code,
last 24 h and 7 days, counted from the refusal audit events (never their content),
rendered to an operator over real HTTP, scoped to a tenant-bound operator's tenant."""

import json
import re
import urllib.request
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from hierarchy.operator import write_refusal_counts
from iris_site.audit.events import Actor, audit_event_append
from iris_site.audit.refusals import WRITE_REFUSED_ACTION, refusal_payload
from iris_site.errors import PolicyRefusal
from iris_site.models import AuditEvent
from iris_site.services import token_issue
from memory.services import memory_off_the_record_set
from memory.turns import conversation_turn_append
from tests.conftest import http_request
from tests.hierarchy.stm_factories import member_with, service_actor, write
from tests.iris_site.factories import PASSWORD, OperatorFactory, ServiceClientFactory, TenantFactory

URL = "/console/dashboard/"
SECRET = "the spare key is under the blue flowerpot"
ROW = re.compile(
    r'<tr data-consumer="(?P<consumer>[^"]*)" data-reason="(?P<reason>[^"]*)">.*?'
    r'<td data-window="24h">(?P<day>\d+)</td><td data-window="7d">(?P<week>\d+)</td></tr>'
)


def backdated_refusal(member, *, consumer, reason, days: float, write_kind="remember"):
    """A refusal event as the write paths record it, `days` ago."""
    audit_event_append(
        action=WRITE_REFUSED_ACTION,
        policy_id="iris-write-refusals-v1",
        actor=Actor.system(),
        severity="warning",
        target_member_id=member.pk,
        payload=refusal_payload(
            write=write_kind, reason=reason, status=422, consumer=consumer, scope_kind="session"
        ),
        occurred_at=timezone.now() - timedelta(days=days),
    )


def dashboard_rows(live_server, operator) -> dict[tuple[str, str], tuple[int, int]]:
    """GET the dashboard over HTTP with the operator's session; the refusal table's rows."""
    client = Client()
    assert client.login(email=operator.email, password=PASSWORD)
    cookie = f"sessionid={client.cookies['sessionid'].value}"
    request = urllib.request.Request(live_server.url + URL, headers={"Cookie": cookie})  # noqa: S310
    with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
        assert response.status == 200
        html = response.read().decode()
    assert SECRET not in html
    return {
        (m["consumer"], m["reason"]): (int(m["day"]), int(m["week"])) for m in ROW.finditer(html)
    }


def assert_no_content_in_any_refusal():
    events = AuditEvent.objects.filter(
        action__in=[WRITE_REFUSED_ACTION, "hierarchy.stm.consolidation_refused"]
    )
    assert events.exists()
    for event in events:
        payload = json.dumps(event.payload)
        assert SECRET not in payload and "flowerpot" not in payload, event.payload
        assert {"write", "reason", "status", "consumer", "scope_kind"} <= set(event.payload)


@pytest.mark.django_db(transaction=True)
def test_the_dashboard_counts_refused_writes_per_consumer_and_reason(live_server):
    # given: real refusals by two surfaces, and older ones inside and outside the week
    member = member_with()
    memory_off_the_record_set(member=member, active=True, actor=Actor.of(member))
    _, token = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    turns = f"{live_server.url}/api/v1/members/{member.pk}/sessions/s-1/turns/"
    for _ in range(2):
        refused = http_request(
            turns, method="POST", token=token, body={"speaker": "member", "text": SECRET}
        )
        assert refused.status == 422
    with pytest.raises(PolicyRefusal):
        write(member, actor=service_actor("tara"), content=SECRET)
    backdated_refusal(member, consumer="assistant", reason="paused", days=3)
    backdated_refusal(member, consumer="assistant", reason="paused", days=8)  # too old
    backdated_refusal(member, consumer=None, reason="sensitive-category-without-consent", days=2)
    # when
    rows = dashboard_rows(live_server, OperatorFactory(role="support"))
    # then: counts only, by consumer and reason, 24 h and 7 days
    assert rows == {
        ("assistant", "paused"): (2, 3),
        ("tara", "paused"): (1, 1),
        ("", "sensitive-category-without-consent"): (0, 1),
    }
    assert_no_content_in_any_refusal()


@pytest.mark.django_db(transaction=True)
def test_a_tenant_bound_operator_counts_only_its_members_refusals(live_server):
    tenant = TenantFactory()
    ours, theirs = member_with(tenants=[tenant]), member_with()
    backdated_refusal(ours, consumer="metis", reason="clear-pending", days=0.1)
    backdated_refusal(theirs, consumer="assistant", reason="paused", days=0.1)
    rows = dashboard_rows(live_server, OperatorFactory(role="support", tenant=tenant))
    assert rows == {("metis", "clear-pending"): (1, 1)}
    everyone = dashboard_rows(live_server, OperatorFactory(role="support"))
    assert everyone == {("metis", "clear-pending"): (1, 1), ("assistant", "paused"): (1, 1)}


@pytest.mark.django_db
def test_the_counter_also_counts_consolidation_refusals_and_nothing_else():
    member = member_with()
    audit_event_append(
        action="hierarchy.stm.consolidation_refused",
        policy_id="iris-hierarchy-stm-v1",
        actor=Actor.system(),
        target_member_id=member.pk,
        payload={
            **refusal_payload(
                write="consolidate",
                reason="forgotten-fact",
                status=422,
                consumer="assistant",
                scope_kind="profile",
            ),
            "trigger": "explicit",
        },
    )
    memory_off_the_record_set(member=member, active=False, actor=Actor.of(member))
    conversation_turn_append(
        member=member,
        session_id="s-1",
        speaker="member",
        text="hello",
        consumer="assistant",
        actor=service_actor(),
    )
    assert write_refusal_counts() == [
        {"consumer": "assistant", "reason": "forgotten-fact", "last_24h": 1, "last_7d": 1}
    ]


@pytest.mark.django_db
def test_no_refusals_renders_an_empty_state():
    client = Client()
    operator = OperatorFactory(role="support")
    assert client.login(email=operator.email, password=PASSWORD)
    html = client.get(URL).content.decode()
    assert 'data-testid="refusals-none"' in html
