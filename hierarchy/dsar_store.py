"""The hierarchy's content stores (registered from `HierarchyConfig.ready()`): short-term
memory, erased, searched and exported with the member's other content, and the context
bundle's cache."""

import json
from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone

from hierarchy.bundle_cache import bundle_cache_drop, bundle_cache_held, bundle_generation_bump
from hierarchy.models_stm import ShortTermHold, ShortTermMemory
from hierarchy.stm import (
    POLICY_ID,
    stm_content,
    stm_gate_kind,
    stm_purge_member,
    stm_session_id,
)
from iris_site.audit.actions import AuditAction
from iris_site.audit.enums import Severity
from iris_site.audit.events import Actor, audit_event_append
from memory.forgetting.stores import SHORT_TERM_MEMORY, ContentStore, Erasure, ExtentKind, Hold


def _matching(erasure: Erasure) -> list[ShortTermMemory]:
    """Rows that point at an erased entry (or consolidated into one), repeat its text
    (sensitive rows are decrypted to be compared: their content is encrypted at rest), or
    are covered whatever they hold: in the erasure's extent by their category and the
    memory scope kind the read gate sees them in (`stm_gate_kind`: a user session's rows
    are session memory, the workbench's operator-copilot, the others profile memory), or
    by their session (a conversation's rows), or mention a forgotten person."""
    targets = set(erasure.entry_ids)
    return [
        row
        for row in ShortTermMemory.objects.filter(member_id=erasure.member_id).iterator()
        if erasure.covers(
            stm_gate_kind(row.scope_kind), row.category, session_id=stm_session_id(row)
        )
        or targets & {str(i) for i in row.related_entry_ids}
        or (row.consolidated_to is not None and str(row.consolidated_to) in targets)
        or erasure.holds(stm_content(row))
    ]


def _covered_texts(erasure: Erasure) -> list[str]:
    """The content of the rows the extent covers whatever they hold."""
    if not (erasure.everything or erasure.sessions or erasure.scope_kinds or erasure.categories):
        return []
    return [
        stm_content(row)
        for row in ShortTermMemory.objects.filter(member_id=erasure.member_id).iterator()
        if erasure.covers(
            stm_gate_kind(row.scope_kind), row.category, session_id=stm_session_id(row)
        )
    ]


def _texts(member_id, entry_ids) -> list[str]:
    """The content of rows that point at these entries (or consolidated into one)."""
    targets = {str(i) for i in entry_ids}
    return [
        stm_content(row)
        for row in ShortTermMemory.objects.filter(member_id=member_id).iterator()
        if targets & {str(i) for i in row.related_entry_ids}
        or (row.consolidated_to is not None and str(row.consolidated_to) in targets)
    ]


def _erase(erasure: Erasure) -> int:
    if erasure.everything:
        return stm_purge_member(member_id=erasure.member_id, reason=erasure.reason)
    ids = [row.pk for row in _matching(erasure)]
    if ids:
        ShortTermMemory.objects.filter(member_id=erasure.member_id, pk__in=ids).delete()
        audit_event_append(
            action=AuditAction.HIERARCHY_STM_PURGED,
            policy_id=POLICY_ID,
            actor=Actor.system(erasure.reason),
            severity=Severity.WARNING,
            target_member_id=erasure.member_id,
            payload={
                "purged_count": len(ids),
                "stm_ids": sorted(str(i) for i in ids)[:1000],
                "reason": erasure.reason,
            },
        )
    return len(ids)


def _residue(erasure: Erasure) -> int:
    return len(_matching(erasure))


