"""The freshness/confidence job: stale, low-confidence inferences are queued for the
member to re-confirm (seed 004's FreshnessConfidenceJob, adapted: Iris asks the member
rather than re-researching). Idempotent: one open request per entry.

The request is the hierarchy's record; the member is asked through memory's own notice
plumbing (`memory_reconfirm_ask`: a `reconfirm` MemoryNotice, "Is this still true?", on
the memory page and in `GET /api/v1/me/notices/`). Memory sits below the hierarchy and
never imports it: when the member answers (confirm, edit, forget) memory sends
`reconfirm_settled`, and `reconfirm_request_resolve` (connected in `hierarchy.receivers`)
closes the request at once. Requests whose entry changed some other way are closed by
the next run."""

from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import Count
from django.utils import timezone

from hierarchy.enums import ReconfirmState
from hierarchy.models import ReconfirmRequest
from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor, audit_event_append
from iris_site.models import TenantMembership
from memory.enums import Lifecycle
from memory.models import MemoryEntry, MemoryNotice
from memory.policy.freshness import INFERRED_ORIGINS, staleness
from memory.reconfirm import memory_reconfirm_ask

POLICY_ID = "iris.hierarchy.freshness.v1"


@dataclass(frozen=True, slots=True)
class FreshnessReport:
    evaluated: int = 0
    enqueued: int = 0
    resolved: int = 0

    def as_dict(self) -> dict[str, int]:
        return {"evaluated": self.evaluated, "enqueued": self.enqueued, "resolved": self.resolved}


def _inferences():
    # Cross-member scan of live inferences; memory has no selector for this job's shape.
    return MemoryEntry.objects.filter(
        lifecycle=Lifecycle.ACTIVE, origin__in=sorted(INFERRED_ORIGINS)
    ).only("id", "member_id", "origin", "confidence", "updated_at")


def _resolve_settled(now: datetime, actor: Actor) -> int:
    """Open requests whose entry was confirmed, edited, paused or forgotten are done."""
    still_inferred = set(
        _inferences()
        .filter(
            pk__in=ReconfirmRequest.objects.filter(state=ReconfirmState.OPEN).values("entry_id")
        )
        .values_list("pk", flat=True)
    )
    resolved = 0
    for request in ReconfirmRequest.objects.filter(state=ReconfirmState.OPEN):
        if request.entry_id in still_inferred:
            continue
        request.state = ReconfirmState.RESOLVED
        request.resolved_at = now
        request.save(update_fields=["state", "resolved_at"])
        resolved += 1
    return resolved


def freshness_confidence_run(*, now: datetime | None = None) -> FreshnessReport:
    now = now or timezone.now()
    actor = Actor.system("freshness-confidence-job")
    evaluated = enqueued = 0
    queued = set(
        ReconfirmRequest.objects.filter(state=ReconfirmState.OPEN).values_list(
            "entry_id", flat=True
        )
    )
    for entry in _inferences().iterator():
        evaluated += 1
        verdict = staleness(
            origin=entry.origin,
            confidence=entry.confidence,
            asserted_at=entry.updated_at,
            now=now,
        )
        if not verdict.stale or entry.pk in queued:
            continue
        try:
            with transaction.atomic():
                request = ReconfirmRequest.objects.create(
                    member_id=entry.member_id,
                    entry_id=entry.pk,
                    freshness=verdict.freshness,
                    effective_confidence=verdict.effective_confidence,
                    queued_at=now,
                )
                audit_event_append(
                    action=AuditAction.HIERARCHY_FRESHNESS_CONFIDENCE_ENQUEUED,
                    policy_id=POLICY_ID,
                    actor=actor,
                    target_member_id=entry.member_id,
                    payload={
                        "entry_id": str(entry.pk),
                        "reconfirm_request_id": str(request.pk),
                        "origin": entry.origin,
                        "freshness": verdict.freshness,
                        "effective_confidence": verdict.effective_confidence,
                    },
                    occurred_at=now,
                )
        except IntegrityError:  # a concurrent run queued it first
            continue
        enqueued += 1
    with transaction.atomic():
        resolved = _resolve_settled(now, actor)
    _ask_members(now)
    report = FreshnessReport(evaluated=evaluated, enqueued=enqueued, resolved=resolved)
    audit_event_append(
        action=AuditAction.HIERARCHY_FRESHNESS_CONFIDENCE_TICKED,
        policy_id=POLICY_ID,
        actor=actor,
        payload=report.as_dict(),
        occurred_at=now,
    )
    return report


def reconfirm_requests_for_member(*, member_id):
    """The member's open re-confirmation requests (for the member memory page)."""
    return ReconfirmRequest.objects.filter(member_id=member_id, state=ReconfirmState.OPEN)


def _ask_members(now: datetime) -> int:
    """Every open request has its member notice (idempotent; also asks about requests
    queued before the notices existed)."""
    asked = set(
        MemoryNotice.objects.filter(
            kind=MemoryNotice.Kind.RECONFIRM, state=MemoryNotice.State.OPEN
        ).values_list("entry_id", flat=True)
    )
    created = 0
    for member_id, entry_id in ReconfirmRequest.objects.filter(
        state=ReconfirmState.OPEN
    ).values_list("member_id", "entry_id"):
        if entry_id not in asked:
            created += (
                memory_reconfirm_ask(member_id=member_id, entry_id=entry_id, now=now) is not None
            )
    return created


def reconfirm_request_resolve(
    *, member_id, entry_id, answer: str, now: datetime | None = None
) -> int:
    """The member settled the entry's re-confirmation (memory's `reconfirm_settled`): its
    open request is resolved now, audited with ids and the answer."""
    now = now or timezone.now()
    resolved = 0
    for request in ReconfirmRequest.objects.select_for_update().filter(
        member_id=member_id, entry_id=entry_id, state=ReconfirmState.OPEN
    ):
        request.state = ReconfirmState.RESOLVED
        request.resolved_at = now
        request.save(update_fields=["state", "resolved_at"])
        audit_event_append(
            action=AuditAction.HIERARCHY_FRESHNESS_CONFIDENCE_RESOLVED,
            policy_id=POLICY_ID,
            actor=Actor.system("freshness-confidence-job"),
            target_member_id=member_id,
            payload={
                "entry_id": str(entry_id),
                "reconfirm_request_id": str(request.pk),
                "answer": answer,
            },
            occurred_at=now,
        )
        resolved += 1
    return resolved


def reconfirm_request_counts(*, tenant_id=None) -> dict[str, int]:
    """Re-confirmation requests by state (counts only), for one tenant's members when the
    operator is bound to one."""
    requests = ReconfirmRequest.objects.all()
    if tenant_id is not None:
        members = TenantMembership.objects.filter(tenant_id=tenant_id).values("user_id")
        requests = requests.filter(member_id__in=members)
    counts = dict.fromkeys(ReconfirmState.values, 0)
    for row in requests.order_by().values("state").annotate(n=Count("id")):
        counts[row["state"]] = row["n"]
    return counts
