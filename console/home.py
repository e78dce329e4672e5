"""The operator home: what is waiting for this operator, each linking to its page.

Each part of the console contributes its section (`home_section(request) -> dict | None`,
None when nothing of it is this operator's to see); the home adds the background-task
section. Sections carry ids, counts, states and member emails the role may already see
on the part's own pages; never memory content.
"""

from datetime import timedelta

from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from console import datarights, inspections, reviews
from console.access import console_page, operator_role
from hierarchy import operator as hierarchy_operator
from iris_site.api.gated import content_free
from iris_site.enums import OperatorRole
from iris_site.selectors import operator_tenant_id

# The background-task queue is shared by every tenant: its section is for platform admins.
JOBS_ROLES = frozenset({OperatorRole.ADMIN})
JOBS_WINDOW = timedelta(days=7)
JOBS_LIMIT = 10


def jobs_home_section(request) -> dict | None:
    """Failed (last 7 days) and stalled background tasks: their ids, task paths and
    times, never their arguments (which can name members) or tracebacks."""
    user = request.user
    if operator_role(user) not in JOBS_ROLES or operator_tenant_id(user) is not None:
        return None
    now = timezone.now()
    span = hierarchy_operator.time_range("7d")
    health = hierarchy_operator.task_health(span=span, now=now)
    failed = (
        DBTaskResult.objects.failed()
        .filter(finished_at__gte=now - JOBS_WINDOW)
        .order_by("-finished_at")
        .values("id", "task_path", "finished_at", "exception_class_path")[:JOBS_LIMIT]
    )
    stalled = (
        DBTaskResult.objects.filter(
            status=TaskResultStatus.RUNNING, started_at__lt=now - health.lease
        )
        .order_by("started_at")
        .values("id", "task_path", "started_at")[:JOBS_LIMIT]
    )
    return {
        "template": "console/_home_jobs.html",
        "failed": list(failed),
        "failed_count": health.failed_in_range,
        "stalled": list(stalled),
        "stalled_count": health.stalled,
        "ready": health.ready,
        "oldest_ready": health.oldest_ready_age_text,
        "lease_minutes": int(health.lease.total_seconds() // 60),
    }


def _sections(request) -> list[dict]:
    providers = (
        inspections.home_section,
        datarights.home_section,
        reviews.home_section,
        jobs_home_section,
    )
    return [section for provider in providers if (section := provider(request)) is not None]


@content_free
@require_GET
@console_page()
def console_home(request):
    return render(
        request,
        "console/home.html",
        {
            "role": operator_role(request.user),
            "role_label": OperatorRole(operator_role(request.user)).label,
            "tenant_bound": operator_tenant_id(request.user) is not None,
            "sections": _sections(request),
            "console_section": "home",
        },
    )
