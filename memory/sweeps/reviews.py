"""Retention reviews: scope kinds whose envelope says *review* (profile, operator-copilot,
tenant, crisis) are never deleted by the sweep. Past the window each entry gets one open
`RetentionReview` (ids only in its audit event); an operator of a reviewer role decides:
keep (due again one window later), summarize (a summary through the write path, then the
raw entry erased) or delete (erased through `memory_erase`).
"""

import uuid
from collections import defaultdict
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor, audit_event_append
from iris_site.enums import OperatorRole
from iris_site.errors import (
    Conflict,
    InvalidInput,
    NotFound,
    NotPermitted,
    PolicyRefusal,
)
from iris_site.models import User
from iris_site.selectors import operator_tenant_id
from iris_site.services import member_lock
from memory.enums import (
    ExpiryAction,
    Lifecycle,
    ProvenanceKind,
)
from memory.forgetting.erasure import memory_erase
from memory.models import MemoryEntry, RetentionReview
from memory.policy.retention import retention_envelope_for_kind
from memory.selectors import scope_of, tenant_operator_reach
from memory.sweeps.base import POLICY_ID, RETENTION_ACTOR, kinds_with
from memory.sweeps.compaction import Summarizer, extractive_summarizer, ids_digest, summary_write

REVIEW_DUE_ACTION = AuditAction.MEMORY_RETENTION_REVIEW_DUE


def retention_reviews_flag(now: datetime) -> int:
    """One open `RetentionReview` per entry past its window (idempotent: an entry with an
    open review, or kept within the last window, is skipped)."""
    flagged = 0
    for kind in kinds_with(ExpiryAction.REVIEW):
        envelope = retention_envelope_for_kind(kind)
        if envelope.raw_days is None:
            continue  # durable (profile): kept until the member or the account goes
        window = timedelta(days=envelope.raw_days)
        due = (
            MemoryEntry.objects.filter(
                scope_kind=kind,
                updated_at__lt=now - window,
                lifecycle__in=[Lifecycle.ACTIVE, Lifecycle.PAUSED],
            )
            .order_by("member_id", "updated_at", "id")
            .values_list("member_id", "pk", "category", "revision_id", "updated_at")
        )
        by_member: dict[uuid.UUID, list[tuple]] = defaultdict(list)
        for member_id, *rest in due:
            by_member[member_id].append(tuple(rest))
        for member_id, rows in by_member.items():
            with transaction.atomic():
                member_lock(member_id=member_id)
                reviews = RetentionReview.objects.filter(
                    member_id=member_id, entry_id__in=[row[0] for row in rows]
                )
                skip = set(
                    reviews.filter(state=RetentionReview.State.OPEN).values_list(
                        "entry_id", flat=True
                    )
                ) | set(
                    reviews.filter(
                        state=RetentionReview.State.KEPT, decided_at__gte=now - window
                    ).values_list("entry_id", flat=True)
                )
                for entry_id, category, revision_id, updated_at in rows:
                    if entry_id in skip:
                        continue
                    RetentionReview.objects.create(
                        member_id=member_id,
                        entry_id=entry_id,
                        due_at=updated_at + window,
                        flagged_at=now,
                    )
                    audit_event_append(
                        action=REVIEW_DUE_ACTION,
                        policy_id=POLICY_ID,
                        actor=RETENTION_ACTOR,
                        target_member_id=member_id,
                        payload={
                            "entry_id": str(entry_id),
                            "revision_id": str(revision_id),
                            "scope_kind": kind,
                            "category": category,
                            "retention_days": envelope.raw_days,
                        },
                        occurred_at=now,
                    )
                    flagged += 1
    return flagged


# --- Retention reviews: an operator decides -----------------------------------------------

# Who decides a review-due memory: admin (platform governance) and trust & safety (crisis
# memory is theirs to weigh). Support handles routine inspections, legal data-rights
# requests; neither decides what Iris keeps. Decisions are made on metadata (scope kind,
# category, dates): operators never read member memory outside a granted inspection.
REVIEWER_ROLES = frozenset({OperatorRole.ADMIN, OperatorRole.TRUST_AND_SAFETY})
REVIEW_REASON = "retention-review"


class ReviewDecision:
    KEEP = "keep"
    SUMMARIZE = "summarize"
    DELETE = "delete"
    CHOICES = (KEEP, SUMMARIZE, DELETE)


def retention_reviews_visible(*, operator: User):
    """The reviews an operator may see: all of them for a platform operator; for one bound
    to a tenant, those of its own tenant's memory (`tenant_operator_reach`): a member's
    consumer memory is not the tenant's to keep, summarise or delete."""
    reviews = RetentionReview.objects.select_related("entry", "member")
    tenant_id = operator_tenant_id(operator)
    if tenant_id is None:
        return reviews
    return reviews.filter(tenant_operator_reach(tenant_id, through="entry__"))


