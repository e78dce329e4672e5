"""The console dashboard (/console/dashboard/): a time range (24 h, 7 d, 30 d) chosen by
a GET form; trends per hour or per day of recalls by surface, writes, refusals by reason,
consolidations, expiries, inspections and data-rights requests, each an SVG chart with
labelled axes and the same numbers as a table; task health for platform operators; and
for a tenant-bound operator, figures counted by its members' tenancy — equal to a raw SQL
count — not by the optional `target_tenant_id` column. Counts only, never content."""

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from iris_site.audit.events import Actor, audit_event_append
from iris_site.audit.refusals import WRITE_REFUSED_ACTION, refusal_payload
from iris_site.models import AuditEvent, TenantMembership, User
from tests.hierarchy.stm_factories import events, member_with, write
from tests.iris_site.factories import PASSWORD, MemberFactory, OperatorFactory, TenantFactory

pytestmark = pytest.mark.django_db

URL = "/console/dashboard/"
SECRET = "prefers morning walks by the canal"


def page(user, **query) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(URL, query)
    assert response.status_code == 200
    html = response.content.decode()
    assert SECRET not in html and "style=" not in html
    return html


def shown(html: str, name: str) -> str:
    found = re.search(rf'data-testid="{re.escape(name)}">([^<]*)<', html)
    assert found, name
    return found.group(1)


def table_rows(html: str, chart: str) -> list[tuple[str, list[int]]]:
    """The fallback table of one chart: (bucket, counts per series) per row."""
    table = html.split(f'data-testid="{chart}-table">', 1)[1].split("</table>", 1)[0]
    rows = []
    for row in re.findall(r"<tr><th scope=\"row\">(.*?)</tr>", table, re.S):
        bucket = re.search(r'datetime="([^"]+)"', row).group(1)
        rows.append((bucket, [int(n) for n in re.findall(r"<td>(\d+)</td>", row)]))
    return rows


def table_header(html: str, chart: str) -> list[str]:
    table = html.split(f'data-testid="{chart}-table">', 1)[1].split("</thead>", 1)[0]
    return re.findall(r'<th scope="col">([^<]+)</th>', table)


def event(action: str, member, *, hours_ago: float, tenant=None, **payload) -> None:
    audit_event_append(
        action=action,
        policy_id="test",
        actor=Actor.system(),
        target_member_id=member.pk,
        target_tenant_id=None if tenant is None else tenant.pk,
        payload=payload,
        occurred_at=timezone.now() - timedelta(hours=hours_ago),
    )


def refusal(member, reason: str, *, hours_ago: float) -> None:
    audit_event_append(
        action=WRITE_REFUSED_ACTION,
        policy_id="iris-write-refusals-v1",
        actor=Actor.system(),
        severity="warning",
        target_member_id=member.pk,
        payload=refusal_payload(
            write="remember", reason=reason, status=422, consumer="assistant", scope_kind="session"
        ),
        occurred_at=timezone.now() - timedelta(hours=hours_ago),
    )


@pytest.mark.parametrize(
    ("range_key", "buckets", "x_title"),
    [
        ("24h", 24, "Hour (UTC)"),
        ("7d", 7, "Day (UTC)"),
        ("30d", 30, "Day (UTC)"),
    ],
)
def test_each_time_range_buckets_every_trend_with_labelled_axes(range_key, buckets, x_title):
    write(member_with(), content=SECRET)
    html = page(OperatorFactory(role="admin"), range=range_key)
    assert f'<option value="{range_key}" selected>' in html
    for key in (
        "recalls",
        "writes",
        "refusals",
        "consolidations",
        "expiries",
        "inspections",
        "datarights",
    ):
        assert len(table_rows(html, f"chart-{key}")) == buckets, key
        svg = html.split(f'data-chart="chart-{key}"', 1)[1].split("</svg>", 1)[0]
        assert 'role="img"' in svg and ">Count</text>" in svg and f">{x_title}</text>" in svg
    assert shown(html, "trend-writes-total") == "1"
    assert table_header(html, "chart-writes") == [x_title, "long-term", "short-term", "Total"]
    [read] = events("hierarchy.counts.read")
    assert read.payload == {"surface": "dashboard", "range": range_key, "failed_parts": []}


def test_an_unknown_range_is_the_default_not_an_error():
    html = page(OperatorFactory(), range="1y")
    assert '<option value="24h" selected>' in html


