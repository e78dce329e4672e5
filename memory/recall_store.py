"""The storage side of recall: fetching candidates and keeping corpus statistics.

The pure pipeline (`memory.recall`) decides; this module feeds it from the database.
"""

from collections.abc import Iterable

from django.db.models import QuerySet

from memory.enums import Lifecycle, ScopeKind
from memory.models import MemoryCorpusStats, MemoryEntry
from memory.recall import (
    CorpusStats,
    MultiActor,
    ProvenanceLink,
    RecallCandidate,
    RecallRequest,
    ScopeKey,
    Suppression,
    TermStats,
    corpus_stats_add,
    corpus_stats_remove,
)

# Which stored scope kinds a recall in each kind can possibly reach; the pipeline's
# reachability stage then checks the identifiers. Filtering here keeps unreachable
# rows out of the query instead of loading and discarding them.
REACHABLE_KINDS: dict[str, tuple[str, ...]] = {
    ScopeKind.PROFILE: (ScopeKind.PROFILE,),
    ScopeKind.SESSION: (ScopeKind.SESSION, ScopeKind.PROFILE),
    ScopeKind.SCENE: (ScopeKind.SCENE, ScopeKind.SESSION, ScopeKind.PROFILE),
    ScopeKind.POSE: (ScopeKind.POSE, ScopeKind.SCENE, ScopeKind.SESSION, ScopeKind.PROFILE),
    ScopeKind.NOTEBOOK: (ScopeKind.NOTEBOOK, ScopeKind.PROFILE, ScopeKind.TENANT),
    ScopeKind.CRISIS: tuple(
        k for k in ScopeKind.values if k not in (ScopeKind.OPERATOR_COPILOT, ScopeKind.TENANT)
    ),
    ScopeKind.OPERATOR_COPILOT: (ScopeKind.OPERATOR_COPILOT,),
    ScopeKind.TENANT: (ScopeKind.TENANT,),
}

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
)


def _text(value) -> str | None:
    return str(value) if value else None


def candidate_of(row: MemoryEntry) -> RecallCandidate:
    """One stored entry as the pure pipeline's candidate."""
    return RecallCandidate(
        entry_id=str(row.id),
        revision_id=str(row.revision_id),
        user_id=str(row.member_id),
        tenant_id=_text(row.tenant_id),
        scope=ScopeKey(
            kind=row.scope_kind,
            user_id=str(row.member_id),
            session_id=row.session_id or None,
            scene_id=row.scene_id or None,
            room_id=row.room_id or None,
            pose_id=row.pose_id or None,
            avatar_id=row.avatar_id or None,
            notebook_id=row.notebook_id or None,
            operator_id=_text(row.operator_id),
            tenant_id=_text(row.tenant_id),
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
    )


def recall_candidate_rows(*, request: RecallRequest) -> QuerySet[MemoryEntry]:
    """The member's live rows in the scope kinds this request can reach, only the
    columns the pipeline reads; served by the `memory_recall_live` partial index."""
    return (
        MemoryEntry.objects.filter(
            member_id=request.user_id,
            lifecycle=Lifecycle.ACTIVE,
            scope_kind__in=REACHABLE_KINDS[request.scope.kind],
        )
        .only(*CANDIDATE_COLUMNS)
        .order_by()
    )


def recall_candidates(*, request: RecallRequest) -> list[RecallCandidate]:
    return [candidate_of(row) for row in recall_candidate_rows(request=request).iterator(2000)]


def corpus_stats_get(*, member_id) -> CorpusStats:
    row = MemoryCorpusStats.objects.filter(member_id=member_id).first()
    return CorpusStats.from_json(row.stats) if row and row.stats else CorpusStats()


def corpus_stats_apply(
    *, member_id, added: Iterable[dict] = (), removed: Iterable[dict] = ()
) -> None:
    """Fold entries' term statistics into (or out of) the member's corpus, under a row
    lock in the caller's transaction so concurrent writes never lose an update."""
    added = [TermStats.from_json(s) for s in added if s]
    removed = [TermStats.from_json(s) for s in removed if s]
    if not added and not removed:
        return
    row, _ = MemoryCorpusStats.objects.select_for_update().get_or_create(member_id=member_id)
    corpus = CorpusStats.from_json(row.stats) if row.stats else CorpusStats()
    corpus = corpus_stats_remove(corpus_stats_add(corpus, added), removed)
    row.stats = corpus.to_json()
    row.save(update_fields=["stats", "updated_at"])
