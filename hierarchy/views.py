"""The operator dashboard `/dashboard/admin/memory-hierarchy` (server-rendered)."""

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import render
from django.views.decorators.http import require_GET

from consent.selectors import consent_ledger_broken_count
from hierarchy import operator
from hierarchy.access import operator_read_audit
from hierarchy.enums import StmScopeKind
from iris_site.api.gated import content_free
from iris_site.audit.events import Actor
from iris_site.permissions import IsOperator
from iris_site.selectors import operator_tenant_id
from memory.enums import Lifecycle

CHART_HEIGHT = 120
CHART_BAR_WIDTH = 20


def _chart(hourly: list[dict] | None) -> dict | None:
    if hourly is None:
        return None
    peak = max((h["count"] for h in hourly), default=0) or 1
    bars = []
    for index, hour in enumerate(hourly):
        height = round(hour["count"] / peak * CHART_HEIGHT)
        bars.append(
            {
                "x": index * (CHART_BAR_WIDTH + 4),
                "y": CHART_HEIGHT - height,
                "height": height,
                "hour": hour["hour"],
                "count": hour["count"],
            }
        )
    return {
        "bars": bars,
        "width": len(bars) * (CHART_BAR_WIDTH + 4),
        "height": CHART_HEIGHT,
        "bar_width": CHART_BAR_WIDTH,
        "peak": peak,
        "total": sum(h["count"] for h in hourly),
    }


def _rows(counts: dict | None, labels) -> list[tuple[str, int]] | None:
    if counts is None:
        return None
    return [(label, counts.get(value, 0)) for value, label in labels]


@content_free
@require_GET
@login_required
def memory_hierarchy_dashboard(request):
    # The API's rule: an operator without a role (e.g. `createsuperuser`'s user) has no
    # tenant binding to scope the counts by, so it is refused, not a 500.
    if not IsOperator().has_permission(request, None):
        raise PermissionDenied
    tenant_id = operator_tenant_id(request.user)
    counts = operator.hierarchy_counts(tenant_id=tenant_id, with_hourly=True)
    operator_read_audit(
        action="admin.memory_hierarchy.counts.read",
        actor=Actor.of(request.user),
        payload={
            "surface": "dashboard",
            "failed_parts": [
                name
                for name, value in (
                    ("stm", counts.stm),
                    ("ltm", counts.ltm),
                    ("episodic", counts.episodic_24h),
                    ("refusals", counts.refusals),
                )
                if value is None
            ],
        },
    )
    return render(
        request,
        "hierarchy/dashboard.html",
        {
            "stm_rows": _rows(counts.stm, StmScopeKind.choices),
            "stm_total": None if counts.stm is None else sum(counts.stm.values()),
            "ltm_rows": _rows(counts.ltm, Lifecycle.choices),
            "ltm_total": None if counts.ltm is None else sum(counts.ltm.values()),
            "episodic_24h": counts.episodic_24h,
            "chart": _chart(counts.episodic_hourly),
            "refusals": counts.refusals,
            "generated_at": counts.generated_at,
            # Fail closed: members whose consent gates a broken ledger has closed.
            "broken_ledgers": consent_ledger_broken_count(tenant_id=tenant_id),
        },
    )
