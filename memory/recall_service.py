"""Running a recall for a surface: consent from the ledger, candidates from the store,
the pure pipeline, then the side effects (usage counters, the member's record, audit)."""

import hashlib
from datetime import datetime

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from consent.enums import BaseConsentType
from consent.selectors import consent_active
from hierarchy.enums import Severity
from hierarchy.events import Actor, audit_event_append
from iris_site.errors import InvalidInput
from memory.models import MemoryEntry, RecallRecord
from memory.recall import InvalidRecallRequest, RecallRequest, RecallResult, ScopeKey, resolve
from memory.recall_store import recall_resolve
from memory.selectors import memory_pending_clear

POLICY_ID = "iris-memory-recall-v1"


def recall_request_build(
    *,
    member_id,
    surface: str,
    scope: dict,
    query: str = "",
    context: str = "general",
    crisis_frame: bool = False,
    safety_critical_context: bool = False,
    narrow_categories: list[str] | None = None,
    tenant_id=None,
    budget: int | None = None,
    now: datetime | None = None,
) -> RecallRequest:
    """The pipeline's request, with consent computed from the member's ledger: a caller
    may narrow the consented categories, never widen them."""
    active = consent_active(member_id=member_id, now=now)
    categories = active.categories
    if narrow_categories is not None:
        categories = categories & frozenset(narrow_categories)
    try:
        return RecallRequest(
            user_id=str(member_id),
            surface=surface,
            scope=ScopeKey(**{**scope, "user_id": str(member_id)}),
            tenant_id=str(tenant_id) if tenant_id else None,
            query=query,
            context=context,
            crisis_frame=crisis_frame,
            safety_critical_context=safety_critical_context,
            consented_categories=categories,
            multi_actor_consented=active.allows(BaseConsentType.MULTI_ACTOR_SENSITIVE),
            budget=budget,
        )
    except InvalidRecallRequest as exc:
        raise InvalidInput(str(exc), code=exc.code, fields={"scope": [str(exc)]}) from exc
    except TypeError as exc:  # an identifier the scope kind does not carry
        raise InvalidInput(
            "The scope carries an unknown identifier.", fields={"scope": [str(exc)]}
        ) from exc


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()[:32]


@transaction.atomic
def recall_run(
    *,
    request: RecallRequest,
    actor: Actor,
    consumer: str,
    now: datetime | None = None,
) -> RecallResult:
    """Resolve, then count the use of what was returned and record it for the member."""
    now = now or timezone.now()
    # While a full clear waits out its grace window, nothing is recalled.
    cleared = memory_pending_clear(member_id=request.user_id) is not None
    # The store hands the pipeline a certified shortlist: the same result as over every
    # live entry, without reading them all (memory.recall_store.recall_resolve).
    result = resolve([], request, now) if cleared else recall_resolve(request=request, now=now)
    envelope = result.audit_envelope
    if envelope.returned_ids:
        MemoryEntry.objects.filter(member_id=request.user_id, pk__in=envelope.returned_ids).update(
            reference_count=F("reference_count") + 1, last_referenced_at=now
        )
    RecallRecord.objects.create(
        member_id=request.user_id,
        surface=result.surface,
        consumer=consumer,
        scope_key=envelope.scope_key,
        context=request.context,
        returned_ids=list(envelope.returned_ids),
        rationales={entry.entry_id: entry.explanation for entry in result.entries},
        suppression_counts=dict(envelope.suppression_counts),
        evaluated_count=envelope.evaluated_count,
        created_at=now,
    )
    audit_event_append(
        action="memory.recall.resolved",
        policy_id=POLICY_ID,
        actor=actor,
        severity=Severity.WARNING if result.anything_suppressed else Severity.INFO,
        target_member_id=request.user_id,
        target_tenant_id=request.effective_tenant_id,
        # The scope key can hold caller-chosen session names: only its digest goes in.
        payload={
            "scope_kind": request.scope.kind,
            "scope_key_digest": _digest(envelope.scope_key),
            "surface": result.surface,
            "returned_ids": list(envelope.returned_ids),
            "suppression_counts": dict(envelope.suppression_counts),
            "evaluated_count": envelope.evaluated_count,
        },
        occurred_at=now,
    )
    return result
