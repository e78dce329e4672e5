"""The context bundle (R4): one call gives an agent a scope's working memory, the
long-term recall for its query and the episodic events about both.

All three tiers go through the read gate for the authenticated client: short-term rows
one by one (`hierarchy.stm.stm_read`), long-term entries through the recall pipeline,
and episodic events only about the rows and entries that were returned. What the gate
withholds is absent and counted by reason (`stm_withheld`, the recall's audit envelope).

Resolved bundles are cached for 30 seconds keyed on everything that changes the answer
(`hierarchy.bundle_cache`). Every server-side resolve — a cache hit too — appends a
count-only `hierarchy.bundle.resolved` event.
"""

import time
from datetime import datetime

from django.db.models import Q
from django.utils import timezone

from hierarchy import metrics
from hierarchy.bundle_cache import bundle_cache_get, bundle_cache_key, bundle_cache_set
from hierarchy.enums import StmScopeKind
from hierarchy.stm import (
    POLICY_ID,
    scope_digest,
    stm_disclosed,
    stm_gate_kind,
    stm_member_state,
    stm_read,
    stm_reader,
)
from hierarchy.stm_policy import default_target_scope
from hierarchy.transitions import Tier, transition_check
from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor, audit_event_append, iso
from iris_site.audit.sealing import Lister
from iris_site.audit.selectors import action_prefix_q, audit_events_for_member
from iris_site.models import User
from memory.access.capabilities import Capabilities
from memory.access.gate import MemberState, Reader
from memory.entities.selectors import recalled_graph
from memory.enums import RecallContext
from memory.policy.freshness import freshness
from memory.recall.service import recall_request_build, recall_run
from memory.selectors import memory_auto_forget_first

EPISODIC_LIMIT = 50


def _stm_output(view) -> dict:
    row = view.row
    return {
        "id": str(row.pk),
        "scope_kind": row.scope_kind,
        "scope_id": row.scope_id,
        "category": row.category,
        "sensitive": row.sensitive,
        "content": view.content,
        "related_entry_ids": list(row.related_entry_ids),
        "consolidate_on_critic_promote": row.consolidate_on_critic_promote,
        "consolidated_to": view.consolidated_to,
        "created_at": iso(row.created_at),
        "ttl_expires": iso(row.ttl_expires),
    }


def _ltm_output(entry, now: datetime, entity_ids: list[str]) -> dict:
    output = {
        "id": entry.entry_id,
        "revision_id": entry.revision_id,
        "scope_key": entry.scope_key,
        "category": entry.category,
        "subject": entry.subject,
        "body": entry.body,
        "origin": entry.origin,
        "score": round(entry.score, 6),
        "freshness": freshness(origin=entry.origin, asserted_at=entry.updated_at, now=now),
        "entity_ids": entity_ids,
        # When it was true as the member said it, apart from when Iris learned it (recall's).
        "valid_from": iso(entry.valid_from) if entry.valid_from else None,
        "valid_from_precision": entry.valid_from_precision,
        "valid_to": iso(entry.valid_to) if entry.valid_to else None,
        "valid_to_precision": entry.valid_to_precision,
        "learned_at": iso(entry.learned_at) if entry.learned_at else None,
    }
    if entry.rationale is not None:
        output["rationale"] = entry.rationale
    return output


def _episodic(member_id, *, stm_ids: list[str], entry_ids: list[str]) -> list[dict]:
    """The memory events about what was returned, and only those: an event that also
    names a withheld row or entry (a workbench row demoted from a returned entry) would
    tell the reader it exists, and operators' access records are not the member's
    episodic memory."""
    if not stm_ids and not entry_ids:
        return []
    events = audit_events_for_member(member_id=member_id).filter(
        Q(payload__stm_id__in=stm_ids) | Q(payload__entry_id__in=entry_ids),
        Q(payload__stm_id__isnull=True) | Q(payload__stm_id__in=stm_ids),
        Q(payload__entry_id__isnull=True) | Q(payload__entry_id__in=entry_ids),
        # The memory events, under the names they had and have (`hierarchy.stm.*` was
        # `memory.stm.*`): what the prefix `memory.` found when it named them all.
        action_prefix_q("memory."),
    )
    # The reader was given these rows and entries, categories included: their events'
    # sealed special-category values resolve for it (`iris_site.audit.sealing`).
    own = Lister(covered=frozenset({str(member_id)}))
    return [
        {
            "id": str(event.pk),
            "sequence": event.sequence,
            "action": event.action,
            "occurred_at": iso(event.occurred_at),
            "payload": own.payload(event),
        }
        for event in events.order_by("-sequence")[:EPISODIC_LIMIT]
    ]


def own_surface(capabilities: Capabilities) -> str:
    """The budget a client gets when it names none: its consumer's own where the table
    grants it (assistant, notebook), else the shell's."""
    return capabilities.consumer if capabilities.consumer in capabilities.surfaces else "shell"