def test_refusals_by_reason_per_day_match_the_events():
    member = member_with()
    refusal(member, "scope-suppressed", hours_ago=1)
    refusal(member, "scope-suppressed", hours_ago=50)
    refusal(member, "consent-missing", hours_ago=50)
    refusal(member, "consent-missing", hours_ago=24 * 12)  # outside 7 days
    html = page(OperatorFactory(), range="7d")
    assert table_header(html, "chart-refusals") == [
        "Day (UTC)",
        "consent-missing",
        "scope-suppressed",
        "Total",
    ]
    rows = dict(table_rows(html, "chart-refusals"))
    day = lambda hours: (  # noqa: E731
        (timezone.now() - timedelta(hours=hours))
        .replace(hour=0, minute=0, second=0, microsecond=0)
        .isoformat()
    )
    assert rows[day(1)] == [0, 1, 1]
    assert rows[day(50)] == [1, 1, 2]
    assert sum(r[-1] for r in rows.values()) == 3
    assert shown(html, "trend-refusals-total") == "3"
    # the 30-day range sees the old one too
    assert shown(page(OperatorFactory(), range="30d"), "trend-refusals-total") == "4"


def test_the_svg_and_its_table_carry_the_same_numbers():
    member = member_with()
    for hours in (1, 1, 3):
        event("memory.recall.resolved", member, hours_ago=hours, surface="assistant")
    event("memory.recall.resolved", member, hours_ago=3, surface="shell")
    html = page(OperatorFactory())
    svg = html.split('data-chart="chart-recalls"', 1)[1].split("</svg>", 1)[0]
    in_svg = sum(int(n) for n in re.findall(r"<rect [^>]*><title>[^<]*: (\d+)</title>", svg))
    in_table = sum(row[-1] for _, row in table_rows(html, "chart-recalls"))
    assert in_svg == in_table == 4
    assert table_header(html, "chart-recalls") == ["Hour (UTC)", "assistant", "shell", "Total"]


def _raw_tenant_count(tenant, since, until, actions=None) -> int:
    """Audit events about the tenant's members (by membership), not scoped to another
    tenant, in (since, until]: counted in SQL, not through the ORM."""
    events_table = AuditEvent._meta.db_table
    members_table = TenantMembership._meta.db_table
    uuid_field = AuditEvent._meta.get_field("target_tenant_id")
    time_field = AuditEvent._meta.get_field("occurred_at")
    tenant_id = uuid_field.get_db_prep_value(tenant.pk, connection)
    sql = (
        f"SELECT COUNT(*) FROM {events_table} e "
        f"JOIN {members_table} m ON m.user_id = e.target_member_id "
        "WHERE m.tenant_id = %s AND e.occurred_at > %s AND e.occurred_at <= %s "
        "AND (e.target_tenant_id IS NULL OR e.target_tenant_id = %s)"
    )
    params = [
        tenant_id,
        time_field.get_db_prep_value(since, connection),
        time_field.get_db_prep_value(until, connection),
        tenant_id,
    ]
    if actions:
        sql += f" AND e.action IN ({', '.join(['%s'] * len(actions))})"
        params += list(actions)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0]


