"""Running a recall for a surface: consent from the ledger, candidates from the store,
the pure pipeline, then the side effects (usage counters, the member's record, audit)."""

import dataclasses
import hashlib
import uuid
from datetime import datetime

from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from iris_site.audit.actions import AuditAction
from iris_site.audit.enums import Severity
from iris_site.audit.events import Actor, audit_event_prepare
from iris_site.errors import InvalidInput
from memory.access.capabilities import Capabilities
from memory.access.gate import MemberState
from memory.entities.selectors import entries_live_at, recall_entity_entry_ids
from memory.enums import Lifecycle
from memory.models import MemoryEntry, RecallRecord
from memory.recall import InvalidRecallRequest, RecallRequest, RecallResult, ScopeKey, resolve
from memory.recall.store import corpus_stats_get, recall_candidates, recall_resolve
from memory.selectors import member_read_state

POLICY_ID = "iris.memory.recall.v1"


def recall_request_build(
    *,
    member_id,
    capabilities: Capabilities,
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
    state: MemberState | None = None,
) -> RecallRequest:
    """The pipeline's request for a service client with ``capabilities``.

    The surface, the context and the scope's kind must be within the capabilities
    (else 403, `NotPermitted` with a stable code): a request narrows them, never widens.
    Consent and the member's state come from the ledger and their settings: a caller may
    narrow the consented categories, never widen them."""
    capabilities.require_surface(surface)
    capabilities.require_context(context)
    capabilities.require_read_kind(scope.get("kind", ""))
    # Not an active member (of the tenant named): 404, from the state's own statement.
    # A caller that read the member's state for this scope already (the context bundle,
    # for its short-term rows) hands it over instead of reading it twice.
    state = state or member_read_state(
        member_id=member_id,
        session_id=scope.get("session_id") or "",
        narrow_categories=narrow_categories,
        now=now,
        tenant_id=tenant_id,
        must_be_member=True,
    )
    try:
        return RecallRequest(
            user_id=str(member_id),
            surface=surface,
            scope=ScopeKey(**{**scope, "user_id": str(member_id)}),
            capabilities=capabilities,
            consent_types=state.consent_types,
            clear_pending=state.clear_pending,
            off_the_record=state.off_the_record,
            tenant_id=str(tenant_id) if tenant_id else None,
            query=query,
            context=context,
            crisis_frame=crisis_frame,
            safety_critical_context=safety_critical_context,
            consented_categories=state.categories,
            multi_actor_consented=state.multi_actor_consented,
            opt_outs=state.opt_outs,
            stopped_use=state.stopped_use,
            paused_consumers=state.paused_consumers,
            auto_forget_days=state.auto_forget_days,
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


def _resolve_narrowed(
    *, request: RecallRequest, now: datetime, entity_id=None, as_of: datetime | None = None
) -> RecallResult:
    """The pipeline over the entries about one entity and/or those that held at `as_of`.

    As of a time, an entry counts as it stood then: created by then and not superseded by
    then (one superseded since is weighed as the live fact it was), while everything
    else the gate checks — consent, pauses, scope, holds, the member's settings — is
    today's: the member's current choices hold over the past. The narrowed set is read
    whole (an entity's entries are few), ranked against the member's corpus."""
    wanted: set[str] | None = None
    revived: set[str] = set()
    if entity_id is not None:
        wanted = recall_entity_entry_ids(member_id=request.user_id, entity_id=entity_id)
    if as_of is not None:
        live, revived = entries_live_at(member_id=request.user_id, at=as_of)
        held = live | revived
        wanted = held if wanted is None else wanted & held
    candidates = [
        dataclasses.replace(c, lifecycle=Lifecycle.ACTIVE) if c.entry_id in revived else c
        for c in recall_candidates(request=request, entry_ids=wanted)
    ]
    return resolve(
        candidates, request, now, corpus_stats=corpus_stats_get(member_id=request.user_id)
    )


def recall_run(
    *,
    request: RecallRequest,
    actor: Actor,
    now: datetime | None = None,
    entity_id=None,
    as_of: datetime | None = None,
) -> RecallResult:
    """Resolve, then count the use of what was returned (and only that: nothing withheld is
    touched) and record it, with the audit envelope, for the member. `entity_id` narrows
    the recall to the entries about one of the member's entities (404 for another's or a
    retired one); `as_of` to what held at that time (`_resolve_narrowed`)."""
    now = now or timezone.now()
    # A timed pause that has ended counts as over from its end: the read gate sees such
    # an entry as active (`memory.recall.store`), and the `expire_memory_pauses` job
    # writes its resumption. A read never writes it.
    # The store hands the pipeline a certified shortlist: the same result as over every
    # entry, without reading them all (memory.recall.store.recall_resolve); the read gate
    # withholds and counts the rest.
    if entity_id is None and as_of is None:
        result = recall_resolve(request=request, now=now)
    else:
        result = _resolve_narrowed(request=request, now=now, entity_id=entity_id, as_of=as_of)
    _recall_write(request=request, result=result, actor=actor, now=now)
    return result


def _recall_write(*, request: RecallRequest, result: RecallResult, actor: Actor, now) -> None:
    """What a recall writes, all or nothing: the use of what was returned (and only that:
    nothing withheld is touched), the member's record, the audit event. On PostgreSQL one
    statement (the first two as its data-modifying CTEs, the append as its query), so a
    recall's writes cost one round trip and no transaction."""
    envelope = result.audit_envelope
    record = RecallRecord(
        member_id=request.user_id,
        surface=result.surface,
        consumer=request.capabilities.consumer,
        scope_key=envelope.scope_key,
        context=request.context,
        returned_ids=list(envelope.returned_ids),
        rationales={entry.entry_id: entry.explanation for entry in result.entries},
        suppression_counts=dict(envelope.suppression_counts),
        evaluated_count=envelope.evaluated_count,
        created_at=now,
    )
    append = audit_event_prepare(
        action=AuditAction.MEMORY_RECALL_RESOLVED,
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
    if not append.in_one_statement:
        with transaction.atomic():
            if envelope.returned_ids:
                MemoryEntry.objects.filter(
                    member_id=request.user_id, pk__in=envelope.returned_ids
                ).update(reference_count=F("reference_count") + 1, last_referenced_at=now)
            record.save(force_insert=True)
            append.run()
        return
    entries, records = MemoryEntry._meta, RecallRecord._meta
    quote = connection.ops.quote_name
    fields = records.concrete_fields
    uses = entries.get_field("reference_count").column
    append_sql, append_params = append.statement()
    writes = (
        f"WITH counted AS (UPDATE {quote(entries.db_table)}"  # noqa: S608 - fixed names, values as parameters
        f" SET {quote(uses)} = {quote(uses)} + 1,"
        f" {quote(entries.get_field('last_referenced_at').column)} = %s"
        f" WHERE {quote(entries.get_field('member').column)} = %s"
        f" AND {quote(entries.pk.column)} = ANY(%s)),"
        f" recorded AS (INSERT INTO {quote(records.db_table)}"
        f" ({', '.join(quote(f.column) for f in fields)})"
        f" VALUES ({', '.join(['%s'] * len(fields))})) "
    )
    params = [
        entries.get_field("last_referenced_at").get_db_prep_save(now, connection),
        entries.get_field("member").get_db_prep_save(request.user_id, connection),
        [uuid.UUID(i) for i in envelope.returned_ids],
        *(f.get_db_prep_save(f.pre_save(record, True), connection) for f in fields),
        *append_params,
    ]
    with connection.cursor() as cursor:
        cursor.execute(writes + append_sql, params)
        append.finished(cursor.fetchone())
