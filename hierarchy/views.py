"""The operator dashboard (server-rendered): `console:dashboard` at /console/dashboard/,
also still served at its first address, /dashboard/admin/memory-hierarchy (one view, one
template). Counts only, never member content; a tenant-bound operator's figures count
its tenant's members (by membership)."""

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import render
from django.views.decorators.http import require_GET

from consent.selectors import consent_ledger_broken_count
from hierarchy import operator
from hierarchy.access import operator_read_audit
from hierarchy.enums import StmScopeKind
from iris_site.api.gated import content_free
from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor
from iris_site.permissions import IsOperator
from iris_site.selectors import operator_tenant_id
from memory.enums import Lifecycle

# Chart geometry (SVG user units): the plot sits right of the y-axis labels and above
# the x-axis labels and title.
PLOT_LEFT = 48
PLOT_TOP = 10
PLOT_WIDTH = 576
PLOT_HEIGHT = 140
X_LABELS_AT = 18  # below the plot
X_TITLE_AT = 36
CHART_HEIGHT = PLOT_TOP + PLOT_HEIGHT + 46
CHART_WIDTH = PLOT_LEFT + PLOT_WIDTH + 12
# Distinguishable on white (each at least 3:1), in order of series.
PALETTE = ("#0b5394", "#b45f06", "#38761d", "#741b47", "#45818e", "#7f6000", "#444444")
X_LABEL_EVERY = {24: 6, 7: 1, 30: 5}


def _nice_max(peak: int) -> tuple[int, list[int]]:
    """The y-axis top and its ticks: whole numbers, at most five."""
    if peak <= 4:
        top = max(peak, 1)
        return top, list(range(top + 1))
    step = -(-peak // 4)
    return step * 4, [step * i for i in range(5)]


def chart(*, title: str, unit: str, buckets, series: list[str], rows: list[list[int]]) -> dict:
    """A stacked bar chart with labelled axes, as SVG geometry, and the same numbers as
    table rows (the fallback for screen readers)."""
    totals = [sum(row) for row in rows]
    top, ticks = _nice_max(max(totals, default=0))
    slot = PLOT_WIDTH / max(len(buckets), 1)
    bar_width = round(slot * 0.7, 1)
    every = X_LABEL_EVERY.get(len(buckets), max(1, len(buckets) // 6))
    date_format = "H:i" if unit == "hour" else "M j"
    bars = []
    for index, (bucket, row) in enumerate(zip(buckets, rows, strict=True)):
        x = round(PLOT_LEFT + index * slot + (slot - bar_width) / 2, 1)
        base = PLOT_TOP + PLOT_HEIGHT
        segments = []
        for position, count in enumerate(row):
            if not count:
                continue
            height = round(count / top * PLOT_HEIGHT, 1)
            base -= height
            segments.append(
                {
                    "y": round(base, 1),
                    "height": height,
                    "fill": PALETTE[position % len(PALETTE)],
                    "series": series[position],
                    "count": count,
                }
            )
        bars.append(
            {
                "x": x,
                "label_x": round(x + bar_width / 2, 1),
                "bucket": bucket,
                "segments": segments,
                "total": totals[index],
                "labelled": index % every == 0,
            }
        )
    return {
        "title": title,
        "unit": unit,
        "date_format": date_format,
        "x_title": "Hour (UTC)" if unit == "hour" else "Day (UTC)",
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
        "plot_left": PLOT_LEFT,
        "plot_right": PLOT_LEFT + PLOT_WIDTH,
        "plot_top": PLOT_TOP,
        "plot_bottom": PLOT_TOP + PLOT_HEIGHT,
        "x_labels_y": PLOT_TOP + PLOT_HEIGHT + X_LABELS_AT,
        "x_title_y": PLOT_TOP + PLOT_HEIGHT + X_TITLE_AT,
        "x_title_x": PLOT_LEFT + PLOT_WIDTH / 2,
        "y_title_y": PLOT_TOP + PLOT_HEIGHT / 2,
        "y_ticks": [
            {"value": v, "y": round(PLOT_TOP + PLOT_HEIGHT - v / top * PLOT_HEIGHT, 1)}
            for v in ticks
        ],
        "bar_width": bar_width,
        "bars": bars,
        "series": [
            {"name": name, "fill": PALETTE[i % len(PALETTE)], "total": sum(r[i] for r in rows)}
            for i, name in enumerate(series)
        ],
        "rows": [
            {"bucket": bucket, "counts": row, "total": total}
            for bucket, row, total in zip(buckets, rows, totals, strict=True)
        ],
        "total": sum(totals),
        "peak": max(totals, default=0),
    }


def _trend_chart(trend: operator.Trend, unit: str) -> dict:
    return {
        "key": trend.key,
        **chart(
            title=trend.title,
            unit=unit,
            buckets=trend.buckets,
            series=trend.series,
            rows=[trend.row(bucket) for bucket in trend.buckets],
        ),
    }


def _episodic_chart(hourly: list[dict] | None) -> dict | None:
    if hourly is None:
        return None
    return chart(
        title="Episodic events",
        unit="hour",
        buckets=[h["hour"] for h in hourly],
        series=["events"],
        rows=[[h["count"]] for h in hourly],
    )


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
    span = operator.time_range(request.GET.get("range"))
    counts = operator.hierarchy_counts(tenant_id=tenant_id, with_hourly=True)
    now = counts.generated_at
    trends = operator.dashboard_trends(span=span, now=now, tenant_id=tenant_id)
    # Task rows are platform-wide: a tenant-bound operator sees none of them.
    platform = tenant_id is None
    tasks, failures = operator.dashboard_tasks(span=span, now=now) if platform else (None, None)
    failed_parts = [
        name
        for name, value in (
            ("stm", counts.stm),
            ("ltm", counts.ltm),
            ("episodic", counts.episodic_24h),
            ("refusals", counts.refusals),
            *((f"trend-{k}", v) for k, v in trends.items()),
            *((("tasks", tasks), ("task-failures", failures)) if platform else ()),
        )
        if value is None
    ]
    operator_read_audit(
        action=AuditAction.HIERARCHY_COUNTS_READ,
        actor=Actor.of(request.user),
        payload={"surface": "dashboard", "range": span.key, "failed_parts": failed_parts},
    )
    return render(
        request,
        "hierarchy/dashboard.html",
        {
            "console_section": "dashboard",
            "range": span,
            "ranges": operator.TIME_RANGES.values(),
            "tenant_bound": not platform,
            "stm_rows": _rows(counts.stm, StmScopeKind.choices),
            "stm_total": None if counts.stm is None else sum(counts.stm.values()),
            "ltm_rows": _rows(counts.ltm, Lifecycle.choices),
            "ltm_total": None if counts.ltm is None else sum(counts.ltm.values()),
            "episodic_24h": counts.episodic_24h,
            "chart": _episodic_chart(counts.episodic_hourly),
            "trends": [
                {"key": key, "title": title, "chart": None}
                if trends[key] is None
                else _trend_chart(trends[key], span.unit) | {"chart": True}
                for key, title, *_ in operator.AUDIT_TRENDS
            ],
            "tasks": tasks,
            "task_failures": None if failures is None else _trend_chart(failures, span.unit),
            "refusals": counts.refusals,
            "generated_at": now,
            # Fail closed: members whose consent gates a broken ledger has closed.
            "broken_ledgers": consent_ledger_broken_count(tenant_id=tenant_id),
        },
    )