def retention_reviews_open(*, operator: User):
    return retention_reviews_visible(operator=operator).filter(state=RetentionReview.State.OPEN)


def _summarize_one(entry: MemoryEntry, *, now: datetime, summarizer: Summarizer):
    provenance = [
        {
            "kind": ProvenanceKind.SESSION_SUMMARY,
            "ref": str(entry.pk),
            "captured_at": entry.created_at,
        },
        *entry.provenance_chain,
    ]
    multi_actor = None
    if entry.actor_handle:
        multi_actor = {
            "actor_handle": entry.actor_handle,
            "relationship_note": entry.relationship_note,
            "sensitive_interaction": entry.sensitive_interaction,
        }
    return summary_write(
        member=User.objects.get(pk=entry.member_id),
        scope=scope_of(entry),
        category=entry.category,
        subject=f"Summary of {entry.scope_kind} memory #{ids_digest([entry.pk])}",
        texts=[entry.body],
        provenance=provenance,
        summarizer=summarizer,
        now=now,
        multi_actor=multi_actor,
    )


@transaction.atomic
def retention_review_decide(
    *,
    review_id,
    decision: str,
    operator: User,
    now: datetime | None = None,
    summarizer: Summarizer = extractive_summarizer,
) -> RetentionReview:
    """An operator decides one open review: keep, summarize or delete.

    Refused unless the operator holds a reviewer role (403 `not-a-reviewer`); a review the
    operator may not see (another tenant's) is 404 to them (the caller looks it up through
    `retention_reviews_visible`, and this re-checks). A decided review is 409
    `review-decided`; a summary the write path refuses is 422 with its code (the entry is
    left as it is: keep or delete it instead). Audited with ids and labels only."""
    if decision not in ReviewDecision.CHOICES:
        raise InvalidInput(fields={"decision": [f"One of: {', '.join(ReviewDecision.CHOICES)}."]})
    profile = getattr(operator, "operator_profile", None)
    if profile is None or profile.role not in REVIEWER_ROLES:
        raise NotPermitted(
            "Only admin and trust & safety operators decide retention reviews.",
            code="not-a-reviewer",
        )
    found = retention_reviews_visible(operator=operator).filter(pk=review_id).first()
    if found is None:
        raise NotFound()
    now = now or timezone.now()
    member_lock(member_id=found.member_id)
    review = RetentionReview.objects.select_for_update().get(pk=found.pk)
    if review.state != RetentionReview.State.OPEN:
        raise Conflict("This review was already decided.", code="review-decided")
    entry = MemoryEntry.objects.select_for_update().get(pk=review.entry_id)
    actor = Actor.of(operator)
    if decision != ReviewDecision.DELETE and entry.lifecycle == Lifecycle.TOMBSTONED:
        raise Conflict("This memory was forgotten already.", code="tombstoned")
    summary = None
    if decision == ReviewDecision.KEEP:
        review.state = RetentionReview.State.KEPT
    elif decision == ReviewDecision.SUMMARIZE:
        summary, outcome = _summarize_one(entry, now=now, summarizer=summarizer)
        if summary is None:
            raise PolicyRefusal(
                f"No summary could be written ({outcome}); keep or delete the memory instead.",
                code=outcome,
            )
        memory_erase(
            member_id=entry.member_id,
            entry_ids=[entry.pk],
            actor=actor,
            reason=REVIEW_REASON,
            now=now,
        )
        review.state = RetentionReview.State.SUMMARIZED
        review.summary_entry_id = summary.pk
    else:
        memory_erase(
            member_id=entry.member_id,
            entry_ids=[entry.pk],
            actor=actor,
            reason=REVIEW_REASON,
            now=now,
        )
        review.state = RetentionReview.State.DELETED
    review.decided_by = operator.pk
    review.decided_at = now
    review.save(update_fields=["state", "decided_by", "decided_at", "summary_entry_id"])
    audit_event_append(
        action=AuditAction.MEMORY_RETENTION_REVIEW_DECIDED,
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=review.member_id,
        target_tenant_id=entry.tenant_id,
        payload={
            "review_id": str(review.pk),
            "entry_id": str(entry.pk),
            "decision": decision,
            "state": review.state,
            "scope_kind": entry.scope_kind,
            "category": entry.category,
            "summary_entry_id": str(summary.pk) if summary else None,
        },
        occurred_at=now,
    )
    return review
