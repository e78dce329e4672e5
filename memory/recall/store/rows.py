"""A stored entry as the pure pipeline's candidate: the columns a recall reads of each
row (`CANDIDATE_COLUMNS`, by the ORM's ``values_list`` or the raw reader `ENTRY_ROWS`)
and the candidate built from them (`candidate_of`)."""

from __future__ import annotations

from collections import namedtuple

from iris_site.rawsql import RowReader
from memory.models import MemoryEntry
from memory.recall import (
    MultiActor,
    ProvenanceLink,
    RecallCandidate,
    ScopeKey,
    Suppression,
    TermStats,
)

CANDIDATE_COLUMNS = (
    "id",
    "revision_id",
    "member_id",
    "tenant_id",
    "scope_kind",
    "session_id",
    "scene_id",
    "room_id",
    "pose_id",
    "avatar_id",
    "notebook_id",
    "operator_id",
    "category",
    "subject",
    "body",
    "origin",
    "lifecycle",
    "updated_at",
    "term_stats",
    "suppression_reason",
    "suppression_ends_at",
    "actor_handle",
    "relationship_note",
    "sensitive_interaction",
    "provenance_chain",
    "reference_count",
    "last_referenced_at",
    "created_at",
    "valid_from",
    "valid_from_precision",
    "valid_to",
    "valid_to_precision",
    # The entry's deletion hold (its key, through a join on the primary key), if held.
    "deletion_hold",
)
# A row as `values_list(*CANDIDATE_COLUMNS)` gives it: building a model instance per
# candidate costs more than the rest of the recall.
CandidateRow = namedtuple("CandidateRow", CANDIDATE_COLUMNS)

# The candidate columns but the hold's key (only tested for presence), read raw.
ENTRY_ROWS = RowReader(MemoryEntry, CANDIDATE_COLUMNS[:-1])


def _text(value) -> str | None:
    return str(value) if value else None


def candidate_of(row: CandidateRow) -> RecallCandidate:
    """One stored entry, as `values_list(*CANDIDATE_COLUMNS)` reads it, as the pure
    pipeline's candidate."""
    member, tenant = str(row.member_id), _text(row.tenant_id)
    return RecallCandidate(
        entry_id=str(row.id),
        revision_id=str(row.revision_id),
        user_id=member,
        tenant_id=tenant,
        scope=ScopeKey(
            kind=row.scope_kind,
            user_id=member,
            session_id=row.session_id or None,
            scene_id=row.scene_id or None,
            room_id=row.room_id or None,
            pose_id=row.pose_id or None,
            avatar_id=row.avatar_id or None,
            notebook_id=row.notebook_id or None,
            operator_id=_text(row.operator_id),
            tenant_id=tenant,
        ),
        category=row.category,
        subject=row.subject,
        body=row.body,
        origin=row.origin,
        lifecycle=row.lifecycle,
        updated_at=row.updated_at,
        term_stats=TermStats.from_json(row.term_stats),
        suppression=Suppression(row.suppression_reason, row.suppression_ends_at)
        if row.suppression_reason
        else None,
        multi_actor=MultiActor(row.actor_handle, row.relationship_note, row.sensitive_interaction)
        if row.actor_handle
        else None,
        provenance_chain=tuple(
            ProvenanceLink(link["kind"], link["ref"], link["captured_at"])
            for link in row.provenance_chain
        ),
        reference_count=row.reference_count,
        last_referenced_at=row.last_referenced_at,
        held=row.deletion_hold is not None,
        valid_from=row.valid_from,
        valid_from_precision=row.valid_from_precision,
        valid_to=row.valid_to,
        valid_to_precision=row.valid_to_precision,
        learned_at=row.created_at,
    )