def _hold(hold: Hold) -> int:
    """A soft delete hides the rows of its extent at once: the read gate withholds a held
    row from every surface (`hierarchy.stm.stm_item`), its content untouched. Rows held
    already (by this or another request) keep their hold; the audit event (ids and counts)
    also moves the member's bundle generation on, so no cached bundle serves them."""
    rows = ShortTermMemory.objects.filter(member_id=hold.member_id, deletion_hold__isnull=True)
    ids = [
        pk
        for pk, scope_kind, category in rows.values_list("pk", "scope_kind", "category")
        if hold.covers(stm_gate_kind(scope_kind), category)
    ]
    now = timezone.now()
    ShortTermHold.objects.bulk_create(
        [
            ShortTermHold(
                row_id=pk,
                member_id=hold.member_id,
                request_id=hold.request_id,
                placed_at=now,
                release_after=hold.release_after,
            )
            for pk in ids
        ]
    )
    audit_event_append(
        action=AuditAction.HIERARCHY_STM_HELD,
        policy_id=POLICY_ID,
        actor=Actor.system("datarights"),
        target_member_id=hold.member_id,
        payload={
            "dsar_request_id": str(hold.request_id),
            "held_count": len(ids),
            "stm_ids": sorted(str(i) for i in ids)[:1000],
        },
    )
    return len(ids)


def _release(member_id, request_id) -> int:
    """A cancelled soft delete: its rows are served again exactly as they were (those
    still alive: a row's TTL ran on while it was held)."""
    released, _ = ShortTermHold.objects.filter(member_id=member_id, request_id=request_id).delete()
    audit_event_append(
        action=AuditAction.HIERARCHY_STM_RELEASED,
        policy_id=POLICY_ID,
        actor=Actor.system("datarights"),
        target_member_id=member_id,
        payload={"dsar_request_id": str(request_id), "released_count": released},
    )
    return released


def _export(member_id) -> Iterable[dict]:
    for row in ShortTermMemory.objects.filter(member_id=member_id).order_by("created_at"):
        yield {
            "id": str(row.pk),
            "scope_kind": row.scope_kind,
            "scope_id": row.scope_id,
            "category": row.category,
            "content": stm_content(row),
            "related_entry_ids": [str(i) for i in row.related_entry_ids],
            "created_at": row.created_at.isoformat(),
            "ttl_expires": row.ttl_expires.isoformat(),
            "consolidated_to": str(row.consolidated_to) if row.consolidated_to else None,
        }


SHORT_TERM_STORE = ContentStore(
    name=SHORT_TERM_MEMORY,
    erase=_erase,
    residue=_residue,
    export=_export,
    texts=_texts,
    covered_texts=_covered_texts,
    order=20,
    encrypted=True,
    tables=(ShortTermMemory._meta.db_table, ShortTermHold._meta.db_table),
    hold=_hold,
    release=_release,
    extents={
        ExtentKind.FACT: "deletes rows pointing at, consolidated into or repeating the fact",
        ExtentKind.PERSON: "deletes rows mentioning one of the person's names",
        ExtentKind.CONVERSATION: "deletes every row of the conversation's session",
        ExtentKind.SCOPE: "deletes every row the read gate sees in the scope kinds",
        ExtentKind.CATEGORY: "deletes every row of the categories",
        ExtentKind.EVERYTHING: "deletes every row of the member's",
    },
)


def _bundle_erase(erasure: Erasure) -> int:
    """Move the member's bundle generation on inside the erasure's transaction: from its
    commit no process serves a bundle cached before it (`hierarchy.bundle_cache`). And
    delete the member's cached bundles, now and again once the erasure commits (one a
    racing request cached meanwhile), so the forgotten text is gone from the cache too."""
    bundle_generation_bump(erasure.member_id)
    bundle_cache_drop(erasure.member_id)
    transaction.on_commit(lambda: bundle_cache_drop(erasure.member_id))
    return 1


def _bundle_residue(erasure: Erasure) -> int:
    """The member's cached bundles that still hold what the erasure forgot (its text, or
    a forgotten person's name)."""
    return sum(erasure.holds(json.dumps(b)) for b in bundle_cache_held(erasure.member_id))


_BUNDLE_EXTENT = "moves the member's bundle generation on and deletes their cached bundles"
BUNDLE_CACHE_STORE = ContentStore(
    name="bundle-cache",
    erase=_bundle_erase,
    residue=_bundle_residue,
    order=95,
    extents=dict.fromkeys(ExtentKind, _BUNDLE_EXTENT),
)
