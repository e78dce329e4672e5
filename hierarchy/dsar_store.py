"""Short-term memory as a data-rights content store: erased, searched and exported with
the member's other content (registered from `HierarchyConfig.ready()`)."""

from collections.abc import Iterable, Sequence

from datarights.stores import SHORT_TERM_MEMORY, ContentStore
from hierarchy.enums import Severity
from hierarchy.events import Actor, audit_event_append
from hierarchy.models_stm import ShortTermMemory
from hierarchy.stm import POLICY_ID, stm_content


def _matching(member_id, entry_ids: Sequence[str], matcher) -> list[ShortTermMemory]:
    """Rows that point at a deleted entry (or consolidated into one) or repeat its text."""
    targets = {str(i) for i in entry_ids}
    return [
        row
        for row in ShortTermMemory.objects.filter(member_id=member_id).iterator()
        if targets & {str(i) for i in row.related_entry_ids}
        or (row.consolidated_to is not None and str(row.consolidated_to) in targets)
        or matcher.text_in(stm_content(row))
    ]


def _purge(member_id, entry_ids: Sequence[str], matcher) -> int:
    ids = [row.pk for row in _matching(member_id, entry_ids, matcher)]
    if ids:
        ShortTermMemory.objects.filter(member_id=member_id, pk__in=ids).delete()
        audit_event_append(
            action="memory.stm.purged",
            policy_id=POLICY_ID,
            actor=Actor.system("datarights"),
            severity=Severity.WARNING,
            target_member_id=member_id,
            payload={"purged_count": len(ids), "stm_ids": sorted(str(i) for i in ids)[:1000]},
        )
    return len(ids)


def _residue(member_id, entry_ids: Sequence[str], matcher) -> int:
    return len(_matching(member_id, entry_ids, matcher))


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
    name=SHORT_TERM_MEMORY, purge=_purge, residue=_residue, export=_export
)