def test_the_dashboards_per_tenant_counts_equal_a_raw_sql_count_for_a_tenant_bound_operator():
    # given members of our tenant (one also of another), a stranger, and events about them
    # that mostly leave `target_tenant_id` empty (the column the count used to filter on)
    ours, theirs = TenantFactory(), TenantFactory()
    alice = member_with(tenants=[ours])
    both = member_with(tenants=[ours, theirs])
    stranger = member_with(tenants=[theirs])
    for member in (alice, both, stranger):
        write(member, content=SECRET)
    for hours in (1, 2, 5, 30, 60):
        event("memory.recall.resolved", alice, hours_ago=hours, surface="assistant")
        event("memory.recall.resolved", both, hours_ago=hours, surface="shell")
        event("memory.recall.resolved", stranger, hours_ago=hours, surface="assistant")
    event("memory.recall.resolved", alice, hours_ago=3, tenant=ours, surface="assistant")
    event("memory.recall.resolved", both, hours_ago=3, tenant=theirs, surface="assistant")
    refusal(alice, "scope-suppressed", hours_ago=4)
    refusal(stranger, "scope-suppressed", hours_ago=4)
    operator = OperatorFactory(role="admin", tenant=ours)
    # when
    html = page(operator, range="7d")
    now = timezone.now()
    # then the episodic count (last 24 h) equals the raw count by membership
    raw_24h = _raw_tenant_count(ours, now - timedelta(hours=24), now)
    by_column = AuditEvent.objects.filter(
        target_tenant_id=ours.pk, occurred_at__gt=now - timedelta(hours=24)
    ).count()
    assert int(shown(html, "episodic-24h")) == raw_24h
    assert raw_24h > by_column  # the old count, by the optional column, fell short
    # and so does each trend's total over the range
    week_start = (now - timedelta(days=6)).replace(hour=0, minute=0, second=0, microsecond=0)
    since = week_start - timedelta(microseconds=1)
    for key, actions in (
        ("recalls", ["memory.recall.resolved"]),
        ("refusals", [WRITE_REFUSED_ACTION, "hierarchy.stm.consolidation_refused"]),
        ("writes", ["memory.entry.created", "hierarchy.stm.written"]),
    ):
        raw = _raw_tenant_count(ours, since, now, actions)
        assert int(shown(html, f"trend-{key}-total")) == raw, key
    assert shown(html, "trend-recalls-total") == "11"  # 5 + 5 + alice's tenant-scoped one
    assert shown(html, "trend-refusals-total") == "1"
    assert shown(html, "trend-writes-total") == "2"
    # and a platform operator counts everyone
    assert shown(page(OperatorFactory(role="admin"), range="7d"), "trend-recalls-total") == "17"


def _task(status: str, **fields) -> DBTaskResult:
    return DBTaskResult.objects.create(
        **{
            "status": status,
            "task_path": "datarights.tasks.datarights_process",
            "args_kwargs": {"args": [], "kwargs": {}},
            "backend_name": "default",
            "run_after": timezone.now() - timedelta(minutes=5),
            "exception_class_path": "",
            "traceback": "",
        }
        | fields
    )


def test_task_health_for_platform_operators_only():
    now = timezone.now()
    ready = _task(TaskResultStatus.READY)
    DBTaskResult.objects.filter(pk=ready.pk).update(enqueued_at=now - timedelta(minutes=90))
    _task(TaskResultStatus.READY)
    _task(TaskResultStatus.RUNNING, started_at=now - timedelta(hours=2))  # past the lease
    _task(TaskResultStatus.RUNNING, started_at=now - timedelta(minutes=1))
    _task(TaskResultStatus.FAILED, finished_at=now - timedelta(hours=1))
    _task(TaskResultStatus.FAILED, finished_at=now - timedelta(days=3))
    queued = DBTaskResult.objects.filter(status=TaskResultStatus.READY).count()

    day = page(OperatorFactory(role="support"))
    assert shown(day, "tasks-ready") == str(queued)
    assert shown(day, "tasks-oldest") == "90 min"
    assert shown(day, "tasks-running") == "2"
    assert shown(day, "tasks-stalled") == "1"
    assert shown(day, "tasks-failed") == "1"
    assert sum(row[-1] for _, row in table_rows(day, "chart-task-failures")) == 1
    assert shown(page(OperatorFactory(), range="7d"), "tasks-failed") == "2"

    bound = page(OperatorFactory(role="admin", tenant=TenantFactory()))
    assert 'data-testid="tasks-platform-only"' in bound
    assert 'data-testid="tasks-ready"' not in bound


def test_a_failing_trend_renders_a_dash_and_the_rest_still_renders(monkeypatch):
    real = __import__("hierarchy.operator", fromlist=["audit_trend"]).audit_trend

    def flaky(**kwargs):
        if kwargs["key"] == "recalls":
            raise RuntimeError("replica down")
        return real(**kwargs)

    monkeypatch.setattr("hierarchy.operator.audit_trend", flaky)
    html = page(OperatorFactory())
    assert shown(html, "trend-recalls-total") == "—"
    assert shown(html, "trend-writes-total") == "0"
    [read] = events("hierarchy.counts.read")
    assert read.payload["failed_parts"] == ["trend-recalls"]


def test_members_anonymous_visitors_and_operators_without_a_role_are_refused():
    member = MemberFactory()
    client = Client()
    client.force_login(member)
    assert client.get(URL).status_code == 403
    anonymous = Client().get(URL)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/")
    roleless = Client()
    roleless.force_login(User.objects.create_superuser("root@example.test", PASSWORD))
    assert roleless.get(URL).status_code == 403