def _resolve(
    *,
    member: User,
    scope_id: str,
    scope_kind: str | None,
    ltm_scope: dict,
    query: str,
    include_episodic: bool,
    surface: str,
    context: str,
    capabilities: Capabilities,
    reader: Reader,
    state: MemberState,
    actor: Actor,
    now: datetime,
    entity_id,
    as_of: datetime | None,
) -> tuple[dict, datetime | None]:
    """The bundle, and when the first of its short-term rows expires or one of its entries
    reaches the member's auto-forget time (it must not be served from the cache past
    that)."""
    stm = stm_read(
        member_id=member.pk,
        scope_id=scope_id,
        scope_kind=scope_kind,
        reader=reader,
        state=state,
        actor=actor,
        now=now,
        audit=False,  # the bundle's own event counts them
    )
    request = recall_request_build(
        member_id=member.pk,
        capabilities=capabilities,
        surface=surface,
        scope=ltm_scope,
        query=query,
        context=context,
        now=now,
        state=state,  # the same scope's state: its session, or none
    )
    recall = recall_run(request=request, actor=actor, now=now, entity_id=entity_id, as_of=as_of)
    stm_disclosed(member_id=member.pk, read=stm, actor=actor, now=now)
    stm_ids = [str(view.row.pk) for view in stm.views]
    entry_ids = sorted(entry.entry_id for entry in recall.entries)
    graph = recalled_graph(member_id=member.pk, entry_ids=entry_ids, as_of=as_of)
    bundle = {
        "scope_id": scope_id,
        "stm": [_stm_output(view) for view in stm.views],
        "stm_withheld": stm.withheld,
        "ltm": {
            "entries": [
                _ltm_output(entry, now, graph.entry_entities.get(entry.entry_id, []))
                for entry in recall.entries
            ],
            **graph.as_output(),
            "audit_envelope": recall.audit_envelope.as_dict(),
        },
        "episodic": _episodic(member.pk, stm_ids=stm_ids, entry_ids=entry_ids)
        if include_episodic
        else [],
        "resolved_at": iso(now),
    }
    # Nor past the instant the member's auto-forget choice stops the use of an entry it
    # holds (returned, the source of a short-term copy, or named as what a row became).
    held_ids = {
        *entry_ids,
        *(str(i) for view in stm.views for i in view.row.related_entry_ids),
        *(view.consolidated_to for view in stm.views if view.consolidated_to),
    }
    forget_at = memory_auto_forget_first(member_id=member.pk, entry_ids=held_ids, state=state)
    expiries = [view.row.ttl_expires for view in stm.views]
    if forget_at is not None:
        expiries.append(forget_at)
    return bundle, min(expiries, default=None)


def get_context_bundle(
    *,
    member: User,
    scope_id: str,
    actor: Actor,
    capabilities: Capabilities,
    query: str = "",
    include_episodic: bool = True,
    scope_kind: str | None = None,
    surface: str | None = None,
    context: str = RecallContext.GENERAL,
    entity: str | None = None,
    as_of: datetime | None = None,
    now: datetime | None = None,
) -> dict:
    """STM rows + LTM recall + episodic events for one scope of one member, each tier
    through the read gate for a service client with `capabilities` (`actor` is that
    client). A surface, context or scope kind outside them is 403 (`NotPermitted`).
    `entity` narrows the long-term recall to one of the member's entities (404 for
    another's or a retired one), `as_of` to what held then (`memory.recall.service`);
    `ltm` carries the entities and relationships of what it returned."""
    transition = transition_check(Tier.READER, Tier.READER, "bundle")
    started = time.perf_counter()
    now = now or timezone.now()
    surface = capabilities.require_surface(surface or own_surface(capabilities))
    ltm_scope = default_target_scope(scope_kind or StmScopeKind.USER_SESSION, scope_id)
    capabilities.require_read_kind(ltm_scope["kind"])
    if scope_kind is not None:
        capabilities.require_read_kind(stm_gate_kind(scope_kind))
    reader = stm_reader(
        member_id=member.pk, capabilities=capabilities, client_id=actor.id, context=context
    )
    state = stm_member_state(member_id=member.pk, scope_id=scope_id, scope_kind=scope_kind, now=now)
    key = bundle_cache_key(
        member.pk,
        scope_id,
        scope_kind,
        query,
        include_episodic,
        surface,
        context,
        capabilities,
        state,
        entity,
        as_of,
    )
    bundle = bundle_cache_get(key)
    cache_hit = bundle is not None
    if bundle is None:
        bundle, first_expiry = _resolve(
            member=member,
            scope_id=scope_id,
            scope_kind=scope_kind,
            ltm_scope=ltm_scope,
            query=query,
            include_episodic=include_episodic,
            surface=surface,
            context=context,
            capabilities=capabilities,
            reader=reader,
            state=state,
            actor=actor,
            now=now,
            entity_id=entity,
            as_of=as_of,
        )
        bundle_cache_set(key, bundle, member_id=member.pk, now=now, expires_at=first_expiry)
    counts = {
        "stm_count": len(bundle["stm"]),
        "ltm_count": len(bundle["ltm"]["entries"]),
        "episodic_count": len(bundle["episodic"]),
    }
    query_provided = "true" if query.strip() else "false"
    audit_event_append(
        action=AuditAction.HIERARCHY_BUNDLE_RESOLVED,
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=member.pk,
        payload={
            "scope_id_digest": scope_digest(scope_id),
            "query_provided": bool(query.strip()),
            "include_episodic": include_episodic,
            "cache_hit": cache_hit,
            "transition": transition.code.lower(),
            **counts,
            "stm_withheld": bundle["stm_withheld"],
            "ltm_withheld": bundle["ltm"]["audit_envelope"]["suppression_counts"],
        },
        occurred_at=now,
    )
    metrics.increment("memory.bundle.resolved", query_provided=query_provided)
    metrics.record(
        "memory.bundle.latency_ms",
        (time.perf_counter() - started) * 1000,
        query_provided=query_provided,
        stm_count_bucket=metrics.size_bucket(counts["stm_count"]),
        ltm_count_bucket=metrics.size_bucket(counts["ltm_count"]),
        episodic_count_bucket=metrics.size_bucket(counts["episodic_count"]),
    )
    return {**bundle, "cached": cache_hit}
