"""The sole writer of the data-rights audit trail. Every row is mirrored into the
episodic chain (ids, enums and numbers only), in the same transaction."""

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.utils import timezone

from datarights.enums import TrailEvent
from datarights.models import DataRightsRequest, DataRightsTrailEntry
from datarights.policy import trail_time
from iris_site.audit.actions import AuditAction
from iris_site.audit.enums import Severity
from iris_site.audit.events import Actor, actor_token, audit_event_append

POLICY_ID = "iris.datarights.requests.v1"


def trail_append(
    *,
    request: DataRightsRequest,
    event: str,
    actor: Actor,
    detail: Mapping[str, Any] | None = None,
    severity: str = Severity.INFO,
    now: datetime | None = None,
) -> DataRightsTrailEntry:
    """Append one trail row for the request as it is now (its status after the event).

    The caller holds the request's row lock, so positions never collide; the time never
    goes back, even if this host's clock is behind the previous writer's.
    """
    last = (
        DataRightsTrailEntry.objects.filter(request=request)
        .order_by("-sequence")
        .only("sequence", "at")
        .first()
    )
    body = dict(detail or {})
    row = DataRightsTrailEntry(
        request=request,
        member_id=request.member_id,
        sequence=(last.sequence + 1) if last else 1,
        event=TrailEvent(event),
        status=request.status,
        at=trail_time(last.at if last else None, now or timezone.now()),
        actor=actor_token(actor),
        detail=body,
    )
    row.save(force_insert=True)
    audit_event_append(
        action=AuditAction.of("datarights.request", event),
        policy_id=POLICY_ID,
        actor=actor,
        severity=severity,
        target_member_id=request.member_id,
        payload={
            "request_id": str(request.pk),
            "kind": request.kind,
            "status": request.status,
            "trail_sequence": row.sequence,
            **body,
        },
        occurred_at=row.at,
    )
    return row
